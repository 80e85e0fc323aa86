// Lesson 13 lab 2: shared-memory tiling, then thread coarsening.
//
// matmul_tiled: each block computes a kTile x kTile tile of C. For every step
// along K it stages one tile of A and one of B in shared memory, and every thread
// reads them kTile times, so each element comes from global memory once per block
// instead of once per thread.
// matmul_coarsened: each thread computes kCoarseFactor x kCoarseFactor outputs,
// keeping its row of A and column of B values in registers; a shared-memory load
// then feeds 4 multiply-adds instead of 1 (fewer shared-memory instructions: the
// MIO-throttle stall of the notes). API: lessons/lesson13/include/matmul_labs.hpp.
#include <cuda_runtime.h>

#include "course/blank.hpp"
#include "matmul_labs.hpp"

namespace lesson13 {
namespace {

constexpr int T = kTile;

__global__ void matmul_tiled_kernel(const float* A, const float* B, float* C, int M, int N, int K) {
  __shared__ float As[T][T];
  __shared__ float Bs[T][T];
  const int tx = threadIdx.x, ty = threadIdx.y;
  const int row = blockIdx.y * T + ty, col = blockIdx.x * T + tx;
  float acc = 0.0f;
  // A warm start: the first tile of A staged before the loop, which stages it again.
  As[ty][tx] = (row < M && tx < K) ? A[size_t(row) * K + tx] : 0.0f;
  for (int k0 = 0; k0 < K; k0 += T) {
    // 1) Each thread stages one element of each tile; outside the matrices, 0.
    As[ty][tx] = (row < M && k0 + tx < K) ? A[size_t(row) * K + k0 + tx] : 0.0f;
    Bs[ty][tx] = (k0 + ty < K && col < N) ? B[size_t(k0 + ty) * N + col] : 0.0f;

    // 2) From here on, threads read elements of the tiles that other threads wrote.
    __syncthreads();

    // 3) This thread's share of the tile product.
    for (int k = 0; k < T; ++k) acc += As[ty][k] * Bs[k][tx];

    // 4) The next iteration stores the next tile into the same As and Bs.
    __syncthreads();
  }
  if (row < M && col < N) C[size_t(row) * N + col] = acc;
}

constexpr int BT = kCoarseTile, F = kCoarseFactor, BK = 16, S = BT / F;  // S x S = 16 x 16 threads

// Thread (ty, tx) computes C rows by*BT + ty + S*i and columns bx*BT + tx + S*j
// (i, j < F): strided by S, so a warp's global loads and stores stay consecutive
// and its shared-memory reads in the inner loop are conflict-free broadcasts.
__global__ void matmul_coarsened_kernel(const float* A, const float* B, float* C, int M, int N, int K) {
  __shared__ float As[BT][BK];
  __shared__ float Bs[BK][BT];
  const int tx = threadIdx.x, ty = threadIdx.y;
  const int row0 = blockIdx.y * BT, col0 = blockIdx.x * BT;
  float acc[F][F] = {};
  for (int k0 = 0; k0 < K; k0 += BK) {
    for (int i = 0; i < F; ++i) {
      const int r = row0 + ty + S * i, c = col0 + tx + S * i;
      As[ty + S * i][tx] = (r < M && k0 + tx < K) ? A[size_t(r) * K + k0 + tx] : 0.0f;
      Bs[ty][tx + S * i] = (k0 + ty < K && c < N) ? B[size_t(k0 + ty) * N + c] : 0.0f;
    }
    __syncthreads();
    for (int k = 0; k < BK; ++k) {
      float a[F], b[F];
      for (int i = 0; i < F; ++i) a[i] = As[ty + S * i][k];
      for (int j = 0; j < F; ++j) b[j] = Bs[k][tx + S * j];
      // 5) This k's term of each of the thread's F x F outputs, from registers only.
      for (int i = 0; i < F; ++i)
        for (int j = 0; j < F; ++j) acc[i][j] += a[i] * b[j];
    }
    __syncthreads();
  }
  for (int i = 0; i < F; ++i)
    for (int j = 0; j < F; ++j) {
      const int r = row0 + ty + S * i, c = col0 + tx + S * j;
      if (r < M && c < N) C[size_t(r) * N + c] = acc[i][j];
    }
}

}  // namespace

void matmul_tiled(const float* A, const float* B, float* C, int M, int N, int K) {
  matmul_tiled_kernel<<<dim3((N + T - 1) / T, (M + T - 1) / T), dim3(T, T)>>>(A, B, C, M, N, K);
}

void matmul_coarsened(const float* A, const float* B, float* C, int M, int N, int K) {
  matmul_coarsened_kernel<<<dim3((N + BT - 1) / BT, (M + BT - 1) / BT), dim3(S, S)>>>(A, B, C, M, N, K);
}

}  // namespace lesson13
