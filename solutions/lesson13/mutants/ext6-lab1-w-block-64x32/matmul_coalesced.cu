// Lesson 13 lab 1: make the naive matmul's memory accesses coalesced.
//
// Blocks of 64 x 32 threads: x runs along 64 columns of C, y along 32 rows, so a
// warp is 32 consecutive columns of one row. API: lessons/lesson13/include/matmul_labs.hpp.
#include <cuda_runtime.h>

#include "matmul_labs.hpp"

namespace lesson13 {
namespace {

constexpr int kBx = 64, kBy = 32;

__global__ void matmul_coalesced_kernel(const float* A, const float* B, float* C, int M, int N, int K) {
  const int row = blockIdx.y * kBy + threadIdx.y;
  const int col = blockIdx.x * kBx + threadIdx.x;
  if (row >= M || col >= N) return;
  float acc = 0.0f;
  for (int k = 0; k < K; ++k) acc += A[size_t(row) * K + k] * B[size_t(k) * N + col];
  C[size_t(row) * N + col] = acc;
}

}  // namespace

void matmul_coalesced(const float* A, const float* B, float* C, int M, int N, int K) {
  const dim3 block(kBx, kBy);
  const dim3 grid((N + kBx - 1) / kBx, (M + kBy - 1) / kBy);
  matmul_coalesced_kernel<<<grid, block>>>(A, B, C, M, N, K);
}

}  // namespace lesson13
