// Lesson 13 lab 1: make the naive matmul's memory accesses coalesced.
//
// My version stages the block's 32 rows of A in shared memory, 512 values of k at a
// time (32 x 512 floats = 64 KiB), and then every thread reads its row of A from
// there: lane x is column blockIdx.x * 32 + x, so a warp reads 32 consecutive
// B[k][col]. API: lessons/lesson13/include/matmul_labs.hpp.
#include <cuda_runtime.h>

#include "matmul_labs.hpp"

namespace lesson13 {
namespace {

constexpr int kChunk = 512;

__global__ void matmul_coalesced_kernel(const float* A, const float* B, float* C, int M, int N, int K) {
  __shared__ float As[32][kChunk];  // 65,536 bytes
  const int row = blockIdx.y * blockDim.y + threadIdx.y;
  const int col = blockIdx.x * blockDim.x + threadIdx.x;
  float acc = 0.0f;
  for (int k0 = 0; k0 < K; k0 += kChunk) {
    const int kn = min(kChunk, K - k0);
    for (int k = threadIdx.x; k < kn; k += 32)
      As[threadIdx.y][k] = row < M ? A[size_t(row) * K + k0 + k] : 0.0f;
    __syncthreads();
    if (row < M && col < N)
      for (int k = 0; k < kn; ++k) acc += As[threadIdx.y][k] * B[size_t(k0 + k) * N + col];
    __syncthreads();
  }
  if (row < M && col < N) C[size_t(row) * N + col] = acc;
}

}  // namespace

void matmul_coalesced(const float* A, const float* B, float* C, int M, int N, int K) {
  const dim3 block(32, 32);
  const dim3 grid((N + 31) / 32, (M + 31) / 32);
  matmul_coalesced_kernel<<<grid, block>>>(A, B, C, M, N, K);
}

}  // namespace lesson13
