// The step bench's reference (wmma_steps.cu on a GPU, emulator_check.cpp on the emulator):
// the relative (Frobenius) error of a bf16 attention output O against a double-precision
// attention of the same bf16 Q, K, V (heads x n x d), over `sample_rows` rows of each head
// (every row when sample_rows >= n). An output that is not finite counts 1e9.
#pragma once

#include <cuda_bf16.h>

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <vector>

namespace wmma_steps {

inline double attention_error(const std::vector<__nv_bfloat16>& q,
                              const std::vector<__nv_bfloat16>& k,
                              const std::vector<__nv_bfloat16>& v,
                              const std::vector<__nv_bfloat16>& o, int heads, int n, int d,
                              int sample_rows) {
  double num = 0, den = 0;
  std::vector<double> s(n);
  for (int h = 0; h < heads; ++h)
    for (int t = 0; t < std::min(sample_rows, n); ++t) {
      const int r = sample_rows >= n ? t : int((long long)t * 7919 % n);
      const size_t base = size_t(h) * n * d;
      double mx = -1e300;
      for (int j = 0; j < n; ++j) {
        double acc = 0;
        for (int c = 0; c < d; ++c)
          acc += double(__bfloat162float(q[base + size_t(r) * d + c])) *
                 __bfloat162float(k[base + size_t(j) * d + c]);
        s[j] = acc;
        mx = std::max(mx, acc);
      }
      double l = 0;
      for (int j = 0; j < n; ++j) l += (s[j] = std::exp(s[j] - mx));
      for (int c = 0; c < d; ++c) {
        double want = 0;
        for (int j = 0; j < n; ++j) want += s[j] * __bfloat162float(v[base + size_t(j) * d + c]);
        want /= l;
        const double got = __bfloat162float(o[base + size_t(r) * d + c]);
        num += std::isfinite(got) ? (got - want) * (got - want) : 1e9;
        den += want * want;
      }
    }
  return std::sqrt(num / std::max(den, 1e-30));
}

}  // namespace wmma_steps
