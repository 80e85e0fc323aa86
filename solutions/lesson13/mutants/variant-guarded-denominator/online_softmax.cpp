// Lesson 13 exercise: blocked online-softmax attention on the CPU.
// Style: as the lesson's loop, but the final division is guarded: a row whose l is
// not positive (it never saw a key) is written as 0 instead of 0/0.
#include "online_softmax.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

namespace lesson13 {

void online_softmax_update(const float* S_ij, const float* V_j, int Br, int Bc, int d, float* m_i,
                           float* l_i, float* O_i) {
  std::vector<float> weights(Bc);
  for (int r = 0; r < Br; ++r) {
    const float* s = S_ij + static_cast<long>(r) * Bc;
    float* o = O_i + static_cast<long>(r) * d;

    float block_max = s[0];
    for (int c = 1; c < Bc; ++c) block_max = std::max(block_max, s[c]);
    const float m_prev = m_i[r];
    const float m_next = std::max(m_prev, block_max);
    const float correction = std::exp(m_prev - m_next);

    float added = 0.0f;
    for (int c = 0; c < Bc; ++c) {
      weights[c] = std::exp(s[c] - m_next);
      added += weights[c];
    }
    for (int k = 0; k < d; ++k) {
      float pv = 0.0f;
      for (int c = 0; c < Bc; ++c) pv += weights[c] * V_j[static_cast<long>(c) * d + k];
      o[k] = correction * o[k] + pv;
    }
    l_i[r] = correction * l_i[r] + added;
    m_i[r] = m_next;
  }
}

void normalize_rows(float* O, const float* l, int n, int d) {
  for (int r = 0; r < n; ++r) {
    float* o = O + static_cast<long>(r) * d;
    if (l[r] > 0.0f) {
      for (int k = 0; k < d; ++k) o[k] = o[k] / l[r];
    } else {
      for (int k = 0; k < d; ++k) o[k] = 0.0f;
    }
  }
}

void flash_attention(const float* Q, const float* K, const float* V, int n, int d, int block_size,
                     float* O) {
  std::vector<float> m(n, -std::numeric_limits<float>::infinity());
  std::vector<float> l(n, 0.0f);
  std::fill(O, O + static_cast<long>(n) * d, 0.0f);
  std::vector<float> S(static_cast<size_t>(block_size) * block_size);

  for (int qb = 0; qb < n; qb += block_size) {
    const int Br = std::min(block_size, n - qb);
    for (int kb = 0; kb < n; kb += block_size) {
      const int Bc = std::min(block_size, n - kb);
      for (int r = 0; r < Br; ++r) {
        for (int c = 0; c < Bc; ++c) {
          const float* q = Q + static_cast<long>(qb + r) * d;
          const float* k = K + static_cast<long>(kb + c) * d;
          float dot = 0.0f;
          for (int t = 0; t < d; ++t) dot += q[t] * k[t];
          S[static_cast<size_t>(r) * Bc + c] = dot;
        }
      }
      online_softmax_update(S.data(), V + static_cast<long>(kb) * d, Br, Bc, d, m.data() + qb,
                            l.data() + qb, O + static_cast<long>(qb) * d);
    }
  }
  normalize_rows(O, l.data(), n, d);
}

}  // namespace lesson13
