// Lesson 13 lab 1: make the naive matmul's memory accesses coalesced.
// Fill in the BLANKs, then grade with: grader lesson13 --unit lab_coalescing
//
// My version: blocks of 32 x 8 threads, each block still owning a 32 x 32 tile of
// C, so each thread computes four outputs of one column, in rows ty, ty + 8,
// ty + 16 and ty + 24 of the tile. threadIdx.x runs along the columns, so a warp
// (32 lanes, one ty) reads 32 consecutive floats of B and writes 32 consecutive
// floats of C; the B value it loads is kept in a register and used for all four
// rows, and each A[row][k] is one address for the whole warp (a broadcast).
// API: lessons/lesson13/include/matmul_labs.hpp.
#include <cuda_runtime.h>

#include "course/blank.hpp"
#include "matmul_labs.hpp"

namespace lesson13 {
namespace {

constexpr int kTileCols = 32;        // columns of C per block = threads along x
constexpr int kThreadRows = 8;       // threads along y
constexpr int kRowsPerThread = 4;    // 8 x 4 = 32 rows of C per block
constexpr int kTileRows = kThreadRows * kRowsPerThread;

__global__ void matmul_coalesced_kernel(const float* A, const float* B, float* C, int M, int N, int K) {
  const int col = blockIdx.x * kTileCols + threadIdx.x;
  const int first_row = blockIdx.y * kTileRows + threadIdx.y;
  if (col >= N) return;  // no barrier below, so idle columns may leave

  float acc[kRowsPerThread];
  for (int i = 0; i < kRowsPerThread; ++i) acc[i] = 0.0f;

  for (int k = 0; k < K; ++k) {
    const float b = B[size_t(k) * N + col];  // 32 consecutive floats per warp
    for (int i = 0; i < kRowsPerThread; ++i) {
      const int row = first_row + i * kThreadRows;
      if (row < M) acc[i] += A[size_t(row) * K + k] * b;  // one address per warp
    }
  }

  for (int i = 0; i < kRowsPerThread; ++i) {
    const int row = first_row + i * kThreadRows;
    if (row < M) C[size_t(row) * N + col] = acc[i];
  }
}

}  // namespace

void matmul_coalesced(const float* A, const float* B, float* C, int M, int N, int K) {
  const dim3 block(kTileCols, kThreadRows);
  const dim3 grid((N + kTileCols - 1) / kTileCols, (M + kTileRows - 1) / kTileRows);  // x along the columns of C
  matmul_coalesced_kernel<<<grid, block>>>(A, B, C, M, N, K);
}

}  // namespace lesson13
