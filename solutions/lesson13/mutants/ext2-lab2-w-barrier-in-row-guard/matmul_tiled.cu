// Lesson 13 lab 2: shared-memory tiling, then thread coarsening.
// Fill in the BLANKs, then grade with: grader lesson13 --unit lab_tiling
//
// matmul_tiled: every thread helps stage both tiles (0 outside A and B), but only
// threads whose row lies inside C take part in the product, so the whole product
// step, barriers included, sits under if (row < M).
// matmul_coarsened is the given kernel with the register outer product filled in.
// API: lessons/lesson13/include/matmul_labs.hpp.
#include <cuda_runtime.h>

#include "course/blank.hpp"
#include "matmul_labs.hpp"

namespace lesson13 {
namespace {

constexpr int T = kTile;

__global__ void matmul_tiled_kernel(const float* A, const float* B, float* C, int M, int N, int K) {
  __shared__ float sA[T][T];
  __shared__ float sB[T][T];
  const int tx = threadIdx.x, ty = threadIdx.y;
  const int row = blockIdx.y * T + ty;
  const int col = blockIdx.x * T + tx;
  const int numTiles = (K + T - 1) / T;

  float acc = 0.0f;
  for (int t = 0; t < numTiles; ++t) {
    const int aCol = t * T + tx;  // column of A this thread stages
    const int bRow = t * T + ty;  // row of B this thread stages
    sA[ty][tx] = (row < M && aCol < K) ? A[size_t(row) * K + aCol] : 0.0f;
    sB[ty][tx] = (bRow < K && col < N) ? B[size_t(bRow) * N + col] : 0.0f;

    if (row < M) {  // rows below C have no output: skip the product
      __syncthreads();
      for (int k = 0; k < T; ++k) acc += sA[ty][k] * sB[k][tx];
      __syncthreads();
    }
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
