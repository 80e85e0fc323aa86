// Lesson 13 lab 1: make the naive matmul's memory accesses coalesced.
//
// My version: split-k with a small row strip per thread. A block of 32 x 8 threads
// covers a 32 x 32 tile of C: lane x is column col0 + x, and thread (x, y) computes
// rows y, y + 8, y + 16, y + 24 of the tile. blockIdx.z takes a slice of kSlice
// values of k; each thread adds its partial sums into C with atomicAdd, after the
// host has zeroed C. A warp reads one A[row][k] (a broadcast) and 32 consecutive
// B[k][col], and its atomics hit 32 consecutive floats of one row of C.
// API: lessons/lesson13/include/matmul_labs.hpp.
#include <cuda_runtime.h>

#include "matmul_labs.hpp"

namespace lesson13 {
namespace {

constexpr int kTileC = 32, kRowsY = 8, kRowsPerThread = kTileC / kRowsY, kSlice = 32;

__global__ void matmul_coalesced_kernel(const float* A, const float* B, float* C, int M, int N, int K) {
  const int col = blockIdx.x * kTileC + threadIdx.x;
  const int k_begin = blockIdx.z * kSlice, k_end = min(K, k_begin + kSlice);
  if (col >= N) return;
  float acc[kRowsPerThread] = {};
  for (int k = k_begin; k < k_end; ++k) {
    const float b = B[size_t(k) * N + col];
    for (int i = 0; i < kRowsPerThread; ++i) {
      const int row = blockIdx.y * kTileC + threadIdx.y + kRowsY * i;
      if (row < M) acc[i] += A[size_t(row) * K + k] * b;
    }
  }
  for (int i = 0; i < kRowsPerThread; ++i) {
    const int row = blockIdx.y * kTileC + threadIdx.y + kRowsY * i;
    if (row < M) atomicAdd(&C[size_t(row) * N + col], acc[i]);
  }
}

}  // namespace

void matmul_coalesced(const float* A, const float* B, float* C, int M, int N, int K) {
  cudaMemset(C, 0, sizeof(float) * size_t(M) * size_t(N));
  const dim3 block(kTileC, kRowsY);
  const dim3 grid((N + kTileC - 1) / kTileC, (M + kTileC - 1) / kTileC, (K + kSlice - 1) / kSlice);
  matmul_coalesced_kernel<<<grid, block>>>(A, B, C, M, N, K);
}

}  // namespace lesson13
