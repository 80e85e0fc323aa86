// Double-precision references for lesson 13 (see attention_reference.hpp).
#include "attention_reference.hpp"

#include <algorithm>
#include <cmath>

namespace lesson13::reference {
namespace {

double dot(const std::vector<float>& A, int a, const std::vector<float>& B, int b, int d) {
  double s = 0.0;
  for (int k = 0; k < d; ++k)
    s += static_cast<double>(A[static_cast<size_t>(a) * d + k]) * B[static_cast<size_t>(b) * d + k];
  return s;
}

}  // namespace

std::vector<double> standard_attention(const std::vector<float>& Q, const std::vector<float>& K,
                                       const std::vector<float>& V, int n, int d) {
  std::vector<double> O(static_cast<size_t>(n) * d, 0.0);
  std::vector<double> S(n);
  for (int r = 0; r < n; ++r) {
    for (int c = 0; c < n; ++c) S[c] = dot(Q, r, K, c, d);
    const double m = *std::max_element(S.begin(), S.end());
    double l = 0.0;
    for (int c = 0; c < n; ++c) l += (S[c] = std::exp(S[c] - m));
    for (int c = 0; c < n; ++c)
      for (int k = 0; k < d; ++k)
        O[static_cast<size_t>(r) * d + k] += S[c] / l * V[static_cast<size_t>(c) * d + k];
  }
  return O;
}

std::vector<double> blockwise_softmax_concat(const std::vector<float>& Q,
                                             const std::vector<float>& K,
                                             const std::vector<float>& V, int n, int d,
                                             int block_size, bool average) {
  std::vector<double> O(static_cast<size_t>(n) * d, 0.0);
  const int blocks = (n + block_size - 1) / block_size;
  for (int r = 0; r < n; ++r) {
    for (int j = 0; j < n; j += block_size) {
      const int Bc = std::min(block_size, n - j);
      std::vector<double> p(Bc);
      for (int c = 0; c < Bc; ++c) p[c] = dot(Q, r, K, j + c, d);
      const double m = *std::max_element(p.begin(), p.end());
      double l = 0.0;
      for (auto& x : p) l += (x = std::exp(x - m));
      for (int c = 0; c < Bc; ++c)
        for (int k = 0; k < d; ++k)
          O[static_cast<size_t>(r) * d + k] += p[c] / l * V[static_cast<size_t>(j + c) * d + k];
    }
    if (average)
      for (int k = 0; k < d; ++k) O[static_cast<size_t>(r) * d + k] /= blocks;
  }
  return O;
}

row_statistics row_stats(const std::vector<double>& scores, const std::vector<float>& V, int d) {
  row_statistics st{*std::max_element(scores.begin(), scores.end()), 0.0,
                    std::vector<double>(d, 0.0)};
  for (size_t c = 0; c < scores.size(); ++c) {
    const double w = std::exp(scores[c] - st.m);
    st.l += w;
    for (int k = 0; k < d; ++k) st.O[k] += w * V[c * d + k];
  }
  return st;
}

}  // namespace lesson13::reference
