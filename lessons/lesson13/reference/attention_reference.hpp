// Double-precision CPU references for lesson 13's tests. Independent of the
// exercise: they materialise the full score matrix, as standard attention does.
// Header-only, in an unnamed namespace: each test file gets its own private copy
// and no symbol reaches the link, so a submission cannot call the course's
// reference instead of computing attention itself (it would not link).
#pragma once

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <vector>

namespace lesson13::reference {
namespace {

[[maybe_unused]] double dot(const std::vector<float>& A, int a, const std::vector<float>& B, int b,
                            int d) {
  double s = 0.0;
  for (int k = 0; k < d; ++k)
    s += static_cast<double>(A[static_cast<size_t>(a) * d + k]) * B[static_cast<size_t>(b) * d + k];
  return s;
}

// softmax(Q K^T) V over the first n_keys keys, plus what the tests' float error
// bounds are measured against, all in double. Q: n x d; K, V: n_keys rows of d.
//   O[r][k]  the attention output
//   M[r][k]  sum_c P[r][c] |V[c][k]|: the magnitude O[r][k] is summed from
//   A[r]     max_c sum_k |Q[r][k] K[c][k]|: the magnitude row r's dot products carry
struct attention_result {
  std::vector<double> O, M, A;
};

// kMagnitudes false: O alone (M and A stay empty), with the same bits, at about half the cost.
template <bool kMagnitudes>
attention_result attention_of(const std::vector<float>& Q, const std::vector<float>& K,
                              const std::vector<float>& V, int n, int d, int n_keys) {
  attention_result out{std::vector<double>(static_cast<size_t>(n) * d, 0.0),
                       std::vector<double>(kMagnitudes ? static_cast<size_t>(n) * d : 0, 0.0),
                       std::vector<double>(kMagnitudes ? n : 0, 0.0)};
  std::vector<double> S(n_keys);
  // Four keys at a time, in both loops: each sum still adds its terms in the order one key
  // at a time would (the same bits), but four of them are in flight at once instead of each
  // add waiting for the last (this is most of a C++ re-grade's reference time).
  for (int r = 0; r < n; ++r) {
    const float* q = &Q[static_cast<size_t>(r) * d];
    double biggest = 0.0;
    int c = 0;
    for (; c + 4 <= n_keys; c += 4) {
      const float* k0 = &K[static_cast<size_t>(c) * d];
      const float *k1 = k0 + d, *k2 = k1 + d, *k3 = k2 + d;
      double s0 = 0.0, s1 = 0.0, s2 = 0.0, s3 = 0.0, a0 = 0.0, a1 = 0.0, a2 = 0.0, a3 = 0.0;
      for (int k = 0; k < d; ++k) {
        const double qk = q[k], t0 = qk * k0[k], t1 = qk * k1[k], t2 = qk * k2[k], t3 = qk * k3[k];
        s0 += t0, s1 += t1, s2 += t2, s3 += t3;
        if constexpr (kMagnitudes)
          a0 += std::abs(t0), a1 += std::abs(t1), a2 += std::abs(t2), a3 += std::abs(t3);
      }
      S[c] = s0, S[c + 1] = s1, S[c + 2] = s2, S[c + 3] = s3;
      if constexpr (kMagnitudes)
        biggest = std::max(std::max(std::max(std::max(biggest, a0), a1), a2), a3);
    }
    for (; c < n_keys; ++c) {
      const float* kc = &K[static_cast<size_t>(c) * d];
      double s = 0.0, magnitude = 0.0;
      for (int k = 0; k < d; ++k) {
        const double term = static_cast<double>(q[k]) * kc[k];
        s += term;
        if constexpr (kMagnitudes) magnitude += std::abs(term);
      }
      S[c] = s;
      if constexpr (kMagnitudes) biggest = std::max(biggest, magnitude);
    }
    if constexpr (kMagnitudes) out.A[r] = biggest;
    if (n_keys == 0) continue;
    const double m = *std::max_element(S.begin(), S.end());
    double l = 0.0;
    for (c = 0; c < n_keys; ++c) l += (S[c] = std::exp(S[c] - m));
    double* o = &out.O[static_cast<size_t>(r) * d];
    double* mag = kMagnitudes ? &out.M[static_cast<size_t>(r) * d] : nullptr;
    for (c = 0; c + 4 <= n_keys; c += 4) {
      const double p0 = S[c] / l, p1 = S[c + 1] / l, p2 = S[c + 2] / l, p3 = S[c + 3] / l;
      const float* v0 = &V[static_cast<size_t>(c) * d];
      const float *v1 = v0 + d, *v2 = v1 + d, *v3 = v2 + d;
      for (int k = 0; k < d; ++k) {
        o[k] = o[k] + p0 * v0[k] + p1 * v1[k] + p2 * v2[k] + p3 * v3[k];
        if constexpr (kMagnitudes)
          mag[k] = mag[k] + p0 * std::abs(static_cast<double>(v0[k])) +
                   p1 * std::abs(static_cast<double>(v1[k])) +
                   p2 * std::abs(static_cast<double>(v2[k])) +
                   p3 * std::abs(static_cast<double>(v3[k]));
      }
    }
    for (; c < n_keys; ++c) {
      const double p = S[c] / l;
      const float* v = &V[static_cast<size_t>(c) * d];
      for (int k = 0; k < d; ++k) {
        o[k] += p * v[k];
        if constexpr (kMagnitudes) mag[k] += p * std::abs(static_cast<double>(v[k]));
      }
    }
  }
  return out;
}

[[maybe_unused]] attention_result attention_with_magnitudes(const std::vector<float>& Q,
                                                            const std::vector<float>& K,
                                                            const std::vector<float>& V, int n,
                                                            int d, int n_keys) {
  return attention_of<true>(Q, K, V, n, d, n_keys);
}

// softmax(Q K^T) V with the row max subtracted, all in double. Q, K, V: n x d.
[[maybe_unused]] std::vector<double> standard_attention(const std::vector<float>& Q,
                                                        const std::vector<float>& K,
                                                        const std::vector<float>& V, int n, int d) {
  return attention_of<false>(Q, K, V, n, d, n).O;
}

// The misconception the `blockwise-softmax-concat` veto detects: softmax taken
// inside each key block on its own, the blocks' P concatenated, times V. With
// `average`, each row is then divided by the number of key blocks (what follows
// if the running sum counts blocks instead of weights).
[[maybe_unused]] std::vector<double> blockwise_softmax_concat(const std::vector<float>& Q,
                                                              const std::vector<float>& K,
                                                              const std::vector<float>& V, int n,
                                                              int d, int block_size, bool average) {
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

// Whole-row softmax statistics of one query row, straight from its scores:
//   m = max_c s[c],  l = sum_c exp(s[c] - m),  O[k] = sum_c exp(s[c] - m) V[c][k],
// and O_abs[k] = sum_c exp(s[c] - m) |V[c][k]|, the magnitude O[k] is summed from.
struct row_statistics {
  double m;
  double l;
  std::vector<double> O;
  std::vector<double> O_abs;
};

[[maybe_unused]] row_statistics row_stats(const std::vector<double>& scores,
                                          const std::vector<float>& V, int d) {
  row_statistics st{*std::max_element(scores.begin(), scores.end()), 0.0,
                    std::vector<double>(d, 0.0), std::vector<double>(d, 0.0)};
  for (size_t c = 0; c < scores.size(); ++c) {
    const double w = std::exp(scores[c] - st.m);
    st.l += w;
    for (int k = 0; k < d; ++k) {
      st.O[k] += w * V[c * d + k];
      st.O_abs[k] += w * std::abs(static_cast<double>(V[c * d + k]));
    }
  }
  return st;
}

}  // namespace
}  // namespace lesson13::reference
