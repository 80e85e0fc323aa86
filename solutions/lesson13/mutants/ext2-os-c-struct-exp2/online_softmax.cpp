// Lesson 13: blocked online softmax.
// Each query row's running state (m, l and its O row) is gathered in a small
// struct, and one lambda folds a block into it. Exponentials are taken base 2:
// e^x = 2^(x * log2(e)), so every exp becomes exp2 of a pre-scaled argument
// (this is what GPU kernels do, since exp2 is the hardware instruction).
#include "online_softmax.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

namespace lesson13 {

namespace {

constexpr float kLog2e = 1.4426950408889634f;

inline float exp_via_exp2(float x) { return std::exp2(x * kLog2e); }

struct RowState {
  float& m;   // running max
  float& l;   // running sum of exp(score - m)
  float* o;   // running un-normalised output row, d values
};

}  // namespace

void online_softmax_update(const float* S_ij, const float* V_j, int Br, int Bc, int d, float* m_i,
                           float* l_i, float* O_i) {
  std::vector<float> p(Bc);

  auto absorb = [&](RowState st, const float* s) {
    float m_new = st.m;
    for (int c = 0; c < Bc; ++c) m_new = std::max(m_new, s[c]);

    const float scale = exp_via_exp2(st.m - m_new);  // 0 on the first block (m = -inf)

    float p_sum = 0.0f;
    for (int c = 0; c < Bc; ++c) {
      p[c] = exp_via_exp2(s[c] - m_new);
      p_sum += p[c];
    }

    for (int k = 0; k < d; ++k) {
      float acc = st.o[k] * scale;
      for (int c = 0; c < Bc; ++c) acc += p[c] * V_j[c * d + k];
      st.o[k] = acc;
    }
    st.l = st.l * scale + p_sum;
    st.m = m_new;
  };

  for (int r = 0; r < Br; ++r) {
    absorb(RowState{m_i[r], l_i[r], O_i + r * d}, S_ij + r * Bc);
  }
}

void normalize_rows(float* O, const float* l, int n, int d) {
  for (int r = 0; r < n; ++r) {
    for (int k = 0; k < d; ++k) {
      O[r * d + k] /= l[r];
    }
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
