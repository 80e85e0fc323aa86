// Blocked online softmax. To keep the block loop simple, all scores Q K^T are computed
// once up front; each block is then copied out of the big matrix and fed to the update.
#include "online_softmax.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

namespace lesson13 {

void online_softmax_update(const float* S_ij, const float* V_j, int Br, int Bc, int d, float* m_i,
                           float* l_i, float* O_i) {
  for (int r = 0; r < Br; ++r) {
    const float* row = S_ij + static_cast<long>(r) * Bc;
    float m_new = m_i[r];
    for (int c = 0; c < Bc; ++c) m_new = std::max(m_new, row[c]);
    const float corr = std::exp(m_i[r] - m_new);
    float* o = O_i + static_cast<long>(r) * d;
    for (int k = 0; k < d; ++k) o[k] *= corr;
    float l = l_i[r] * corr;
    for (int c = 0; c < Bc; ++c) {
      const float w = std::exp(row[c] - m_new);
      l += w;
      const float* v = V_j + static_cast<long>(c) * d;
      for (int k = 0; k < d; ++k) o[k] += w * v[k];
    }
    l_i[r] = l;
    m_i[r] = m_new;
  }
}

void normalize_rows(float* O, const float* l, int n, int d) {
  for (long i = 0; i < static_cast<long>(n) * d; ++i) O[i] /= l[i / d];
}

void flash_attention(const float* Q, const float* K, const float* V, int n, int d, int block_size,
                     float* O) {
  // All n x n scores at once.
  std::vector<float> S(static_cast<size_t>(n) * n);
  for (int a = 0; a < n; ++a)
    for (int b = 0; b < n; ++b) {
      float dot = 0.0f;
      for (int k = 0; k < d; ++k) dot += Q[static_cast<long>(a) * d + k] * K[static_cast<long>(b) * d + k];
      S[static_cast<size_t>(a) * n + b] = dot;
    }
  std::vector<float> m(n, -std::numeric_limits<float>::infinity()), l(n, 0.0f);
  std::fill(O, O + static_cast<long>(n) * d, 0.0f);
  std::vector<float> blk(static_cast<size_t>(block_size) * block_size);
  for (int i = 0; i < n; i += block_size) {
    const int Br = std::min(block_size, n - i);
    for (int j = 0; j < n; j += block_size) {
      const int Bc = std::min(block_size, n - j);
      for (int r = 0; r < Br; ++r)
        std::copy_n(&S[static_cast<size_t>(i + r) * n + j], Bc, &blk[static_cast<size_t>(r) * Bc]);
      online_softmax_update(blk.data(), V + static_cast<long>(j) * d, Br, Bc, d, &m[i], &l[i],
                            O + static_cast<long>(i) * d);
    }
  }
  normalize_rows(O, l.data(), n, d);
}

}  // namespace lesson13
