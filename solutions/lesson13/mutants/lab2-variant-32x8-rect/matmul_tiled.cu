// Lab 2 with 32 x 8 thread blocks.
//  - Tiled: a 32 x 32 tile of C per block; each of the 256 threads stages 4
//    elements of each tile (rows ty, ty + 8, ty + 16, ty + 24) and computes the 4
//    outputs in those rows of its column. Every global element is loaded once per
//    block, i.e. 32 times fewer loads than the naive kernel.
//  - Coarsened: 8 x 8 threads, each an 8 x 8 block of outputs of a 64 x 64 tile,
//    rows ty + 8 a and columns tx + 8 b: 16 shared loads feed 64 FMAs per k.
#include <cuda_runtime.h>

#include "matmul_labs.hpp"

namespace lesson13 {
namespace {

constexpr int TW = 32, TH = 8, RPT = TW / TH;  // tile width, block height, rows per thread

__global__ void tiled_32x8(const float* A, const float* B, float* C, int M, int N, int K) {
  __shared__ float tA[TW][TW];
  __shared__ float tB[TW][TW];
  const int x = threadIdx.x, y = threadIdx.y;
  const int rowBase = blockIdx.y * TW, col = blockIdx.x * TW + x;
  float acc[RPT] = {};
  for (int k0 = 0; k0 < K; k0 += TW) {
    for (int r = 0; r < RPT; ++r) {
      const int ly = y + TH * r;
      const int gr = rowBase + ly;
      tA[ly][x] = (gr < M && k0 + x < K) ? A[size_t(gr) * K + k0 + x] : 0.0f;
      tB[ly][x] = (k0 + ly < K && col < N) ? B[size_t(k0 + ly) * N + col] : 0.0f;
    }
    __syncthreads();
    for (int k = 0; k < TW; ++k) {
      const float b = tB[k][x];
      for (int r = 0; r < RPT; ++r) acc[r] += tA[y + TH * r][k] * b;
    }
    __syncthreads();
  }
  for (int r = 0; r < RPT; ++r) {
    const int gr = rowBase + y + TH * r;
    if (gr < M && col < N) C[size_t(gr) * N + col] = acc[r];
  }
}

constexpr int CB = 64, CK = 16, P = 8;  // C tile, k-slab depth, threads per side (P x P)

__global__ void coarse_8x8(const float* A, const float* B, float* C, int M, int N, int K) {
  __shared__ float sA[CB][CK];
  __shared__ float sB[CK][CB];
  const int x = threadIdx.x, y = threadIdx.y, tid = y * P + x;
  const int r0 = blockIdx.y * CB, c0 = blockIdx.x * CB;
  float acc[P][P];
  for (int a = 0; a < P; ++a)
    for (int b = 0; b < P; ++b) acc[a][b] = 0.0f;
  for (int k0 = 0; k0 < K; k0 += CK) {
    for (int e = tid; e < CB * CK; e += P * P) {
      const int m = e / CK, k = e % CK;
      sA[m][k] = (r0 + m < M && k0 + k < K) ? A[size_t(r0 + m) * K + k0 + k] : 0.0f;
      const int kk = e / CB, n = e % CB;
      sB[kk][n] = (k0 + kk < K && c0 + n < N) ? B[size_t(k0 + kk) * N + c0 + n] : 0.0f;
    }
    __syncthreads();
    for (int k = 0; k < CK; ++k) {
      float ra[P], rb[P];
      for (int a = 0; a < P; ++a) ra[a] = sA[y + P * a][k];
      for (int b = 0; b < P; ++b) rb[b] = sB[k][x + P * b];
      for (int a = 0; a < P; ++a)
        for (int b = 0; b < P; ++b) acc[a][b] += ra[a] * rb[b];
    }
    __syncthreads();
  }
  for (int a = 0; a < P; ++a)
    for (int b = 0; b < P; ++b) {
      const int r = r0 + y + P * a, c = c0 + x + P * b;
      if (r < M && c < N) C[size_t(r) * N + c] = acc[a][b];
    }
}

}  // namespace

void matmul_tiled(const float* A, const float* B, float* C, int M, int N, int K) {
  tiled_32x8<<<dim3((N + TW - 1) / TW, (M + TW - 1) / TW), dim3(TW, TH)>>>(A, B, C, M, N, K);
}

void matmul_coarsened(const float* A, const float* B, float* C, int M, int N, int K) {
  coarse_8x8<<<dim3((N + CB - 1) / CB, (M + CB - 1) / CB), dim3(P, P)>>>(A, B, C, M, N, K);
}

}  // namespace lesson13
