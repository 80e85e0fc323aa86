// Lesson 13 lab 2: shared-memory tiling, then thread coarsening.
// Fill in the BLANKs, then grade with: grader lesson13 --unit lab_tiling
//
// Variant: both kernels are templates on their tile sizes, and the host picks an
// instantiation at run time. matmul_tiled uses 32 x 32 tiles (blocks of 32 x 32
// threads) once C is at least 32 x 32, and 16 x 16 tiles below that; matmul_coarsened
// uses 64 x 64 block tiles with 4 x 4 outputs per thread once C is at least 64 x 64,
// and 32 x 32 block tiles with 2 x 2 outputs per thread below that (16 x 16 threads
// either way). Each __shared__ array is declared on its own.
// API: lessons/lesson13/include/matmul_labs.hpp.
#include <cuda_runtime.h>

#include "course/blank.hpp"
#include "matmul_labs.hpp"

namespace lesson13 {
namespace {

template <int TS>
__global__ void matmul_tiled_kernel(const float* A, const float* B, float* C, int M, int N, int K) {
  __shared__ float As[TS][TS];
  __shared__ float Bs[TS][TS];
  const int tx = threadIdx.x, ty = threadIdx.y;
  const int row = blockIdx.y * TS + ty, col = blockIdx.x * TS + tx;
  float acc = 0.0f;
  for (int k0 = 0; k0 < K; k0 += TS) {
    As[ty][tx] = (row < M && k0 + tx < K) ? A[size_t(row) * K + k0 + tx] : 0.0f;
    Bs[ty][tx] = (k0 + ty < K && col < N) ? B[size_t(k0 + ty) * N + col] : 0.0f;
    __syncthreads();
    for (int k = 0; k < TS; ++k) acc += As[ty][k] * Bs[k][tx];
    __syncthreads();
  }
  if (row < M && col < N) C[size_t(row) * N + col] = acc;
}

template <int TS>
void launch_tiled(const float* A, const float* B, float* C, int M, int N, int K) {
  const dim3 grid((N + TS - 1) / TS, (M + TS - 1) / TS), block(TS, TS);
  matmul_tiled_kernel<TS><<<grid, block>>>(A, B, C, M, N, K);
}

constexpr int BK = 16;  // depth of a K slab; also the thread block's side

// Thread (ty, tx) computes C rows by*BT + ty + S*i and columns bx*BT + tx + S*j
// (i, j < F), S = BT / F = 16.
template <int BT, int F>
__global__ void matmul_coarsened_kernel(const float* A, const float* B, float* C, int M, int N, int K) {
  constexpr int S = BT / F;
  static_assert(S == BK, "the slab is staged by S x S = 16 x 16 threads");
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

template <int BT, int F>
void launch_coarsened(const float* A, const float* B, float* C, int M, int N, int K) {
  constexpr int S = BT / F;
  const dim3 grid((N + BT - 1) / BT, (M + BT - 1) / BT), block(S, S);
  matmul_coarsened_kernel<BT, F><<<grid, block>>>(A, B, C, M, N, K);
}

}  // namespace

void matmul_tiled(const float* A, const float* B, float* C, int M, int N, int K) {
  if (M >= 32 && N >= 32)
    launch_tiled<32>(A, B, C, M, N, K);
  else
    launch_tiled<kTile>(A, B, C, M, N, K);
}

void matmul_coarsened(const float* A, const float* B, float* C, int M, int N, int K) {
  if (M >= 64 && N >= 64)
    launch_coarsened<kCoarseTile, kCoarseFactor>(A, B, C, M, N, K);
  else
    launch_coarsened<32, 2>(A, B, C, M, N, K);
}

}  // namespace lesson13
