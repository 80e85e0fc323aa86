// Lesson 13 exercise: blocked online-softmax attention on the CPU.
// Style: log-sum-exp bookkeeping. The state is kept as (m, log l); l itself is only
// recovered at the boundary (the public update's l_i, and the final normalisation).
#include "online_softmax.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

namespace lesson13 {
namespace {

constexpr float kNegInf = -std::numeric_limits<float>::infinity();

// log(exp(a) + exp(b)), safe for -inf arguments.
float log_add_exp(float a, float b) {
  if (a == kNegInf) return b;
  if (b == kNegInf) return a;
  const float hi = std::max(a, b), lo = std::min(a, b);
  return hi + std::log1p(std::exp(lo - hi));
}

// One block for Br rows with the denominator held as log l (relative to m).
void update_lse(const float* S_ij, const float* V_j, int Br, int Bc, int d, float* m, float* log_l,
                float* O) {
  std::vector<float> p(Bc);
  for (int r = 0; r < Br; ++r) {
    const float* s = S_ij + static_cast<long>(r) * Bc;
    float* o = O + static_cast<long>(r) * d;
    float m_new = m[r];
    for (int c = 0; c < Bc; ++c) m_new = std::max(m_new, s[c]);

    float block_sum = 0.0f;
    for (int c = 0; c < Bc; ++c) {
      p[c] = std::exp(s[c] - m_new);
      block_sum += p[c];
    }
    // log of the old sum re-based on m_new is just log_l + (m_old - m_new).
    const float shift = m[r] - m_new;  // -inf on the first block
    const float old_log = (log_l[r] == kNegInf) ? kNegInf : log_l[r] + shift;
    log_l[r] = log_add_exp(old_log, std::log(block_sum));

    const float scale = std::exp(shift);
    for (int k = 0; k < d; ++k) {
      float acc = o[k] * scale;
      for (int c = 0; c < Bc; ++c) acc += p[c] * V_j[static_cast<long>(c) * d + k];
      o[k] = acc;
    }
    m[r] = m_new;
  }
}

}  // namespace

void online_softmax_update(const float* S_ij, const float* V_j, int Br, int Bc, int d, float* m_i,
                           float* l_i, float* O_i) {
  std::vector<float> log_l(Br);
  for (int r = 0; r < Br; ++r) log_l[r] = std::log(l_i[r]);  // log 0 = -inf
  update_lse(S_ij, V_j, Br, Bc, d, m_i, log_l.data(), O_i);
  for (int r = 0; r < Br; ++r) l_i[r] = std::exp(log_l[r]);
}

void normalize_rows(float* O, const float* l, int n, int d) {
  for (int r = 0; r < n; ++r)
    for (int k = 0; k < d; ++k) O[static_cast<long>(r) * d + k] /= l[r];
}

void flash_attention(const float* Q, const float* K, const float* V, int n, int d, int block_size,
                     float* O) {
  std::vector<float> m(n, kNegInf);
  std::vector<float> log_l(n, kNegInf);  // log 0
  std::fill(O, O + static_cast<long>(n) * d, 0.0f);
  std::vector<float> S(static_cast<size_t>(block_size) * block_size);

  for (int i = 0; i < n; i += block_size) {
    const int Br = std::min(block_size, n - i);
    for (int j = 0; j < n; j += block_size) {
      const int Bc = std::min(block_size, n - j);
      for (int r = 0; r < Br; ++r)
        for (int c = 0; c < Bc; ++c) {
          float dot = 0.0f;
          for (int k = 0; k < d; ++k)
            dot += Q[static_cast<long>(i + r) * d + k] * K[static_cast<long>(j + c) * d + k];
          S[static_cast<size_t>(r) * Bc + c] = dot;
        }
      update_lse(S.data(), V + static_cast<long>(j) * d, Br, Bc, d, &m[i], &log_l[i],
                 O + static_cast<long>(i) * d);
    }
  }
  // Convert back: l = exp(log l), then divide.
  std::vector<float> l(n);
  for (int r = 0; r < n; ++r) l[r] = std::exp(log_l[r]);
  normalize_rows(O, l.data(), n, d);
}

}  // namespace lesson13
