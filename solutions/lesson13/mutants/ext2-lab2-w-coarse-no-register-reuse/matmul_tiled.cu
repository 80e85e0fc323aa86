// Lesson 13 lab 2: shared-memory tiling, then thread coarsening.
// Fill in the BLANKs, then grade with: grader lesson13 --unit lab_tiling
//
// matmul_tiled: the usual 16 x 16 tiles.
// matmul_coarsened: 16 x 16 threads per 64 x 64 tile of C, each thread 4 x 4
// outputs strided by 16. For each of its 16 outputs the thread runs the same
// tile product as the tiled kernel (row of As times column of Bs) into a partial
// sum, then adds it to the output's accumulator.
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
    // 1) Each thread stages one element of each tile; outside the matrices, 0.
    As[ty][tx] = (row < M && k0 + tx < K) ? A[size_t(row) * K + k0 + tx] : 0.0f;
    Bs[ty][tx] = (k0 + ty < K && col < N) ? B[size_t(k0 + ty) * N + col] : 0.0f;

    // 2) From here on, threads read elements of the tiles that other threads wrote.
    __syncthreads();

    // 3) This thread's share of the tile product.
    for (int k = 0; k < T; ++k) acc += As[ty][k] * Bs[k][tx];

    // 4) The next iteration stores the next tile into the same As and Bs.
    __syncthreads();
  }
  if (row < M && col < N) C[size_t(row) * N + col] = acc;
}

constexpr int BT = kCoarseTile, F = kCoarseFactor, BK = 16, S = BT / F;  // S x S = 16 x 16 threads

__global__ void matmul_coarsened_kernel(const float* A, const float* B, float* C, int M, int N, int K) {
  __shared__ float As[BT][BK];
  __shared__ float Bs[BK][BT];
  const int tx = threadIdx.x, ty = threadIdx.y;
  const int row0 = blockIdx.y * BT, col0 = blockIdx.x * BT;
  float acc[F][F] = {};
  for (int k0 = 0; k0 < K; k0 += BK) {
    // Stage a BT x BK slice of A and a BK x BT slice of B (F elements of each per thread).
    for (int i = 0; i < F; ++i) {
      const int r = row0 + ty + S * i, c = col0 + tx + S * i;
      As[ty + S * i][tx] = (r < M && k0 + tx < K) ? A[size_t(r) * K + k0 + tx] : 0.0f;
      Bs[ty][tx + S * i] = (k0 + ty < K && c < N) ? B[size_t(k0 + ty) * N + c] : 0.0f;
    }
    __syncthreads();
    // Each of my F x F outputs gets this slice's share of its dot product.
    for (int i = 0; i < F; ++i)
      for (int j = 0; j < F; ++j) {
        float partial = 0.0f;
        for (int k = 0; k < BK; ++k) partial += As[ty + S * i][k] * Bs[k][tx + S * j];
        acc[i][j] += partial;
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
