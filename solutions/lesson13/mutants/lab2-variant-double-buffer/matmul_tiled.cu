// Lab 2 with double buffering: two copies of each shared tile. While the block
// multiplies the tiles of step s (buffer s % 2) every thread already stages its
// elements of step s + 1 into the other buffer, so one __syncthreads() per step is
// enough: it both publishes the next tiles and retires the current ones, which
// are only overwritten two steps later, after that barrier.
#include <cuda_runtime.h>

#include "matmul_labs.hpp"

namespace lesson13 {
namespace {

constexpr int T = kTile;

__device__ __forceinline__ float load_or_zero(const float* p, bool inside) { return inside ? *p : 0.0f; }

__global__ void tiled_double_buffered(const float* A, const float* B, float* C, int M, int N, int K) {
  __shared__ float As[2][T][T];
  __shared__ float Bs[2][T][T];
  const int tx = threadIdx.x, ty = threadIdx.y;
  const int row = blockIdx.y * T + ty, col = blockIdx.x * T + tx;
  const int steps = (K + T - 1) / T;
  float acc = 0.0f;
  if (steps > 0) {
    As[0][ty][tx] = load_or_zero(&A[size_t(row) * K + tx], row < M && tx < K);
    Bs[0][ty][tx] = load_or_zero(&B[size_t(ty) * N + col], ty < K && col < N);
  }
  __syncthreads();
  for (int s = 0; s < steps; ++s) {
    const int cur = s & 1, nxt = cur ^ 1;
    if (s + 1 < steps) {
      const int k0 = (s + 1) * T;
      As[nxt][ty][tx] = load_or_zero(&A[size_t(row) * K + k0 + tx], row < M && k0 + tx < K);
      Bs[nxt][ty][tx] = load_or_zero(&B[size_t(k0 + ty) * N + col], k0 + ty < K && col < N);
    }
    for (int k = 0; k < T; ++k) acc += As[cur][ty][k] * Bs[cur][k][tx];
    __syncthreads();
  }
  if (row < M && col < N) C[size_t(row) * N + col] = acc;
}

// Coarsened: 64 x 64 outputs per block of 16 x 8 threads; thread (ty, tx) owns
// rows ty + 8 a (a < 8) and columns tx + 16 b (b < 4): 32 outputs from 12 shared
// loads per k.
constexpr int BM = 64, BN = 64, BK = 16, TX = 16, TY = 8, FM = BM / TY, FN = BN / TX;

__global__ void coarsened_8x4(const float* A, const float* B, float* C, int M, int N, int K) {
  __shared__ float As[BM][BK];
  __shared__ float Bs[BK][BN];
  const int tx = threadIdx.x, ty = threadIdx.y, tid = ty * TX + tx;
  const int m0 = blockIdx.y * BM, n0 = blockIdx.x * BN;
  float acc[FM][FN];
  for (int a = 0; a < FM; ++a)
    for (int b = 0; b < FN; ++b) acc[a][b] = 0.0f;
  for (int k0 = 0; k0 < K; k0 += BK) {
    for (int e = tid; e < BM * BK; e += TX * TY) {
      const int m = e / BK, k = e % BK;
      As[m][k] = (m0 + m < M && k0 + k < K) ? A[size_t(m0 + m) * K + k0 + k] : 0.0f;
    }
    for (int e = tid; e < BK * BN; e += TX * TY) {
      const int k = e / BN, n = e % BN;
      Bs[k][n] = (k0 + k < K && n0 + n < N) ? B[size_t(k0 + k) * N + n0 + n] : 0.0f;
    }
    __syncthreads();
    for (int k = 0; k < BK; ++k) {
      float av[FM], bv[FN];
      for (int a = 0; a < FM; ++a) av[a] = As[ty + TY * a][k];
      for (int b = 0; b < FN; ++b) bv[b] = Bs[k][tx + TX * b];
      for (int a = 0; a < FM; ++a)
        for (int b = 0; b < FN; ++b) acc[a][b] += av[a] * bv[b];
    }
    __syncthreads();
  }
  for (int a = 0; a < FM; ++a)
    for (int b = 0; b < FN; ++b) {
      const int r = m0 + ty + TY * a, c = n0 + tx + TX * b;
      if (r < M && c < N) C[size_t(r) * N + c] = acc[a][b];
    }
}

}  // namespace

void matmul_tiled(const float* A, const float* B, float* C, int M, int N, int K) {
  tiled_double_buffered<<<dim3((N + T - 1) / T, (M + T - 1) / T), dim3(T, T)>>>(A, B, C, M, N, K);
}

void matmul_coarsened(const float* A, const float* B, float* C, int M, int N, int K) {
  coarsened_8x4<<<dim3((N + BN - 1) / BN, (M + BM - 1) / BM), dim3(TX, TY)>>>(A, B, C, M, N, K);
}

}  // namespace lesson13
