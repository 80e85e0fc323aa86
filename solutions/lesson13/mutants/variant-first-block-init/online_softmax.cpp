// Lesson 13 exercise: blocked online-softmax attention on the CPU.
// Style: first-block initialisation. A row that has seen nothing yet takes m, l and O
// straight from its first block; only later blocks go through the rescaling rule.
#include "online_softmax.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

namespace lesson13 {
namespace {

// Sets row state from one block alone: m = block max, l = sum exp(s - m), O = P V.
void init_row(const float* s, const float* V_j, int Bc, int d, float& m, float& l, float* o) {
  float mx = s[0];
  for (int c = 1; c < Bc; ++c) mx = std::max(mx, s[c]);
  float sum = 0.0f;
  for (int k = 0; k < d; ++k) o[k] = 0.0f;
  for (int c = 0; c < Bc; ++c) {
    const float p = std::exp(s[c] - mx);
    sum += p;
    for (int k = 0; k < d; ++k) o[k] += p * V_j[static_cast<long>(c) * d + k];
  }
  m = mx;
  l = sum;
}

// Folds one more block into an already initialised row.
void fold_row(const float* s, const float* V_j, int Bc, int d, float& m, float& l, float* o) {
  float mx = m;
  for (int c = 0; c < Bc; ++c) mx = std::max(mx, s[c]);
  const float scale = std::exp(m - mx);
  l *= scale;
  for (int k = 0; k < d; ++k) o[k] *= scale;
  for (int c = 0; c < Bc; ++c) {
    const float p = std::exp(s[c] - mx);
    l += p;
    for (int k = 0; k < d; ++k) o[k] += p * V_j[static_cast<long>(c) * d + k];
  }
  m = mx;
}

void block_step(const float* S_ij, const float* V_j, int Br, int Bc, int d, float* m_i, float* l_i,
                float* O_i, bool first) {
  for (int r = 0; r < Br; ++r) {
    const float* s = S_ij + static_cast<long>(r) * Bc;
    float* o = O_i + static_cast<long>(r) * d;
    if (first)
      init_row(s, V_j, Bc, d, m_i[r], l_i[r], o);
    else
      fold_row(s, V_j, Bc, d, m_i[r], l_i[r], o);
  }
}

}  // namespace

void online_softmax_update(const float* S_ij, const float* V_j, int Br, int Bc, int d, float* m_i,
                           float* l_i, float* O_i) {
  for (int r = 0; r < Br; ++r) {
    const float* s = S_ij + static_cast<long>(r) * Bc;
    float* o = O_i + static_cast<long>(r) * d;
    // The documented initial state is m = -inf, l = 0, O = 0: nothing seen yet.
    if (m_i[r] == -std::numeric_limits<float>::infinity())
      init_row(s, V_j, Bc, d, m_i[r], l_i[r], o);
    else
      fold_row(s, V_j, Bc, d, m_i[r], l_i[r], o);
  }
}

void normalize_rows(float* O, const float* l, int n, int d) {
  for (int r = 0; r < n; ++r) {
    const float inv_l = l[r];
    for (int k = 0; k < d; ++k) O[static_cast<long>(r) * d + k] /= inv_l;
  }
}

void flash_attention(const float* Q, const float* K, const float* V, int n, int d, int block_size,
                     float* O) {
  // No -inf / 0 start: the first key block (j = 0) writes m, l and every row of O.
  std::vector<float> m(n), l(n);
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
      block_step(S.data(), V + static_cast<long>(j) * d, Br, Bc, d, &m[i], &l[i],
                 O + static_cast<long>(i) * d, j == 0);
    }
  }
  normalize_rows(O, l.data(), n, d);
}

}  // namespace lesson13
