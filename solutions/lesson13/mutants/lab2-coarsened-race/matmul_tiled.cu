// Lab 2: the tiled kernel is right; in the coarsened kernel I dropped the barrier
// at the end of each k-slab ("the loads are already fenced by the first one").
// A thread that finishes its 16 x 4 x 4 products early goes on to store the next
// slab into As/Bs while other warps of the block still read the current slab.
#include <cuda_runtime.h>

#include "matmul_labs.hpp"

namespace lesson13 {
namespace {

constexpr int T = kTile;

__global__ void tiled(const float* A, const float* B, float* C, int M, int N, int K) {
  __shared__ float sA[T][T];
  __shared__ float sB[T][T];
  const int x = threadIdx.x, y = threadIdx.y;
  const int row = blockIdx.y * T + y, col = blockIdx.x * T + x;
  float s = 0.0f;
  for (int k0 = 0; k0 < K; k0 += T) {
    sA[y][x] = (row < M && k0 + x < K) ? A[size_t(row) * K + k0 + x] : 0.0f;
    sB[y][x] = (k0 + y < K && col < N) ? B[size_t(k0 + y) * N + col] : 0.0f;
    __syncthreads();
    for (int k = 0; k < T; ++k) s += sA[y][k] * sB[k][x];
    __syncthreads();
  }
  if (row < M && col < N) C[size_t(row) * N + col] = s;
}

constexpr int BT = kCoarseTile, F = kCoarseFactor, S = BT / F, BK = 16;

__global__ void coarsened_racy(const float* A, const float* B, float* C, int M, int N, int K) {
  __shared__ float As[BT][BK];
  __shared__ float Bs[BK][BT];
  const int x = threadIdx.x, y = threadIdx.y;
  const int row0 = blockIdx.y * BT, col0 = blockIdx.x * BT;
  float acc[F][F] = {};
  for (int k0 = 0; k0 < K; k0 += BK) {
    for (int i = 0; i < F; ++i) {
      const int r = row0 + y + S * i, c = col0 + x + S * i;
      As[y + S * i][x] = (r < M && k0 + x < K) ? A[size_t(r) * K + k0 + x] : 0.0f;
      Bs[y][x + S * i] = (k0 + y < K && c < N) ? B[size_t(k0 + y) * N + c] : 0.0f;
    }
    __syncthreads();
    for (int k = 0; k < BK; ++k) {
      float a[F], b[F];
      for (int i = 0; i < F; ++i) a[i] = As[y + S * i][k];
      for (int j = 0; j < F; ++j) b[j] = Bs[k][x + S * j];
      for (int i = 0; i < F; ++i)
        for (int j = 0; j < F; ++j) acc[i][j] += a[i] * b[j];
    }
    // (missing: __syncthreads() before the next slab is stored)
  }
  for (int i = 0; i < F; ++i)
    for (int j = 0; j < F; ++j) {
      const int r = row0 + y + S * i, c = col0 + x + S * j;
      if (r < M && c < N) C[size_t(r) * N + c] = acc[i][j];
    }
}

}  // namespace

void matmul_tiled(const float* A, const float* B, float* C, int M, int N, int K) {
  tiled<<<dim3((N + T - 1) / T, (M + T - 1) / T), dim3(T, T)>>>(A, B, C, M, N, K);
}

void matmul_coarsened(const float* A, const float* B, float* C, int M, int N, int K) {
  coarsened_racy<<<dim3((N + BT - 1) / BT, (M + BT - 1) / BT), dim3(S, S)>>>(A, B, C, M, N, K);
}

}  // namespace lesson13
