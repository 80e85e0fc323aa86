// Online softmax with a per-row state struct. The reference point for exp is taken from the
// first key block a row sees and then kept (so earlier weights never need rescaling).
#include "online_softmax.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

namespace lesson13 {
namespace {

struct row_state {
  float& m;
  float& l;
  float* o;
};

void absorb(row_state st, const float* s, const float* V_j, int Bc, int d) {
  if (std::isinf(st.m)) st.m = *std::max_element(s, s + Bc);  // first block fixes the reference
  for (int c = 0; c < Bc; ++c) {
    const float w = std::exp(s[c] - st.m);
    st.l += w;
    for (int k = 0; k < d; ++k) st.o[k] += w * V_j[c * d + k];
  }
}

}  // namespace

void online_softmax_update(const float* S_ij, const float* V_j, int Br, int Bc, int d, float* m_i,
                           float* l_i, float* O_i) {
  for (int r = 0; r < Br; ++r) absorb({m_i[r], l_i[r], O_i + r * d}, S_ij + r * Bc, V_j, Bc, d);
}

void normalize_rows(float* O, const float* l, int n, int d) {
  for (int r = 0; r < n; ++r)
    std::transform(O + r * d, O + (r + 1) * d, O + r * d, [&](float x) { return x / l[r]; });
}

void flash_attention(const float* Q, const float* K, const float* V, int n, int d, int block_size,
                     float* O) {
  std::vector<float> m(n, -std::numeric_limits<float>::infinity()), l(n, 0.0f);
  std::fill(O, O + static_cast<long>(n) * d, 0.0f);
  std::vector<float> S(static_cast<size_t>(block_size) * block_size);
  for (int i = 0; i < n; i += block_size) {
    const int Br = std::min(block_size, n - i);
    for (int j = 0; j < n; j += block_size) {
      const int Bc = std::min(block_size, n - j);
      for (int r = 0; r < Br; ++r)
        for (int c = 0; c < Bc; ++c) {
          float acc = 0.0f;
          for (int k = 0; k < d; ++k) acc += Q[(i + r) * d + k] * K[(j + c) * d + k];
          S[r * Bc + c] = acc;
        }
      online_softmax_update(S.data(), V + j * d, Br, Bc, d, &m[i], &l[i], O + i * d);
    }
  }
  normalize_rows(O, l.data(), n, d);
}

}  // namespace lesson13
