// Lab 2 after reading the "how to optimise a CUDA sgemm" walk-throughs.
//  - Tiled: a flat block of 256 threads that I index as 16 x 16 by hand, read-only
//    inputs marked __restrict__.
//  - Coarsened: 2-D register blocking with vectorised shared-memory reads. The A
//    slab is stored transposed (AsT[k][m]) so that a thread's 4 consecutive rows
//    of A at one k are 4 consecutive floats: one float4 load; its 4 consecutive
//    columns of B at that k are one float4 load too. 2 shared loads feed 16 FMAs.
#include <cuda_runtime.h>

#include "matmul_labs.hpp"

namespace lesson13 {
namespace {

constexpr int T = kTile;

__global__ void tiled_flat(const float* __restrict__ A, const float* __restrict__ B, float* __restrict__ C,
                           int M, int N, int K) {
  __shared__ float sa[T * T];
  __shared__ float sb[T * T];
  const int tid = threadIdx.x;
  const int lx = tid % T, ly = tid / T;  // lx fastest: consecutive lanes, consecutive columns
  const int row = blockIdx.y * T + ly, col = blockIdx.x * T + lx;
  float acc = 0.0f;
  for (int k0 = 0; k0 < K; k0 += T) {
    sa[ly * T + lx] = (row < M && k0 + lx < K) ? A[size_t(row) * K + k0 + lx] : 0.0f;
    sb[ly * T + lx] = (k0 + ly < K && col < N) ? B[size_t(k0 + ly) * N + col] : 0.0f;
    __syncthreads();
    for (int k = 0; k < T; ++k) acc += sa[ly * T + k] * sb[k * T + lx];
    __syncthreads();
  }
  if (row < M && col < N) C[size_t(row) * N + col] = acc;
}

constexpr int BM = 64, BN = 64, BK = 8, TM = 4, TN = 4;
constexpr int kThreads = (BM / TM) * (BN / TN);  // 256

__global__ void regblock_vec4(const float* __restrict__ A, const float* __restrict__ B, float* __restrict__ C,
                              int M, int N, int K) {
  __shared__ __align__(16) float AsT[BK][BM];
  __shared__ __align__(16) float Bs[BK][BN];
  const int tid = threadIdx.x;
  const int tRow = tid / (BN / TN), tCol = tid % (BN / TN);
  const int m0 = blockIdx.y * BM, n0 = blockIdx.x * BN;
  float acc[TM * TN] = {};
  for (int k0 = 0; k0 < K; k0 += BK) {
    for (int e = tid; e < BM * BK; e += kThreads) {
      const int m = e / BK, k = e % BK;
      AsT[k][m] = (m0 + m < M && k0 + k < K) ? A[size_t(m0 + m) * K + k0 + k] : 0.0f;
    }
    for (int e = tid; e < BK * BN; e += kThreads) {
      const int k = e / BN, n = e % BN;
      Bs[k][n] = (k0 + k < K && n0 + n < N) ? B[size_t(k0 + k) * N + n0 + n] : 0.0f;
    }
    __syncthreads();
    for (int k = 0; k < BK; ++k) {
      const float4 a = *reinterpret_cast<const float4*>(&AsT[k][tRow * TM]);
      const float4 b = *reinterpret_cast<const float4*>(&Bs[k][tCol * TN]);
      const float ra[TM] = {a.x, a.y, a.z, a.w};
      const float rb[TN] = {b.x, b.y, b.z, b.w};
      for (int i = 0; i < TM; ++i)
        for (int j = 0; j < TN; ++j) acc[i * TN + j] += ra[i] * rb[j];
    }
    __syncthreads();
  }
  for (int i = 0; i < TM; ++i)
    for (int j = 0; j < TN; ++j) {
      const int r = m0 + tRow * TM + i, c = n0 + tCol * TN + j;
      if (r < M && c < N) C[size_t(r) * N + c] = acc[i * TN + j];
    }
}

}  // namespace

void matmul_tiled(const float* A, const float* B, float* C, int M, int N, int K) {
  tiled_flat<<<dim3((N + T - 1) / T, (M + T - 1) / T), T * T>>>(A, B, C, M, N, K);
}

void matmul_coarsened(const float* A, const float* B, float* C, int M, int N, int K) {
  regblock_vec4<<<dim3((N + BN - 1) / BN, (M + BM - 1) / BM), kThreads>>>(A, B, C, M, N, K);
}

}  // namespace lesson13
