// Double-precision matmul reference for lesson 13 (see matmul_reference.hpp).
#include "matmul_reference.hpp"

#include <cstddef>

namespace lesson13::reference {

std::vector<double> matmul_reference(const std::vector<float>& A, const std::vector<float>& B,
                                     int M, int N, int K) {
  std::vector<double> C(static_cast<size_t>(M) * N, 0.0);
  for (int i = 0; i < M; ++i)
    for (int k = 0; k < K; ++k) {
      const double a = A[static_cast<size_t>(i) * K + k];
      for (int j = 0; j < N; ++j)
        C[static_cast<size_t>(i) * N + j] += a * B[static_cast<size_t>(k) * N + j];
    }
  return C;
}

}  // namespace lesson13::reference
