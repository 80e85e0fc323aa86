// Lab 2 with only one barrier per step: "the tiles are complete after the first
// __syncthreads(), so that is all we need". But nothing stops a fast warp from
// finishing its 16 products, looping around and overwriting As/Bs with the next
// step's tiles while a slower warp of the block is still reading the current ones
// (a write-after-read race on shared memory).
#include <cuda_runtime.h>

#include "matmul_labs.hpp"

namespace lesson13 {
namespace {

constexpr int TILE = kTile;

__global__ void mm_tiled_one_barrier(const float* A, const float* B, float* C, int M, int N, int K) {
  __shared__ float tileA[TILE][TILE];
  __shared__ float tileB[TILE][TILE];
  const int r = blockIdx.y * TILE + threadIdx.y;
  const int c = blockIdx.x * TILE + threadIdx.x;
  float sum = 0.0f;
  const int phases = (K + TILE - 1) / TILE;
  for (int ph = 0; ph < phases; ++ph) {
    const int ka = ph * TILE + threadIdx.x, kb = ph * TILE + threadIdx.y;
    tileA[threadIdx.y][threadIdx.x] = (r < M && ka < K) ? A[size_t(r) * K + ka] : 0.0f;
    tileB[threadIdx.y][threadIdx.x] = (kb < K && c < N) ? B[size_t(kb) * N + c] : 0.0f;
    __syncthreads();
    for (int i = 0; i < TILE; ++i) sum += tileA[threadIdx.y][i] * tileB[i][threadIdx.x];
    // (missing: __syncthreads() before the next phase overwrites the tiles)
  }
  if (r < M && c < N) C[size_t(r) * N + c] = sum;
}

// Coarsened (correct): 2-D register blocking, 256 threads, 4 x 4 consecutive outputs each.
constexpr int BM = 64, BN = 64, BK = 8, TM = 4, TN = 4, NT = (BM / TM) * (BN / TN);

__global__ void mm_coarse(const float* A, const float* B, float* C, int M, int N, int K) {
  __shared__ float sA[BM][BK];
  __shared__ float sB[BK][BN];
  const int t = threadIdx.x, tr = t / (BN / TN), tc = t % (BN / TN);
  const int br = blockIdx.y * BM, bc = blockIdx.x * BN;
  float acc[TM][TN] = {};
  for (int k0 = 0; k0 < K; k0 += BK) {
    for (int e = t; e < BM * BK; e += NT) {
      const int m = e / BK, k = e % BK;
      sA[m][k] = (br + m < M && k0 + k < K) ? A[size_t(br + m) * K + k0 + k] : 0.0f;
    }
    for (int e = t; e < BK * BN; e += NT) {
      const int k = e / BN, n = e % BN;
      sB[k][n] = (k0 + k < K && bc + n < N) ? B[size_t(k0 + k) * N + bc + n] : 0.0f;
    }
    __syncthreads();
    for (int k = 0; k < BK; ++k) {
      float ra[TM], rb[TN];
      for (int i = 0; i < TM; ++i) ra[i] = sA[tr * TM + i][k];
      for (int j = 0; j < TN; ++j) rb[j] = sB[k][tc * TN + j];
      for (int i = 0; i < TM; ++i)
        for (int j = 0; j < TN; ++j) acc[i][j] += ra[i] * rb[j];
    }
    __syncthreads();
  }
  for (int i = 0; i < TM; ++i)
    for (int j = 0; j < TN; ++j) {
      const int gr = br + tr * TM + i, gc = bc + tc * TN + j;
      if (gr < M && gc < N) C[size_t(gr) * N + gc] = acc[i][j];
    }
}

}  // namespace

void matmul_tiled(const float* A, const float* B, float* C, int M, int N, int K) {
  mm_tiled_one_barrier<<<dim3((N + TILE - 1) / TILE, (M + TILE - 1) / TILE), dim3(TILE, TILE)>>>(A, B, C, M, N, K);
}

void matmul_coarsened(const float* A, const float* B, float* C, int M, int N, int K) {
  mm_coarse<<<dim3((N + BN - 1) / BN, (M + BM - 1) / BM), NT>>>(A, B, C, M, N, K);
}

}  // namespace lesson13
