// Blocked online-softmax attention, written after the FlashAttention-1 paper's
// Algorithm 1: the outer loop runs over key/value blocks, the inner one over query
// blocks, and each row carries a small (m, l) state.
#include "online_softmax.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

namespace lesson13 {

namespace {

struct RowState {
  float m;  // running max
  float l;  // running denominator, relative to m
};

}  // namespace

void online_softmax_update(const float* S_ij, const float* V_j, int Br, int Bc, int d, float* m_i,
                           float* l_i, float* O_i) {
  std::vector<float> w(static_cast<size_t>(Bc));
  auto rescale_row = [d](float* row, float factor) {
    for (int k = 0; k < d; ++k) row[k] *= factor;
  };
  for (int r = 0; r < Br; ++r) {
    const float* scores = S_ij + static_cast<size_t>(r) * Bc;
    float* out = O_i + static_cast<size_t>(r) * d;
    RowState st{m_i[r], l_i[r]};

    float tile_max = -std::numeric_limits<float>::infinity();
    for (int c = 0; c < Bc; ++c) tile_max = std::fmax(tile_max, scores[c]);
    const float m_next = std::fmax(st.m, tile_max);
    // exp(-inf - finite) = 0 on the first block, so the zero state stays zero.
    const float alpha = std::exp(st.m - m_next);

    float tile_sum = 0.0f;
    for (int c = 0; c < Bc; ++c) {
      w[c] = std::exp(scores[c] - m_next);
      tile_sum += w[c];
    }

    rescale_row(out, alpha);
    for (int c = 0; c < Bc; ++c) {
      const float* v = V_j + static_cast<size_t>(c) * d;
      const float wc = w[c];
      for (int k = 0; k < d; ++k) out[k] += wc * v[k];
    }

    st.l = alpha * st.l + tile_sum;
    st.m = m_next;
    m_i[r] = st.m;
    l_i[r] = st.l;
  }
}

void normalize_rows(float* O, const float* l, int n, int d) {
  for (int r = 0; r < n; ++r) {
    const float inv = 1.0f / l[r];
    float* row = O + static_cast<size_t>(r) * d;
    for (int k = 0; k < d; ++k) row[k] *= inv;
  }
}

void flash_attention(const float* Q, const float* K, const float* V, int n, int d, int block_size,
                     float* O) {
  const float neg_inf = -std::numeric_limits<float>::infinity();
  std::vector<float> m(static_cast<size_t>(n), neg_inf), l(static_cast<size_t>(n), 0.0f);
  std::fill(O, O + static_cast<size_t>(n) * d, 0.0f);
  std::vector<float> S(static_cast<size_t>(block_size) * block_size);

  // FA-1 order: key/value block j outside, query block i inside.
  for (int j = 0; j < n; j += block_size) {
    const int Bc = std::min(block_size, n - j);
    const float* Kj = K + static_cast<size_t>(j) * d;
    const float* Vj = V + static_cast<size_t>(j) * d;
    for (int i = 0; i < n; i += block_size) {
      const int Br = std::min(block_size, n - i);
      const float* Qi = Q + static_cast<size_t>(i) * d;
      for (int r = 0; r < Br; ++r)
        for (int c = 0; c < Bc; ++c) {
          float acc = 0.0f;
          for (int k = 0; k < d; ++k) acc += Qi[static_cast<size_t>(r) * d + k] * Kj[static_cast<size_t>(c) * d + k];
          S[static_cast<size_t>(r) * Bc + c] = acc;
        }
      online_softmax_update(S.data(), Vj, Br, Bc, d, m.data() + i, l.data() + i,
                            O + static_cast<size_t>(i) * d);
    }
  }
  normalize_rows(O, l.data(), n, d);
}

}  // namespace lesson13
