// Lab 2 with padded shared tiles ([32][33]) and read-only loads (__ldg through
// __restrict__ pointers). With 32 x 32 threads a warp is one tile row, so the
// padding keeps both the row-wise stores and the column-wise reads of tB on 32
// different banks.
#include <cuda_runtime.h>

#include "matmul_labs.hpp"

namespace lesson13 {
namespace {

constexpr int W = 32;

__global__ void __launch_bounds__(W * W) tiled_padded(const float* __restrict__ A, const float* __restrict__ B,
                                                      float* __restrict__ C, int M, int N, int K) {
  __shared__ float tA[W][W + 1];
  __shared__ float tB[W][W + 1];
  const int tx = threadIdx.x, ty = threadIdx.y;
  const int row = blockIdx.y * W + ty, col = blockIdx.x * W + tx;
  float dot = 0.0f;
  for (int k0 = 0; k0 < K; k0 += W) {
    tA[ty][tx] = (row < M && k0 + tx < K) ? __ldg(&A[size_t(row) * K + k0 + tx]) : 0.0f;
    tB[ty][tx] = (k0 + ty < K && col < N) ? __ldg(&B[size_t(k0 + ty) * N + col]) : 0.0f;
    __syncthreads();
    for (int k = 0; k < W; ++k) dot += tA[ty][k] * tB[k][tx];
    __syncthreads();
  }
  if (row < M && col < N) C[size_t(row) * N + col] = dot;
}

// Coarsened, kCoarseTile x kCoarseTile outputs per block of 16 x 16 threads, each
// thread kCoarseFactor x kCoarseFactor of them (rows ty + 16 i, columns tx + 16 j).
constexpr int BT = kCoarseTile, F = kCoarseFactor, S = BT / F, BK = 16;

__global__ void coarsened_ldg(const float* __restrict__ A, const float* __restrict__ B, float* __restrict__ C,
                              int M, int N, int K) {
  __shared__ float sA[BK][BT + 1];  // A slab stored k-major: sA[k][m]
  __shared__ float sB[BK][BT];
  const int tx = threadIdx.x, ty = threadIdx.y;
  const int row0 = blockIdx.y * BT, col0 = blockIdx.x * BT;
  float acc[F][F] = {};
  for (int k0 = 0; k0 < K; k0 += BK) {
    for (int i = 0; i < F; ++i) {
      const int m = ty + S * i;  // lanes along k when reading A
      sA[tx][m] = (row0 + m < M && k0 + tx < K) ? __ldg(&A[size_t(row0 + m) * K + k0 + tx]) : 0.0f;
      const int n = tx + S * i;
      sB[ty][n] = (k0 + ty < K && col0 + n < N) ? __ldg(&B[size_t(k0 + ty) * N + col0 + n]) : 0.0f;
    }
    __syncthreads();
    for (int k = 0; k < BK; ++k) {
      float a[F], b[F];
      for (int i = 0; i < F; ++i) a[i] = sA[k][ty + S * i];
      for (int j = 0; j < F; ++j) b[j] = sB[k][tx + S * j];
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
  tiled_padded<<<dim3((N + W - 1) / W, (M + W - 1) / W), dim3(W, W)>>>(A, B, C, M, N, K);
}

void matmul_coarsened(const float* A, const float* B, float* C, int M, int N, int K) {
  coarsened_ldg<<<dim3((N + BT - 1) / BT, (M + BT - 1) / BT), dim3(S, S)>>>(A, B, C, M, N, K);
}

}  // namespace lesson13
