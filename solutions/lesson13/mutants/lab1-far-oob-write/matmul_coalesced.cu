// Lab 1 with a leftover "debug copy": besides C, every thread also stores its
// result at a mirror offset that I meant to point into a scratch buffer, but the
// pointer arithmetic went the wrong way: C - 4 Mi floats, 16 MiB below the output.
// The values in C are right; the second store is far out of bounds.
#include <cuda_runtime.h>

#include "matmul_labs.hpp"

namespace lesson13 {
namespace {

constexpr long long kMirror = 4LL * 1024 * 1024;  // floats: 16 MiB

__global__ void matmul_with_mirror(const float* A, const float* B, float* C, int M, int N, int K) {
  const int row = blockIdx.y * blockDim.y + threadIdx.y;
  const int col = blockIdx.x * blockDim.x + threadIdx.x;
  if (row >= M || col >= N) return;
  float acc = 0.0f;
  for (int k = 0; k < K; ++k) acc += A[size_t(row) * K + k] * B[size_t(k) * N + col];
  C[size_t(row) * N + col] = acc;
  float* mirror = C - kMirror;
  mirror[size_t(row) * N + col] = acc;  // 16 MiB below C: no allocation there
}

}  // namespace

void matmul_coalesced(const float* A, const float* B, float* C, int M, int N, int K) {
  const dim3 block(32, 32);
  const dim3 grid((N + 31) / 32, (M + 31) / 32);
  matmul_with_mirror<<<grid, block>>>(A, B, C, M, N, K);
}

}  // namespace lesson13
