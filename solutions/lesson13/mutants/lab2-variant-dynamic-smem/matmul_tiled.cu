// Lab 2 with dynamic shared memory: the tile size is a run-time choice of the host
// code, the kernels get one `extern __shared__` buffer and carve it into the A and
// B tiles; the launch passes its size as the third <<<>>> argument.
#include <cuda_runtime.h>

#include "matmul_labs.hpp"

namespace lesson13 {
namespace {

// One tile of C per block; blockDim = (tile, tile).
__global__ void tiled_dyn(const float* A, const float* B, float* C, int M, int N, int K) {
  extern __shared__ float smem[];
  const int t = blockDim.x;
  float* tileA = smem;          // t x t, row-major
  float* tileB = smem + t * t;  // t x t, row-major
  const int tx = threadIdx.x, ty = threadIdx.y;
  const int i = blockIdx.y * t + ty;  // row of C
  const int j = blockIdx.x * t + tx;  // column of C
  float v = 0.0f;
  for (int p = 0; p < K; p += t) {
    tileA[ty * t + tx] = (i < M && p + tx < K) ? A[size_t(i) * K + p + tx] : 0.0f;
    tileB[ty * t + tx] = (p + ty < K && j < N) ? B[size_t(p + ty) * N + j] : 0.0f;
    __syncthreads();
    for (int q = 0; q < t; ++q) v += tileA[ty * t + q] * tileB[q * t + tx];
    __syncthreads();
  }
  if (i < M && j < N) C[size_t(i) * N + j] = v;
}

// Coarsened: a (16 * 4) x (16 * 4) tile of C per block of 16 x 16 threads. Thread
// (ty, tx) owns rows ty + 16 a and columns tx + 16 b (a, b < 4). The k-slab depth
// is 8; the shared buffer holds an A slab [64][8] and a B slab [8][64].
constexpr int S = 16, F = 4, BT = S * F, KD = 8;

__global__ void coarse_dyn(const float* A, const float* B, float* C, int M, int N, int K) {
  extern __shared__ float smem[];
  float* slabA = smem;            // [BT][KD]
  float* slabB = smem + BT * KD;  // [KD][BT]
  const int tx = threadIdx.x, ty = threadIdx.y, tid = ty * S + tx;
  const int rowBase = blockIdx.y * BT, colBase = blockIdx.x * BT;
  float out[F][F];
  for (int a = 0; a < F; ++a)
    for (int b = 0; b < F; ++b) out[a][b] = 0.0f;
  for (int p = 0; p < K; p += KD) {
    for (int e = tid; e < BT * KD; e += S * S) {
      const int m = e / KD, k = e % KD;
      slabA[m * KD + k] = (rowBase + m < M && p + k < K) ? A[size_t(rowBase + m) * K + p + k] : 0.0f;
      const int kk = e / BT, n = e % BT;
      slabB[kk * BT + n] = (p + kk < K && colBase + n < N) ? B[size_t(p + kk) * N + colBase + n] : 0.0f;
    }
    __syncthreads();
    for (int k = 0; k < KD; ++k) {
      float av[F], bv[F];
      for (int a = 0; a < F; ++a) av[a] = slabA[(ty + S * a) * KD + k];
      for (int b = 0; b < F; ++b) bv[b] = slabB[k * BT + tx + S * b];
      for (int a = 0; a < F; ++a)
        for (int b = 0; b < F; ++b) out[a][b] += av[a] * bv[b];
    }
    __syncthreads();
  }
  for (int a = 0; a < F; ++a)
    for (int b = 0; b < F; ++b) {
      const int r = rowBase + ty + S * a, c = colBase + tx + S * b;
      if (r < M && c < N) C[size_t(r) * N + c] = out[a][b];
    }
}

}  // namespace

void matmul_tiled(const float* A, const float* B, float* C, int M, int N, int K) {
  const int t = kTile;
  const size_t bytes = 2 * t * t * sizeof(float);
  tiled_dyn<<<dim3((N + t - 1) / t, (M + t - 1) / t), dim3(t, t), bytes>>>(A, B, C, M, N, K);
}

void matmul_coarsened(const float* A, const float* B, float* C, int M, int N, int K) {
  const size_t bytes = 2 * BT * KD * sizeof(float);
  coarse_dyn<<<dim3((N + BT - 1) / BT, (M + BT - 1) / BT), dim3(S, S), bytes>>>(A, B, C, M, N, K);
}

}  // namespace lesson13
