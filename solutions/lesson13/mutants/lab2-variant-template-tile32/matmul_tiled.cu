// Lab 2, written from the sgemm-tutorial shape: both kernels are templates.
//  - matmul_tiled: tiled_mm<TILE> with TILE = 32 (a 32 x 32 tile of C per block,
//    1024 threads); every element of A and B staged once per block, read TILE
//    times from shared memory.
//  - matmul_coarsened: 2-D block tiling, block_tiled_mm<BM, BN, BK, TM, TN>: a
//    64 x 64 tile of C per block of 256 threads, each thread a 4 x 4 patch of
//    consecutive outputs, the patch's A column and B row held in registers.
#include <cuda_runtime.h>

#include "matmul_labs.hpp"

namespace lesson13 {
namespace {

template <int TILE>
__global__ void tiled_mm(const float* A, const float* B, float* C, int M, int N, int K) {
  __shared__ float sA[TILE][TILE];
  __shared__ float sB[TILE][TILE];
  const int r = threadIdx.y, c = threadIdx.x;
  const int gRow = blockIdx.y * TILE + r;
  const int gCol = blockIdx.x * TILE + c;
  float sum = 0.0f;
  const int steps = (K + TILE - 1) / TILE;
  for (int s = 0; s < steps; ++s) {
    const int ka = s * TILE + c;  // column of A this thread stages
    const int kb = s * TILE + r;  // row of B this thread stages
    sA[r][c] = (gRow < M && ka < K) ? A[size_t(gRow) * K + ka] : 0.0f;
    sB[r][c] = (kb < K && gCol < N) ? B[size_t(kb) * N + gCol] : 0.0f;
    __syncthreads();
    for (int e = 0; e < TILE; ++e) sum += sA[r][e] * sB[e][c];
    __syncthreads();
  }
  if (gRow < M && gCol < N) C[size_t(gRow) * N + gCol] = sum;
}

template <int BM, int BN, int BK, int TM, int TN>
__global__ void block_tiled_mm(const float* A, const float* B, float* C, int M, int N, int K) {
  constexpr int kThreads = (BM / TM) * (BN / TN);
  __shared__ float sA[BM][BK];
  __shared__ float sB[BK][BN];
  const int tid = threadIdx.x;
  const int tRow = tid / (BN / TN);  // which TM rows of the block tile
  const int tCol = tid % (BN / TN);  // which TN columns
  const int row0 = blockIdx.y * BM, col0 = blockIdx.x * BN;
  float acc[TM][TN] = {};
  float ra[TM], rb[TN];
  for (int k0 = 0; k0 < K; k0 += BK) {
    for (int i = tid; i < BM * BK; i += kThreads) {  // lanes along k: consecutive in A
      const int m = i / BK, k = i % BK;
      const int gr = row0 + m, gk = k0 + k;
      sA[m][k] = (gr < M && gk < K) ? A[size_t(gr) * K + gk] : 0.0f;
    }
    for (int i = tid; i < BK * BN; i += kThreads) {  // lanes along n: consecutive in B
      const int k = i / BN, n = i % BN;
      const int gk = k0 + k, gc = col0 + n;
      sB[k][n] = (gk < K && gc < N) ? B[size_t(gk) * N + gc] : 0.0f;
    }
    __syncthreads();
    for (int k = 0; k < BK; ++k) {
      for (int i = 0; i < TM; ++i) ra[i] = sA[tRow * TM + i][k];
      for (int j = 0; j < TN; ++j) rb[j] = sB[k][tCol * TN + j];
      for (int i = 0; i < TM; ++i)
        for (int j = 0; j < TN; ++j) acc[i][j] += ra[i] * rb[j];
    }
    __syncthreads();
  }
  for (int i = 0; i < TM; ++i) {
    const int gr = row0 + tRow * TM + i;
    if (gr >= M) break;
    for (int j = 0; j < TN; ++j) {
      const int gc = col0 + tCol * TN + j;
      if (gc < N) C[size_t(gr) * N + gc] = acc[i][j];
    }
  }
}

}  // namespace

void matmul_tiled(const float* A, const float* B, float* C, int M, int N, int K) {
  constexpr int TILE = 32;
  const dim3 block(TILE, TILE);
  const dim3 grid((N + TILE - 1) / TILE, (M + TILE - 1) / TILE);
  tiled_mm<TILE><<<grid, block>>>(A, B, C, M, N, K);
}

void matmul_coarsened(const float* A, const float* B, float* C, int M, int N, int K) {
  constexpr int BM = 64, BN = 64, BK = 8, TM = 4, TN = 4;
  const dim3 grid((N + BN - 1) / BN, (M + BM - 1) / BM);
  block_tiled_mm<BM, BN, BK, TM, TN><<<grid, (BM / TM) * (BN / TN)>>>(A, B, C, M, N, K);
}

}  // namespace lesson13
