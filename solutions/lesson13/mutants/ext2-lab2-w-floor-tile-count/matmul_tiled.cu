// Lesson 13 lab 2: shared-memory tiling, then thread coarsening.
// Fill in the BLANKs, then grade with: grader lesson13 --unit lab_tiling
//
// matmul_tiled rewritten after the textbook's tiled kernel (Mds/Nds, phases ph),
// generalised from Width x Width to M x K times K x N: the rows and columns past
// the edge of C load 0, and the kernel runs K / TILE_WIDTH phases.
// matmul_coarsened is the given kernel with the register outer product filled in.
// API: lessons/lesson13/include/matmul_labs.hpp.
#include <cuda_runtime.h>

#include "course/blank.hpp"
#include "matmul_labs.hpp"

namespace lesson13 {
namespace {

constexpr int TILE_WIDTH = kTile;

__global__ void matmul_tiled_kernel(const float* A, const float* B, float* C, int M, int N, int K) {
  __shared__ float Mds[TILE_WIDTH][TILE_WIDTH];
  __shared__ float Nds[TILE_WIDTH][TILE_WIDTH];

  const int bx = blockIdx.x, by = blockIdx.y;
  const int tx = threadIdx.x, ty = threadIdx.y;

  // Identify the row and column of the C element to work on
  const int Row = by * TILE_WIDTH + ty;
  const int Col = bx * TILE_WIDTH + tx;

  float Pvalue = 0.0f;
  // Loop over the A and B tiles required to compute the C element
  const int phases = K / TILE_WIDTH;
  for (int ph = 0; ph < phases; ++ph) {
    // Collaborative loading of A and B tiles into shared memory
    Mds[ty][tx] = (Row < M) ? A[size_t(Row) * K + ph * TILE_WIDTH + tx] : 0.0f;
    Nds[ty][tx] = (Col < N) ? B[size_t(ph * TILE_WIDTH + ty) * N + Col] : 0.0f;
    __syncthreads();

    for (int k = 0; k < TILE_WIDTH; ++k) Pvalue += Mds[ty][k] * Nds[k][tx];
    __syncthreads();
  }
  if (Row < M && Col < N) C[size_t(Row) * N + Col] = Pvalue;
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
      // 5) This k's term of each of the thread's F x F outputs, from registers only.
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
  const dim3 dimGrid((N + TILE_WIDTH - 1) / TILE_WIDTH, (M + TILE_WIDTH - 1) / TILE_WIDTH);
  const dim3 dimBlock(TILE_WIDTH, TILE_WIDTH);
  matmul_tiled_kernel<<<dimGrid, dimBlock>>>(A, B, C, M, N, K);
}

void matmul_coarsened(const float* A, const float* B, float* C, int M, int N, int K) {
  matmul_coarsened_kernel<<<dim3((N + BT - 1) / BT, (M + BT - 1) / BT), dim3(S, S)>>>(A, B, C, M, N, K);
}

}  // namespace lesson13
