// Lesson 13 exercise: blocked online-softmax attention (FlashAttention's forward
// pass on the CPU). Fill in every BLANK, then grade with: grader lesson13
//
// The notes derive each line: lessons/lesson13/. The API and the meaning of
// m, l and O are in lessons/lesson13/include/online_softmax.hpp.
#include "online_softmax.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

#include "course/blank.hpp"

namespace lesson13 {

void online_softmax_update(const float* S_ij, const float* V_j, int Br, int Bc, int d, float* m_i,
                           float* l_i, float* O_i) {
  std::vector<float> p_ij(Bc);
  for (int r = 0; r < Br; ++r) {
    const float* s = S_ij + r * Bc;
    float* O_r = O_i + r * d;
    const float block_max = *std::max_element(s, s + Bc);

    // 1) m_new: the largest score this row has seen, this block included.
    const float m_new = BLANK(m_new);

    // 2) scale: what l and O accumulated was weighted relative to the old max;
    //    scale is the one factor that puts all of it relative to m_new.
    const float scale = BLANK(scale);

    // 3) p_ij and p_sum: this block's weights against m_new, and their sum (given).
    float p_sum = 0.0f;
    for (int c = 0; c < Bc; ++c) {
      p_ij[c] = std::exp(s[c] - m_new);  // this block's unnormalised weights
      p_sum += p_ij[c];
    }

    // 4) l_new: the row's softmax denominator over every key seen so far.
    const float l_new = BLANK(l_new);

    // 5) O_update: the row's output over every key seen so far, not yet divided by l.
    for (int k = 0; k < d; ++k) {
      // This blank may be replaced by several lines: the sum over this block's
      // keys c needs a small loop before the assignment.
      O_r[k] = BLANK(O_update);  // column k of that output, this block included
    }

    m_i[r] = m_new;
    l_i[r] = l_new;
  }
}

void normalize_rows(float* O, const float* l, int n, int d) {
  for (int r = 0; r < n; ++r) {
    for (int k = 0; k < d; ++k) {
      // Last step, after every key block: the attention output, whose softmax weights
      // add up to 1, applied to V.
      O[r * d + k] = BLANK(normalize);
    }
  }
}

void flash_attention(const float* Q, const float* K, const float* V, int n, int d, int block_size,
                     float* O) {
  std::vector<float> m(n, -std::numeric_limits<float>::infinity());  // running max
  std::vector<float> l(n, 0.0f);                                     // running sum
  std::fill(O, O + static_cast<long>(n) * d, 0.0f);                  // running output
  std::vector<float> S_ij(static_cast<size_t>(block_size) * block_size);

  for (int i = 0; i < n; i += block_size) {
    const int Br = std::min(block_size, n - i);  // the last block may be partial
    const float* Q_i = Q + static_cast<long>(i) * d;
    for (int j = 0; j < n; j += block_size) {
      const int Bc = std::min(block_size, n - j);
      const float* K_j = K + static_cast<long>(j) * d;
      const float* V_j = V + static_cast<long>(j) * d;
      // S_ij = Q_i K_j^T: only this Br x Bc block of scores ever exists.
      for (int r = 0; r < Br; ++r) {
        for (int c = 0; c < Bc; ++c) {
          float dot = 0.0f;
          for (int k = 0; k < d; ++k) dot += Q_i[r * d + k] * K_j[c * d + k];
          S_ij[r * Bc + c] = dot;
        }
      }
      online_softmax_update(S_ij.data(), V_j, Br, Bc, d, &m[i], &l[i],
                            O + static_cast<long>(i) * d);
    }
  }
  normalize_rows(O, l.data(), n, d);
}

}  // namespace lesson13
