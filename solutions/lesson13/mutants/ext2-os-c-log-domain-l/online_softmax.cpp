// Lesson 13 exercise: blocked online-softmax attention (FlashAttention's forward
// pass on the CPU).
//
// My version keeps the denominator update in the log domain: instead of
// l_new = l_old * scale + p_sum I add the two parts as logarithms
// (log-sum-exp), both measured against the new max, and only go back to l at
// the end of the row. m and O are exactly what the header asks for.
#include "online_softmax.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

namespace lesson13 {

namespace {

constexpr double kNegInf = -std::numeric_limits<double>::infinity();

// log(e^a + e^b) without overflow; -inf stands for "an empty sum".
double log_add_exp(double a, double b) {
  if (a == kNegInf) return b;
  if (b == kNegInf) return a;
  const double hi = std::max(a, b);
  const double lo = std::min(a, b);
  return hi + std::log1p(std::exp(lo - hi));
}

}  // namespace

void online_softmax_update(const float* S_ij, const float* V_j, int Br, int Bc, int d, float* m_i,
                           float* l_i, float* O_i) {
  std::vector<float> p_ij(Bc);
  for (int r = 0; r < Br; ++r) {
    const float* s = S_ij + r * Bc;
    float* O_r = O_i + r * d;
    const float block_max = *std::max_element(s, s + Bc);

    const float m_old = m_i[r];
    const float m_new = std::max(m_old, block_max);
    const float shift = m_old - m_new;          // <= 0, -inf on the first block
    const float scale = std::exp(shift);        // re-bases old l and O onto m_new

    float p_sum = 0.0f;
    for (int c = 0; c < Bc; ++c) {
      p_ij[c] = std::exp(s[c] - m_new);
      p_sum += p_ij[c];
    }

    // log of the old sum, moved to the new max; an empty row (l = 0) is -inf.
    const double log_old = l_i[r] > 0.0f ? std::log(static_cast<double>(l_i[r])) + shift : kNegInf;
    // log of this block's sum; if every p underflowed (block far below m_new)
    // p_sum is 0 and its log is -inf, which log_add_exp treats as empty.
    const double log_blk = std::log(static_cast<double>(p_sum));
    const float l_new = static_cast<float>(std::exp(log_add_exp(log_old, log_blk)));

    for (int k = 0; k < d; ++k) {
      float pv = 0.0f;
      for (int c = 0; c < Bc; ++c) pv += p_ij[c] * V_j[c * d + k];
      O_r[k] = scale * O_r[k] + pv;
    }

    m_i[r] = m_new;
    l_i[r] = l_new;
  }
}

void normalize_rows(float* O, const float* l, int n, int d) {
  for (int r = 0; r < n; ++r) {
    const float denom = l[r];
    for (int k = 0; k < d; ++k) O[r * d + k] = O[r * d + k] / denom;
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
