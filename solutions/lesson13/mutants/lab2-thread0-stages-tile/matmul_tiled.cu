// Lab 2 where thread (0, 0) of each block stages the whole A and B tiles by itself
// ("simpler than working out who loads what") and then everyone multiplies. There
// is no barrier between thread 0's stores and the other threads' reads, so the
// other 255 threads read the tiles while thread 0 is still filling them (stale or
// uninitialised values). Only the end-of-step barrier is there.
#include <cuda_runtime.h>

#include "matmul_labs.hpp"

namespace lesson13 {
namespace {

constexpr int T = kTile;

__global__ void tiled_one_loader(const float* A, const float* B, float* C, int M, int N, int K) {
  __shared__ float As[T][T];
  __shared__ float Bs[T][T];
  const int tx = threadIdx.x, ty = threadIdx.y;
  const int rowBlock = blockIdx.y * T, colBlock = blockIdx.x * T;
  float acc = 0.0f;
  for (int k0 = 0; k0 < K; k0 += T) {
    if (tx == 0 && ty == 0) {
      for (int r = 0; r < T; ++r)
        for (int c = 0; c < T; ++c) {
          As[r][c] = (rowBlock + r < M && k0 + c < K) ? A[size_t(rowBlock + r) * K + k0 + c] : 0.0f;
          Bs[r][c] = (k0 + r < K && colBlock + c < N) ? B[size_t(k0 + r) * N + colBlock + c] : 0.0f;
        }
    }
    // (missing: __syncthreads() here)
    for (int k = 0; k < T; ++k) acc += As[ty][k] * Bs[k][tx];
    __syncthreads();
  }
  const int row = rowBlock + ty, col = colBlock + tx;
  if (row < M && col < N) C[size_t(row) * N + col] = acc;
}

// Coarsened (correct): 16 x 16 threads, 4 x 4 outputs each, strided by 16.
constexpr int BT = kCoarseTile, F = kCoarseFactor, S = BT / F, BK = 16;

__global__ void coarsened(const float* A, const float* B, float* C, int M, int N, int K) {
  __shared__ float As[BT][BK];
  __shared__ float Bs[BK][BT];
  const int tx = threadIdx.x, ty = threadIdx.y;
  const int m0 = blockIdx.y * BT, n0 = blockIdx.x * BT;
  float acc[F][F] = {};
  for (int k0 = 0; k0 < K; k0 += BK) {
    for (int i = 0; i < F; ++i) {
      const int m = m0 + ty + S * i, n = n0 + tx + S * i;
      As[ty + S * i][tx] = (m < M && k0 + tx < K) ? A[size_t(m) * K + k0 + tx] : 0.0f;
      Bs[ty][tx + S * i] = (k0 + ty < K && n < N) ? B[size_t(k0 + ty) * N + n] : 0.0f;
    }
    __syncthreads();
    for (int k = 0; k < BK; ++k) {
      float a[F], b[F];
      for (int i = 0; i < F; ++i) a[i] = As[ty + S * i][k];
      for (int j = 0; j < F; ++j) b[j] = Bs[k][tx + S * j];
      for (int i = 0; i < F; ++i)
        for (int j = 0; j < F; ++j) acc[i][j] += a[i] * b[j];
    }
    __syncthreads();
  }
  for (int i = 0; i < F; ++i)
    for (int j = 0; j < F; ++j) {
      const int m = m0 + ty + S * i, n = n0 + tx + S * j;
      if (m < M && n < N) C[size_t(m) * N + n] = acc[i][j];
    }
}

}  // namespace

void matmul_tiled(const float* A, const float* B, float* C, int M, int N, int K) {
  tiled_one_loader<<<dim3((N + T - 1) / T, (M + T - 1) / T), dim3(T, T)>>>(A, B, C, M, N, K);
}

void matmul_coarsened(const float* A, const float* B, float* C, int M, int N, int K) {
  coarsened<<<dim3((N + BT - 1) / BT, (M + BT - 1) / BT), dim3(S, S)>>>(A, B, C, M, N, K);
}

}  // namespace lesson13
