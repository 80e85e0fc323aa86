// The naive matmul of lesson 13 lab 1, given: one thread per output, with
// threadIdx.x walking down the rows of C. A warp's 32 threads then read 32
// different rows of A (K floats apart) and write 32 different rows of C.
#include <cuda_runtime.h>

#include "matmul_labs.hpp"

namespace lesson13 {
namespace {

__global__ void matmul_naive_kernel(const float* A, const float* B, float* C, int M, int N, int K) {
  const int row = blockIdx.x * blockDim.x + threadIdx.x;
  const int col = blockIdx.y * blockDim.y + threadIdx.y;
  if (row >= M || col >= N) return;
  float acc = 0.0f;
  for (int k = 0; k < K; ++k) acc += A[row * K + k] * B[k * N + col];
  C[row * N + col] = acc;
}

}  // namespace

void matmul_naive(const float* A, const float* B, float* C, int M, int N, int K) {
  const dim3 block(32, 32);
  const dim3 grid((M + 31) / 32, (N + 31) / 32);
  matmul_naive_kernel<<<grid, block>>>(A, B, C, M, N, K);
}

}  // namespace lesson13
