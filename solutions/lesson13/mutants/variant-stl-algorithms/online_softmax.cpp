// Lesson 13 exercise: blocked online-softmax attention on the CPU.
// Style: lean on <algorithm> and <numeric> (max_element, transform, inner_product).
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
  std::vector<float> p(Bc);
  for (int r = 0; r < Br; ++r) {
    const float* s_begin = S_ij + static_cast<long>(r) * Bc;
    const float* s_end = s_begin + Bc;
    float* o_begin = O_i + static_cast<long>(r) * d;
    float* o_end = o_begin + d;

    const float m_new = std::max(m_i[r], *std::max_element(s_begin, s_end));
    const float alpha = std::exp(m_i[r] - m_new);

    std::transform(s_begin, s_end, p.begin(), [m_new](float s) { return std::exp(s - m_new); });
    const float block_sum = std::accumulate(p.begin(), p.end(), 0.0f);

    // O_r <- alpha * O_r + sum_c p[c] * V_j[c, :]
    std::transform(o_begin, o_end, o_begin, [alpha](float o) { return o * alpha; });
    for (int c = 0; c < Bc; ++c) {
      const float* v = V_j + static_cast<long>(c) * d;
      const float pc = p[c];
      std::transform(o_begin, o_end, v, o_begin, [pc](float o, float vk) { return o + pc * vk; });
    }

    l_i[r] = l_i[r] * alpha + block_sum;
    m_i[r] = m_new;
  }
}

void normalize_rows(float* O, const float* l, int n, int d) {
  for (int r = 0; r < n; ++r) {
    float* row = O + static_cast<long>(r) * d;
    const float denom = l[r];
    std::transform(row, row + d, row, [denom](float x) { return x / denom; });
  }
}

void flash_attention(const float* Q, const float* K, const float* V, int n, int d, int block_size,
                     float* O) {
  std::vector<float> m(n, -std::numeric_limits<float>::infinity());
  std::vector<float> l(n, 0.0f);
  std::fill_n(O, static_cast<long>(n) * d, 0.0f);
  std::vector<float> S(static_cast<size_t>(block_size) * block_size);

  for (int i = 0; i < n; i += block_size) {
    const int Br = std::min(block_size, n - i);
    for (int j = 0; j < n; j += block_size) {
      const int Bc = std::min(block_size, n - j);
      for (int r = 0; r < Br; ++r) {
        const float* q = Q + static_cast<long>(i + r) * d;
        for (int c = 0; c < Bc; ++c) {
          const float* k = K + static_cast<long>(j + c) * d;
          S[static_cast<size_t>(r) * Bc + c] = std::inner_product(q, q + d, k, 0.0f);
        }
      }
      online_softmax_update(S.data(), V + static_cast<long>(j) * d, Br, Bc, d, &m[i], &l[i],
                            O + static_cast<long>(i) * d);
    }
  }
  normalize_rows(O, l.data(), n, d);
}

}  // namespace lesson13
