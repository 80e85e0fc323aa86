// Lesson 13 exercise: blocked online-softmax attention on the CPU.
// Style: all scratch is std::vector, sized from the actual block (Br x Bc, Bc, d);
// no fixed-size arrays and no buffer sized for the whole problem.
#include "online_softmax.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

namespace lesson13 {

void online_softmax_update(const float* S_ij, const float* V_j, int Br, int Bc, int d, float* m_i,
                           float* l_i, float* O_i) {
  // Whole-block scratch: the new maxima, the rescale factors and P = exp(S - m_new).
  std::vector<float> m_new(Br), scale(Br), P(static_cast<size_t>(Br) * Bc);
  for (int r = 0; r < Br; ++r) {
    float mx = m_i[r];
    for (int c = 0; c < Bc; ++c) mx = std::max(mx, S_ij[static_cast<size_t>(r) * Bc + c]);
    m_new[r] = mx;
    scale[r] = std::exp(m_i[r] - mx);
  }
  for (int r = 0; r < Br; ++r) {
    float row_sum = 0.0f;
    for (int c = 0; c < Bc; ++c) {
      const size_t at = static_cast<size_t>(r) * Bc + c;
      P[at] = std::exp(S_ij[at] - m_new[r]);
      row_sum += P[at];
    }
    l_i[r] = l_i[r] * scale[r] + row_sum;
  }
  // O_i <- diag(scale) O_i + P V_j
  std::vector<float> pv(d);
  for (int r = 0; r < Br; ++r) {
    std::fill(pv.begin(), pv.end(), 0.0f);
    for (int c = 0; c < Bc; ++c) {
      const float p = P[static_cast<size_t>(r) * Bc + c];
      for (int k = 0; k < d; ++k) pv[k] += p * V_j[static_cast<size_t>(c) * d + k];
    }
    float* o = O_i + static_cast<size_t>(r) * d;
    for (int k = 0; k < d; ++k) o[k] = o[k] * scale[r] + pv[k];
    m_i[r] = m_new[r];
  }
}

void normalize_rows(float* O, const float* l, int n, int d) {
  for (int r = 0; r < n; ++r)
    for (int k = 0; k < d; ++k) O[static_cast<size_t>(r) * d + k] /= l[r];
}

void flash_attention(const float* Q, const float* K, const float* V, int n, int d, int block_size,
                     float* O) {
  std::vector<float> m(n, -std::numeric_limits<float>::infinity());
  std::vector<float> l(n, 0.0f);
  std::fill(O, O + static_cast<size_t>(n) * d, 0.0f);

  for (int i = 0; i < n; i += block_size) {
    const int Br = std::min(block_size, n - i);
    for (int j = 0; j < n; j += block_size) {
      const int Bc = std::min(block_size, n - j);
      std::vector<float> S_ij(static_cast<size_t>(Br) * Bc);  // this block's scores only
      for (int r = 0; r < Br; ++r)
        for (int c = 0; c < Bc; ++c) {
          float dot = 0.0f;
          for (int k = 0; k < d; ++k)
            dot += Q[static_cast<size_t>(i + r) * d + k] * K[static_cast<size_t>(j + c) * d + k];
          S_ij[static_cast<size_t>(r) * Bc + c] = dot;
        }
      online_softmax_update(S_ij.data(), V + static_cast<size_t>(j) * d, Br, Bc, d, &m[i], &l[i],
                            O + static_cast<size_t>(i) * d);
    }
  }
  normalize_rows(O, l.data(), n, d);
}

}  // namespace lesson13
