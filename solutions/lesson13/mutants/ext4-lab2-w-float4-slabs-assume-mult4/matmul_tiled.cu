// Lesson 13 lab 2: shared-memory tiling, then thread coarsening.
// Fill in the BLANKs, then grade with: grader lesson13 --unit lab_tiling
//
// matmul_tiled: each block computes a kTile x kTile tile of C, staging one tile of
// A and one of B in shared memory per step along K.
// matmul_coarsened: each thread computes 4 x 4 outputs from registers; the A and B
// slabs are staged with vectorised float4 loads, one float4 of each per thread
// (64 rows x 4 quads of A, 16 rows x 16 quads of B).
// API: lessons/lesson13/include/matmul_labs.hpp.
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
  for (int k0 = 0; k0 < K; k0 += T) {
    As[ty][tx] = (row < M && k0 + tx < K) ? A[size_t(row) * K + k0 + tx] : 0.0f;
    Bs[ty][tx] = (k0 + ty < K && col < N) ? B[size_t(k0 + ty) * N + col] : 0.0f;
    __syncthreads();
    for (int k = 0; k < T; ++k) acc += As[ty][k] * Bs[k][tx];
    __syncthreads();
  }
  if (row < M && col < N) C[size_t(row) * N + col] = acc;
}

constexpr int BT = kCoarseTile, F = kCoarseFactor, BK = 16, S = BT / F;  // S x S = 16 x 16 threads

__global__ void matmul_coarsened_kernel(const float* A, const float* B, float* C, int M, int N, int K) {
  __shared__ float As[BT][BK];
  __shared__ float Bs[BK][BT];
  const int tx = threadIdx.x, ty = threadIdx.y, tid = ty * S + tx;
  const int row0 = blockIdx.y * BT, col0 = blockIdx.x * BT;
  // Which float4 of each slab this thread copies.
  const int a_r = tid / (BK / 4), a_c = 4 * (tid % (BK / 4));  // A slab: BT rows x BK/4 quads
  const int b_r = tid / (BT / 4), b_c = 4 * (tid % (BT / 4));  // B slab: BK rows x BT/4 quads
  float acc[F][F] = {};
  for (int k0 = 0; k0 < K; k0 += BK) {
    float4 va, vb;
    va.x = va.y = va.z = va.w = 0.0f;
    vb.x = vb.y = vb.z = vb.w = 0.0f;
    if (row0 + a_r < M && k0 + a_c < K)
      va = *reinterpret_cast<const float4*>(A + size_t(row0 + a_r) * K + k0 + a_c);
    if (k0 + b_r < K && col0 + b_c < N)
      vb = *reinterpret_cast<const float4*>(B + size_t(k0 + b_r) * N + col0 + b_c);
    As[a_r][a_c + 0] = va.x;
    As[a_r][a_c + 1] = va.y;
    As[a_r][a_c + 2] = va.z;
    As[a_r][a_c + 3] = va.w;
    Bs[b_r][b_c + 0] = vb.x;
    Bs[b_r][b_c + 1] = vb.y;
    Bs[b_r][b_c + 2] = vb.z;
    Bs[b_r][b_c + 3] = vb.w;
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

}  // namespace

void matmul_tiled(const float* A, const float* B, float* C, int M, int N, int K) {
  matmul_tiled_kernel<<<dim3((N + T - 1) / T, (M + T - 1) / T), dim3(T, T)>>>(A, B, C, M, N, K);
}

void matmul_coarsened(const float* A, const float* B, float* C, int M, int N, int K) {
  matmul_coarsened_kernel<<<dim3((N + BT - 1) / BT, (M + BT - 1) / BT), dim3(S, S)>>>(A, B, C, M, N, K);
}

}  // namespace lesson13
