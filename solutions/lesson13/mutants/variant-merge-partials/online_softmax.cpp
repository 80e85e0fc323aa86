// Lesson 13 exercise: blocked online-softmax attention on the CPU.
// Style: each key block is summarised on its own as a partial state (its max, its sum,
// its unnormalised P V); partial states are then merged with the rescaling rule.
#include "online_softmax.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

namespace lesson13 {
namespace {

// Merges partial state b into partial state a (one row):
//   m = max(m_a, m_b), l = l_a e^(m_a - m) + l_b e^(m_b - m), O likewise.
void merge(float& m_a, float& l_a, float* O_a, float m_b, float l_b, const float* O_b, int d) {
  const float m = std::max(m_a, m_b);
  const float wa = std::exp(m_a - m);  // 0 when a is empty (m_a = -inf)
  const float wb = std::exp(m_b - m);
  l_a = l_a * wa + l_b * wb;
  for (int k = 0; k < d; ++k) O_a[k] = O_a[k] * wa + O_b[k] * wb;
  m_a = m;
}

}  // namespace

void online_softmax_update(const float* S_ij, const float* V_j, int Br, int Bc, int d, float* m_i,
                           float* l_i, float* O_i) {
  std::vector<float> O_blk(d);
  for (int r = 0; r < Br; ++r) {
    const float* s = S_ij + static_cast<long>(r) * Bc;
    // The block's own statistics, independent of anything seen before.
    float m_blk = *std::max_element(s, s + Bc);
    float l_blk = 0.0f;
    std::fill(O_blk.begin(), O_blk.end(), 0.0f);
    for (int c = 0; c < Bc; ++c) {
      const float p = std::exp(s[c] - m_blk);
      l_blk += p;
      const float* v = V_j + static_cast<long>(c) * d;
      for (int k = 0; k < d; ++k) O_blk[k] += p * v[k];
    }
    merge(m_i[r], l_i[r], O_i + static_cast<long>(r) * d, m_blk, l_blk, O_blk.data(), d);
  }
}

void normalize_rows(float* O, const float* l, int n, int d) {
  for (int r = 0; r < n; ++r)
    for (int k = 0; k < d; ++k) O[static_cast<long>(r) * d + k] /= l[r];
}

void flash_attention(const float* Q, const float* K, const float* V, int n, int d, int block_size,
                     float* O) {
  std::vector<float> m(n, -std::numeric_limits<float>::infinity());
  std::vector<float> l(n, 0.0f);
  std::fill(O, O + static_cast<long>(n) * d, 0.0f);
  std::vector<float> S(static_cast<size_t>(block_size) * block_size);
  for (int i = 0; i < n; i += block_size) {
    const int Br = std::min(block_size, n - i);
    for (int j = 0; j < n; j += block_size) {
      const int Bc = std::min(block_size, n - j);
      for (int r = 0; r < Br; ++r)
        for (int c = 0; c < Bc; ++c) {
          float acc = 0.0f;
          for (int k = 0; k < d; ++k)
            acc += Q[static_cast<long>(i + r) * d + k] * K[static_cast<long>(j + c) * d + k];
          S[static_cast<size_t>(r) * Bc + c] = acc;
        }
      online_softmax_update(S.data(), V + static_cast<long>(j) * d, Br, Bc, d, &m[i], &l[i],
                            O + static_cast<long>(i) * d);
    }
  }
  normalize_rows(O, l.data(), n, d);
}

}  // namespace lesson13
