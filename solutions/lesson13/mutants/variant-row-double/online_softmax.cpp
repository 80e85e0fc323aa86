// Lesson 13 exercise: blocked online-softmax attention on the CPU.
// Style: one query row at a time, explicit loops, double accumulators for l and O.
#include "online_softmax.hpp"

#include <cmath>
#include <limits>
#include <vector>

namespace lesson13 {

void online_softmax_update(const float* S_ij, const float* V_j, int Br, int Bc, int d, float* m_i,
                           float* l_i, float* O_i) {
  std::vector<double> acc(d);
  std::vector<double> w(Bc);
  for (int r = 0; r < Br; ++r) {
    const float* row = S_ij + static_cast<long>(r) * Bc;
    float* out = O_i + static_cast<long>(r) * d;

    float m_old = m_i[r];
    float m_new = m_old;
    for (int c = 0; c < Bc; ++c)
      if (row[c] > m_new) m_new = row[c];

    // Re-base the old state on the new maximum (exp(-inf) = 0 on the first block).
    double rescale = std::exp(static_cast<double>(m_old) - static_cast<double>(m_new));

    double sum = 0.0;
    for (int c = 0; c < Bc; ++c) {
      w[c] = std::exp(static_cast<double>(row[c]) - static_cast<double>(m_new));
      sum += w[c];
    }

    for (int k = 0; k < d; ++k) acc[k] = static_cast<double>(out[k]) * rescale;
    for (int c = 0; c < Bc; ++c) {
      const float* v = V_j + static_cast<long>(c) * d;
      for (int k = 0; k < d; ++k) acc[k] += w[c] * static_cast<double>(v[k]);
    }
    for (int k = 0; k < d; ++k) out[k] = static_cast<float>(acc[k]);

    m_i[r] = m_new;
    l_i[r] = static_cast<float>(static_cast<double>(l_i[r]) * rescale + sum);
  }
}

void normalize_rows(float* O, const float* l, int n, int d) {
  for (int r = 0; r < n; ++r) {
    const double denom = l[r];
    for (int k = 0; k < d; ++k) {
      float& x = O[static_cast<long>(r) * d + k];
      x = static_cast<float>(static_cast<double>(x) / denom);
    }
  }
}

void flash_attention(const float* Q, const float* K, const float* V, int n, int d, int block_size,
                     float* O) {
  std::vector<float> m(n, -std::numeric_limits<float>::infinity());
  std::vector<float> l(n, 0.0f);
  for (long idx = 0; idx < static_cast<long>(n) * d; ++idx) O[idx] = 0.0f;
  std::vector<float> S(static_cast<size_t>(block_size) * block_size);

  for (int i0 = 0; i0 < n; i0 += block_size) {
    int Br = block_size;
    if (i0 + Br > n) Br = n - i0;
    for (int j0 = 0; j0 < n; j0 += block_size) {
      int Bc = block_size;
      if (j0 + Bc > n) Bc = n - j0;
      for (int r = 0; r < Br; ++r) {
        const float* q = Q + static_cast<long>(i0 + r) * d;
        for (int c = 0; c < Bc; ++c) {
          const float* kk = K + static_cast<long>(j0 + c) * d;
          double dot = 0.0;
          for (int t = 0; t < d; ++t) dot += static_cast<double>(q[t]) * kk[t];
          S[static_cast<long>(r) * Bc + c] = static_cast<float>(dot);
        }
      }
      online_softmax_update(S.data(), V + static_cast<long>(j0) * d, Br, Bc, d, m.data() + i0,
                            l.data() + i0, O + static_cast<long>(i0) * d);
    }
  }
  normalize_rows(O, l.data(), n, d);
}

}  // namespace lesson13
