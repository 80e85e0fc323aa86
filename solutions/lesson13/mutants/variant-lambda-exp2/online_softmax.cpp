// Lesson 13 exercise: blocked online-softmax attention on the CPU.
// Style: terse, lambdas, and exp(x) computed as exp2(x * log2(e)).
#include "online_softmax.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

namespace lesson13 {
namespace {
constexpr float kLog2e = 1.44269504088896340736f;
inline float ex(float x) { return std::exp2(x * kLog2e); }  // == exp(x); ex(-inf) == 0
}  // namespace

void online_softmax_update(const float* S_ij, const float* V_j, int Br, int Bc, int d, float* m_i,
                           float* l_i, float* O_i) {
  std::vector<float> p(Bc);
  auto row = [&](int r) {
    const float* s = S_ij + static_cast<long>(r) * Bc;
    float* o = O_i + static_cast<long>(r) * d;
    const float mn = std::max(m_i[r], *std::max_element(s, s + Bc));
    const float a = ex(m_i[r] - mn);
    float sum = 0.0f;
    for (int c = 0; c < Bc; ++c) sum += (p[c] = ex(s[c] - mn));
    auto pv = [&](int k) {
      float t = 0.0f;
      for (int c = 0; c < Bc; ++c) t += p[c] * V_j[static_cast<long>(c) * d + k];
      return t;
    };
    for (int k = 0; k < d; ++k) o[k] = a * o[k] + pv(k);
    l_i[r] = a * l_i[r] + sum;
    m_i[r] = mn;
  };
  for (int r = 0; r < Br; ++r) row(r);
}

void normalize_rows(float* O, const float* l, int n, int d) {
  for (int r = 0; r < n; ++r)
    std::for_each(O + static_cast<long>(r) * d, O + static_cast<long>(r + 1) * d,
                  [lr = l[r]](float& x) { x /= lr; });
}

void flash_attention(const float* Q, const float* K, const float* V, int n, int d, int block_size,
                     float* O) {
  const int B = block_size;
  std::vector<float> m(n, -std::numeric_limits<float>::infinity()), l(n, 0.0f),
      S(static_cast<size_t>(B) * B);
  std::fill(O, O + static_cast<long>(n) * d, 0.0f);
  auto dot = [d](const float* a, const float* b) {
    float t = 0.0f;
    for (int k = 0; k < d; ++k) t += a[k] * b[k];
    return t;
  };
  for (int i = 0; i < n; i += B) {
    const int Br = std::min(B, n - i);
    for (int j = 0; j < n; j += B) {
      const int Bc = std::min(B, n - j);
      for (int r = 0; r < Br; ++r)
        for (int c = 0; c < Bc; ++c)
          S[r * Bc + c] = dot(Q + static_cast<long>(i + r) * d, K + static_cast<long>(j + c) * d);
      online_softmax_update(S.data(), V + static_cast<long>(j) * d, Br, Bc, d, &m[i], &l[i],
                            O + static_cast<long>(i) * d);
    }
  }
  normalize_rows(O, l.data(), n, d);
}

}  // namespace lesson13
