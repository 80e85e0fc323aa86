// Double-precision CPU reference for lesson 13's matmul tests (matmul_coalesced,
// matmul_tiled): what a correct kernel's C must approach. Header-only, in an
// unnamed namespace: private to each test file, so no submission can link to it.
#pragma once

#include <cstddef>
#include <vector>

namespace lesson13::reference {
namespace {

// C = A B in double, row-major: A is M x K, B is K x N, C is M x N.
[[maybe_unused]] std::vector<double> matmul_reference(const std::vector<float>& A,
                                                      const std::vector<float>& B, int M, int N,
                                                      int K) {
  std::vector<double> C(static_cast<size_t>(M) * N, 0.0);
  for (int i = 0; i < M; ++i)
    for (int k = 0; k < K; ++k) {
      const double a = A[static_cast<size_t>(i) * K + k];
      for (int j = 0; j < N; ++j)
        C[static_cast<size_t>(i) * N + j] += a * B[static_cast<size_t>(k) * N + j];
    }
  return C;
}

}  // namespace
}  // namespace lesson13::reference
