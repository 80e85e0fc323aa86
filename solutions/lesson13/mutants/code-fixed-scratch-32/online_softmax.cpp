// Online softmax, C style: fixed-size scratch on the stack, sized for "the usual" 32-wide block.
#include "online_softmax.hpp"

#include <cmath>
#include <cstring>

namespace lesson13 {

namespace {
constexpr int kMaxBlock = 32;  // blocks are 32 wide on the GPU, so 32 is enough here too
}

void online_softmax_update(const float* S_ij, const float* V_j, int Br, int Bc, int d, float* m_i,
                           float* l_i, float* O_i) {
  float p[kMaxBlock];
  for (int r = 0; r < Br; ++r) {
    const float* s = S_ij + r * Bc;
    float mx = s[0];
    for (int c = 1; c < Bc; ++c)
      if (s[c] > mx) mx = s[c];
    const float m_new = m_i[r] > mx ? m_i[r] : mx;
    const float alpha = expf(m_i[r] - m_new);
    float sum = 0.0f;
    for (int c = 0; c < Bc; ++c) {
      p[c] = expf(s[c] - m_new);
      sum += p[c];
    }
    l_i[r] = l_i[r] * alpha + sum;
    for (int k = 0; k < d; ++k) {
      float acc = 0.0f;
      for (int c = 0; c < Bc; ++c) acc += p[c] * V_j[c * d + k];
      O_i[r * d + k] = O_i[r * d + k] * alpha + acc;
    }
    m_i[r] = m_new;
  }
}

void normalize_rows(float* O, const float* l, int n, int d) {
  for (int r = 0; r < n; ++r) {
    const float inv = 1.0f / l[r];
    for (int k = 0; k < d; ++k) O[r * d + k] *= inv;
  }
}

void flash_attention(const float* Q, const float* K, const float* V, int n, int d, int block_size,
                     float* O) {
  float* m = new float[n];
  float* l = new float[n];
  float* S = new float[block_size * block_size];
  for (int r = 0; r < n; ++r) {
    m[r] = -INFINITY;
    l[r] = 0.0f;
  }
  std::memset(O, 0, sizeof(float) * n * d);
  for (int i = 0; i < n; i += block_size) {
    const int Br = n - i < block_size ? n - i : block_size;
    for (int j = 0; j < n; j += block_size) {
      const int Bc = n - j < block_size ? n - j : block_size;
      for (int r = 0; r < Br; ++r)
        for (int c = 0; c < Bc; ++c) {
          float dot = 0.0f;
          for (int k = 0; k < d; ++k) dot += Q[(i + r) * d + k] * K[(j + c) * d + k];
          S[r * Bc + c] = dot;
        }
      online_softmax_update(S, V + j * d, Br, Bc, d, m + i, l + i, O + i * d);
    }
  }
  normalize_rows(O, l, n, d);
  delete[] S;
  delete[] l;
  delete[] m;
}

}  // namespace lesson13
