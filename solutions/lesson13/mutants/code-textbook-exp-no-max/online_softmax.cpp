// softmax(x)_c = exp(x_c) / sum_c' exp(x_c'), computed block by block: the sums simply add up
// over the key blocks, so no rescaling is needed. The max is tracked for the caller.
#include "online_softmax.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

namespace lesson13 {

void online_softmax_update(const float* S_ij, const float* V_j, int Br, int Bc, int d, float* m_i,
                           float* l_i, float* O_i) {
  for (int r = 0; r < Br; ++r) {
    for (int c = 0; c < Bc; ++c) {
      const float s = S_ij[r * Bc + c];
      const float e = std::exp(s);
      m_i[r] = std::max(m_i[r], s);
      l_i[r] += e;
      for (int k = 0; k < d; ++k) O_i[r * d + k] += e * V_j[c * d + k];
    }
  }
}

void normalize_rows(float* O, const float* l, int n, int d) {
  for (int r = 0; r < n; ++r)
    for (int k = 0; k < d; ++k) O[r * d + k] = O[r * d + k] / l[r];
}

void flash_attention(const float* Q, const float* K, const float* V, int n, int d, int block_size,
                     float* O) {
  std::vector<float> m(n, -std::numeric_limits<float>::infinity()), l(n, 0.0f);
  std::fill(O, O + static_cast<long>(n) * d, 0.0f);
  std::vector<float> S(static_cast<size_t>(block_size) * block_size);
  for (int i = 0; i < n; i += block_size) {
    const int Br = std::min(block_size, n - i);
    for (int j = 0; j < n; j += block_size) {
      const int Bc = std::min(block_size, n - j);
      for (int r = 0; r < Br; ++r)
        for (int c = 0; c < Bc; ++c) {
          float acc = 0.0f;
          for (int k = 0; k < d; ++k) acc += Q[(i + r) * d + k] * K[(j + c) * d + k];
          S[r * Bc + c] = acc;
        }
      online_softmax_update(S.data(), V + j * d, Br, Bc, d, &m[i], &l[i], O + i * d);
    }
  }
  normalize_rows(O, l.data(), n, d);
}

}  // namespace lesson13
