// Lab 2, where I used __syncwarp() as "the barrier" because it is cheaper. The
// tiled kernel's blocks are 16 x 16 threads = 8 warps, and a warp reads all 16
// rows of Bs, which the other 7 warps write: __syncwarp() only orders the 32
// lanes of one warp, so a warp can read Bs before another warp has stored its
// row (and overwrite its tiles while another warp still reads them).
// The coarsened kernel is fine (real __syncthreads()).
#include <cuda_runtime.h>

#include "matmul_labs.hpp"

namespace lesson13 {
namespace {

constexpr int T = kTile;

__global__ void tiled_warp_sync(const float* A, const float* B, float* C, int M, int N, int K) {
  __shared__ float As[T][T];
  __shared__ float Bs[T][T];
  const int tx = threadIdx.x, ty = threadIdx.y;
  const int row = blockIdx.y * T + ty, col = blockIdx.x * T + tx;
  float acc = 0.0f;
  for (int k0 = 0; k0 < K; k0 += T) {
    As[ty][tx] = (row < M && k0 + tx < K) ? A[size_t(row) * K + k0 + tx] : 0.0f;
    Bs[ty][tx] = (k0 + ty < K && col < N) ? B[size_t(k0 + ty) * N + col] : 0.0f;
    __syncwarp();  // BUG: orders this warp only
    for (int k = 0; k < T; ++k) acc += As[ty][k] * Bs[k][tx];
    __syncwarp();  // BUG: same
  }
  if (row < M && col < N) C[size_t(row) * N + col] = acc;
}

constexpr int BT = kCoarseTile, F = kCoarseFactor, S = BT / F, BK = 16;

__global__ void coarsened(const float* A, const float* B, float* C, int M, int N, int K) {
  __shared__ float As[BT][BK];
  __shared__ float Bs[BK][BT];
  const int tx = threadIdx.x, ty = threadIdx.y;
  const int rb = blockIdx.y * BT, cb = blockIdx.x * BT;
  float acc[F][F] = {};
  for (int k0 = 0; k0 < K; k0 += BK) {
    for (int i = 0; i < F; ++i) {
      As[ty + S * i][tx] = (rb + ty + S * i < M && k0 + tx < K) ? A[size_t(rb + ty + S * i) * K + k0 + tx] : 0.0f;
      Bs[ty][tx + S * i] = (k0 + ty < K && cb + tx + S * i < N) ? B[size_t(k0 + ty) * N + cb + tx + S * i] : 0.0f;
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
    for (int j = 0; j < F; ++j)
      if (rb + ty + S * i < M && cb + tx + S * j < N) C[size_t(rb + ty + S * i) * N + cb + tx + S * j] = acc[i][j];
}

}  // namespace

void matmul_tiled(const float* A, const float* B, float* C, int M, int N, int K) {
  tiled_warp_sync<<<dim3((N + T - 1) / T, (M + T - 1) / T), dim3(T, T)>>>(A, B, C, M, N, K);
}

void matmul_coarsened(const float* A, const float* B, float* C, int M, int N, int K) {
  coarsened<<<dim3((N + BT - 1) / BT, (M + BT - 1) / BT), dim3(S, S)>>>(A, B, C, M, N, K);
}

}  // namespace lesson13
