// Lesson 13 lab 2: shared-memory tiling, then thread coarsening.
// Fill in the BLANKs, then grade with: grader lesson13 --unit lab_tiling
//
// Written with 1-D thread blocks throughout, the thread's place computed from
// threadIdx.x (as in the SGEMM worklogs), and pointers that advance along K.
// matmul_tiled: 32 x 32 tiles, one block of 1024 threads per tile of C, so a warp
// is exactly one row of the tile. The tiles carry one float of padding per row
// (the transpose-tutorial habit); every warp access still falls in 32 different
// banks or is a broadcast.
// matmul_coarsened: a 128 x 64 tile of C per block of 256 threads, each thread an
// 8 x 4 block of outputs strided by 16 rows and 16 columns; per k it loads 8 + 4
// values from shared memory and does 32 multiply-adds from registers.
// API: lessons/lesson13/include/matmul_labs.hpp.
#include <cuda_runtime.h>

#include "course/blank.hpp"
#include "matmul_labs.hpp"

namespace lesson13 {
namespace {

constexpr int TS = 32;  // tile side
constexpr int PAD = 1;

__global__ void matmul_tiled_kernel(const float* A, const float* B, float* C, int M, int N, int K) {
  __shared__ float tileA[TS][TS + PAD];
  __shared__ float tileB[TS][TS + PAD];

  const int tRow = threadIdx.x / TS;  // a warp: one tRow, tCol = 0..31
  const int tCol = threadIdx.x % TS;
  const int cRow = blockIdx.y * TS + tRow;
  const int cCol = blockIdx.x * TS + tCol;

  // Advance-the-pointer style: a_ptr at the top-left of the current A tile,
  // b_ptr at the top-left of the current B tile.
  const float* a_ptr = A + size_t(blockIdx.y) * TS * K;
  const float* b_ptr = B + size_t(blockIdx.x) * TS;

  float sum = 0.0f;
  for (int kb = 0; kb < K; kb += TS) {
    tileA[tRow][tCol] = (cRow < M && kb + tCol < K) ? a_ptr[size_t(tRow) * K + tCol] : 0.0f;
    tileB[tRow][tCol] = (kb + tRow < K && cCol < N) ? b_ptr[size_t(tRow) * N + tCol] : 0.0f;
    __syncthreads();
    a_ptr += TS;
    b_ptr += size_t(TS) * N;

    for (int k = 0; k < TS; ++k) sum += tileA[tRow][k] * tileB[k][tCol];
    __syncthreads();  // before the next iteration overwrites the tiles
  }
  if (cRow < M && cCol < N) C[size_t(cRow) * N + cCol] = sum;
}

constexpr int BM = 128, BN = 64, BK = 16;   // block tile of C and K step
constexpr int TM = 8, TN = 4;               // outputs per thread
constexpr int THR_R = BM / TM, THR_C = BN / TN;  // 16 x 16 threads
constexpr int NTHREADS = THR_R * THR_C;          // 256

__global__ void matmul_coarsened_kernel(const float* A, const float* B, float* C, int M, int N, int K) {
  __shared__ float sA[BM * BK];  // row-major BM x BK
  __shared__ float sB[BK * BN];  // row-major BK x BN

  const int tid = threadIdx.x;
  const int threadRow = tid / THR_C;  // 0..15
  const int threadCol = tid % THR_C;  // 0..15
  const int blockRow = blockIdx.y * BM, blockCol = blockIdx.x * BN;

  float results[TM * TN];
  for (int t = 0; t < TM * TN; ++t) results[t] = 0.0f;
  float regM[TM];
  float regN[TN];

  for (int k0 = 0; k0 < K; k0 += BK) {
    for (int e = tid; e < BM * BK; e += NTHREADS) {  // 8 per thread
      const int r = e / BK, c = e % BK;
      const int gr = blockRow + r, gc = k0 + c;
      sA[e] = (gr < M && gc < K) ? A[size_t(gr) * K + gc] : 0.0f;
    }
    for (int e = tid; e < BK * BN; e += NTHREADS) {  // 4 per thread
      const int r = e / BN, c = e % BN;
      const int gr = k0 + r, gc = blockCol + c;
      sB[e] = (gr < K && gc < N) ? B[size_t(gr) * N + gc] : 0.0f;
    }
    __syncthreads();

    for (int dot = 0; dot < BK; ++dot) {
      for (int i = 0; i < TM; ++i) regM[i] = sA[(threadRow + THR_R * i) * BK + dot];
      for (int j = 0; j < TN; ++j) regN[j] = sB[dot * BN + threadCol + THR_C * j];
      for (int i = 0; i < TM; ++i)
        for (int j = 0; j < TN; ++j) results[i * TN + j] += regM[i] * regN[j];
    }
    __syncthreads();
  }

  for (int i = 0; i < TM; ++i)
    for (int j = 0; j < TN; ++j) {
      const int r = blockRow + threadRow + THR_R * i;
      const int c = blockCol + threadCol + THR_C * j;
      if (r < M && c < N) C[size_t(r) * N + c] = results[i * TN + j];
    }
}

}  // namespace

void matmul_tiled(const float* A, const float* B, float* C, int M, int N, int K) {
  matmul_tiled_kernel<<<dim3((N + TS - 1) / TS, (M + TS - 1) / TS), dim3(TS * TS)>>>(A, B, C, M, N, K);
}

void matmul_coarsened(const float* A, const float* B, float* C, int M, int N, int K) {
  matmul_coarsened_kernel<<<dim3((N + BN - 1) / BN, (M + BM - 1) / BM), dim3(NTHREADS)>>>(A, B, C, M, N, K);
}

}  // namespace lesson13
