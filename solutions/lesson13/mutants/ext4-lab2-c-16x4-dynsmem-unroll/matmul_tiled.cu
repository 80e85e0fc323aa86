// Lesson 13 lab 2: shared-memory tiling, then thread coarsening.
// Fill in the BLANKs, then grade with: grader lesson13 --unit lab_tiling
//
// Variant. matmul_tiled: a 16 x 16 tile of C per block, but the block is 16 x 4
// threads; thread (ty, tx) stages rows ty, ty + 4, ty + 8, ty + 12 of each 16 x 16
// tile and computes those four rows of column tx of C. The two tiles live in
// dynamic shared memory (extern __shared__), sized by the launch's third argument.
// Loops with compile-time trip counts carry #pragma unroll.
// matmul_coarsened: the given 4 x 4 register-tiled kernel.
// API: lessons/lesson13/include/matmul_labs.hpp.
#include <cuda_runtime.h>

#include "course/blank.hpp"
#include "matmul_labs.hpp"

namespace lesson13 {
namespace {

constexpr int T = kTile;         // 16 x 16 tiles of C, A and B
constexpr int TY = 4;            // thread rows per block: a block is T x TY = 16 x 4 threads
constexpr int RPT = T / TY;      // rows of the tile per thread

__global__ void matmul_tiled_kernel(const float* A, const float* B, float* C, int M, int N, int K) {
  extern __shared__ float tiles[];  // 2 * T * T floats: As, then Bs
  float* As = tiles;                // As[r * T + c]
  float* Bs = tiles + T * T;        // Bs[r * T + c]
  const int tx = threadIdx.x, ty = threadIdx.y;
  const int row0 = blockIdx.y * T, col = blockIdx.x * T + tx;

  float acc[RPT];
#pragma unroll
  for (int i = 0; i < RPT; ++i) acc[i] = 0.0f;

  for (int k0 = 0; k0 < K; k0 += T) {
    // Each thread stages RPT elements of each tile; 0 outside A and B.
#pragma unroll
    for (int i = 0; i < RPT; ++i) {
      const int r = ty + TY * i;
      const int a_row = row0 + r;
      As[r * T + tx] = (a_row < M && k0 + tx < K) ? A[size_t(a_row) * K + k0 + tx] : 0.0f;
      Bs[r * T + tx] = (k0 + r < K && col < N) ? B[size_t(k0 + r) * N + col] : 0.0f;
    }
    __syncthreads();  // every element of both tiles is written

#pragma unroll
    for (int k = 0; k < T; ++k) {
      const float b = Bs[k * T + tx];  // 16 consecutive words, shared by the warp's two rows
#pragma unroll
      for (int i = 0; i < RPT; ++i) acc[i] += As[(ty + TY * i) * T + k] * b;
    }
    __syncthreads();  // every thread is done reading before the next tile is stored
  }

#pragma unroll
  for (int i = 0; i < RPT; ++i) {
    const int r = row0 + ty + TY * i;
    if (r < M && col < N) C[size_t(r) * N + col] = acc[i];
  }
}

constexpr int BT = kCoarseTile, F = kCoarseFactor, BK = 16, S = BT / F;  // S x S = 16 x 16 threads

// Thread (ty, tx) computes C rows by*BT + ty + S*i and columns bx*BT + tx + S*j
// (i, j < F): strided by S, so a warp's global loads and stores stay consecutive
// and its shared-memory reads in the inner loop are conflict-free broadcasts.
__global__ void matmul_coarsened_kernel(const float* A, const float* B, float* C, int M, int N, int K) {
  __shared__ float As[BT][BK];
  __shared__ float Bs[BK][BT];
  const int tx = threadIdx.x, ty = threadIdx.y;
  const int row0 = blockIdx.y * BT, col0 = blockIdx.x * BT;
  float acc[F][F] = {};
  for (int k0 = 0; k0 < K; k0 += BK) {
#pragma unroll
    for (int i = 0; i < F; ++i) {
      const int r = row0 + ty + S * i, c = col0 + tx + S * i;
      As[ty + S * i][tx] = (r < M && k0 + tx < K) ? A[size_t(r) * K + k0 + tx] : 0.0f;
      Bs[ty][tx + S * i] = (k0 + ty < K && c < N) ? B[size_t(k0 + ty) * N + c] : 0.0f;
    }
    __syncthreads();
#pragma unroll
    for (int k = 0; k < BK; ++k) {
      float a[F], b[F];
#pragma unroll
      for (int i = 0; i < F; ++i) a[i] = As[ty + S * i][k];
#pragma unroll
      for (int j = 0; j < F; ++j) b[j] = Bs[k][tx + S * j];
#pragma unroll
      for (int i = 0; i < F; ++i) {
#pragma unroll
        for (int j = 0; j < F; ++j) acc[i][j] += a[i] * b[j];
      }
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
  const size_t smem_bytes = 2 * T * T * sizeof(float);  // 2 KiB
  matmul_tiled_kernel<<<dim3((N + T - 1) / T, (M + T - 1) / T), dim3(T, TY), smem_bytes>>>(A, B, C, M, N, K);
}

void matmul_coarsened(const float* A, const float* B, float* C, int M, int N, int K) {
  matmul_coarsened_kernel<<<dim3((N + BT - 1) / BT, (M + BT - 1) / BT), dim3(S, S)>>>(A, B, C, M, N, K);
}

}  // namespace lesson13
