// Lesson 13 lab 1: make the naive matmul's memory accesses coalesced.
// Fill in the BLANKs, then grade with: grader lesson13 --unit lab_coalescing
//
// Variant: blocks of 64 x 4 threads, each block a 32-row x 64-column tile of C.
// Thread (ty, tx) computes column blockIdx.x * 64 + tx for the 8 rows ty, ty + 4, ...,
// ty + 28 of the tile, so a warp (32 consecutive tx, one ty) covers 32 consecutive
// columns of one row: B[k][col] is 128 contiguous bytes, A[row][k] a broadcast, and
// each B value is loaded once per k and reused from a register for the 8 rows.
// API: lessons/lesson13/include/matmul_labs.hpp.
#include <cuda_runtime.h>

#include "course/blank.hpp"
#include "matmul_labs.hpp"

namespace lesson13 {
namespace {

constexpr int kBlockX = 64;                    // columns of C per block, one per thread
constexpr int kBlockY = 4;                     // thread rows per block
constexpr int kRowsPerThread = 8;              // outputs per thread, rows kBlockY apart
constexpr int kTileRows = kBlockY * kRowsPerThread;  // 32 rows of C per block

__global__ void matmul_coalesced_kernel(const float* A, const float* B, float* C, int M, int N, int K) {
  const int col = blockIdx.x * kBlockX + threadIdx.x;
  const int row0 = blockIdx.y * kTileRows + threadIdx.y;
  if (col >= N) return;  // no barrier in this kernel: idle columns may leave

  float acc[kRowsPerThread];
#pragma unroll
  for (int i = 0; i < kRowsPerThread; ++i) acc[i] = 0.0f;

  for (int k = 0; k < K; ++k) {
    const float b = B[size_t(k) * N + col];  // 32 consecutive floats per warp
#pragma unroll
    for (int i = 0; i < kRowsPerThread; ++i) {
      const int row = row0 + kBlockY * i;
      if (row < M) acc[i] += A[size_t(row) * K + k] * b;  // one address per warp
    }
  }

#pragma unroll
  for (int i = 0; i < kRowsPerThread; ++i) {
    const int row = row0 + kBlockY * i;
    if (row < M) C[size_t(row) * N + col] = acc[i];
  }
}

}  // namespace

void matmul_coalesced(const float* A, const float* B, float* C, int M, int N, int K) {
  const dim3 block(kBlockX, kBlockY);
  const dim3 grid((N + kBlockX - 1) / kBlockX, (M + kTileRows - 1) / kTileRows);
  matmul_coalesced_kernel<<<grid, block>>>(A, B, C, M, N, K);
}

}  // namespace lesson13
