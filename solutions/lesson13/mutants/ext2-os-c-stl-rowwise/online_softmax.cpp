// Lesson 13: blocked online softmax, written with the standard algorithms.
// The O update goes row of V by row of V (an axpy per key) instead of column by
// column, which reads V_j contiguously: first rescale the whole O row, then add
// p_ij[c] * V_j[c] for every key c of the block.
#include "online_softmax.hpp"

#include <algorithm>
#include <cmath>
#include <functional>
#include <limits>
#include <numeric>
#include <vector>

namespace lesson13 {

void online_softmax_update(const float* S_ij, const float* V_j, int Br, int Bc, int d, float* m_i,
                           float* l_i, float* O_i) {
  std::vector<float> p_ij(Bc);
  for (int r = 0; r < Br; ++r) {
    const float* s = S_ij + r * Bc;
    float* O_r = O_i + r * d;

    // running max: the old one or this block's, whichever is larger
    const float m_new = std::max(m_i[r], *std::max_element(s, s + Bc));
    // everything accumulated so far was relative to m_i[r]; move it to m_new
    const float scale = std::exp(m_i[r] - m_new);

    std::transform(s, s + Bc, p_ij.begin(), [m_new](float x) { return std::exp(x - m_new); });
    const float p_sum = std::accumulate(p_ij.begin(), p_ij.end(), 0.0f);

    const float l_new = std::fma(l_i[r], scale, p_sum);

    std::transform(O_r, O_r + d, O_r, [scale](float o) { return o * scale; });
    for (int c = 0; c < Bc; ++c) {
      const float w = p_ij[c];
      const float* v = V_j + static_cast<long>(c) * d;
      std::transform(O_r, O_r + d, v, O_r, [w](float o, float x) { return std::fma(w, x, o); });
    }

    m_i[r] = m_new;
    l_i[r] = l_new;
  }
}

void normalize_rows(float* O, const float* l, int n, int d) {
  for (int r = 0; r < n; ++r) {
    float* row = O + static_cast<long>(r) * d;
    const float inv = 1.0f / l[r];
    std::transform(row, row + d, row, [inv](float o) { return o * inv; });
  }
}

void flash_attention(const float* Q, const float* K, const float* V, int n, int d, int block_size,
                     float* O) {
  std::vector<float> m(n, -std::numeric_limits<float>::infinity());
  std::vector<float> l(n, 0.0f);
  std::fill(O, O + static_cast<long>(n) * d, 0.0f);
  std::vector<float> S_ij(static_cast<size_t>(block_size) * block_size);

  for (int i = 0; i < n; i += block_size) {
    const int Br = std::min(block_size, n - i);
    const float* Q_i = Q + static_cast<long>(i) * d;
    for (int j = 0; j < n; j += block_size) {
      const int Bc = std::min(block_size, n - j);
      const float* K_j = K + static_cast<long>(j) * d;
      const float* V_j = V + static_cast<long>(j) * d;
      for (int r = 0; r < Br; ++r) {
        const float* q = Q_i + static_cast<long>(r) * d;
        for (int c = 0; c < Bc; ++c) {
          const float* k = K_j + static_cast<long>(c) * d;
          S_ij[r * Bc + c] = std::inner_product(q, q + d, k, 0.0f);
        }
      }
      online_softmax_update(S_ij.data(), V_j, Br, Bc, d, &m[i], &l[i],
                            O + static_cast<long>(i) * d);
    }
  }
  normalize_rows(O, l.data(), n, d);
}

}  // namespace lesson13
