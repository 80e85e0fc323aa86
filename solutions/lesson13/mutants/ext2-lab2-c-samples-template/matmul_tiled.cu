// Lesson 13 lab 2: shared-memory tiling, then thread coarsening.
// Fill in the BLANKs, then grade with: grader lesson13 --unit lab_tiling
//
// matmul_tiled follows the CUDA samples' matrixMul (MatrixMulCUDA<BLOCK_SIZE>):
// the block walks the band of A from aBegin to aEnd in steps of BLOCK_SIZE and the
// band of B in steps of BLOCK_SIZE * wB, with As/Bs declared in the loop as the
// sample does. The sample assumes every dimension is a multiple of BLOCK_SIZE; here
// the loads are bounds-checked (0 outside A and B) and the store is guarded.
// matmul_coarsened is a register-tiled kernel: 8 x 8 threads per 64 x 64 tile of
// C, each thread 8 x 8 outputs strided by 8, a K step of 8; per k a thread loads
// 8 values of As and 8 of Bs into registers and does 64 multiply-adds from them.
// API: lessons/lesson13/include/matmul_labs.hpp.
#include <cuda_runtime.h>

#include "course/blank.hpp"
#include "matmul_labs.hpp"

namespace lesson13 {
namespace {

// C = A * B, A is hA x wA, B is wA x wB (row-major).
template <int BLOCK_SIZE>
__global__ void MatrixMulCUDA(float* C, const float* A, const float* B, int hA, int wA, int wB) {
  // Block index
  const int bx = blockIdx.x;
  const int by = blockIdx.y;

  // Thread index
  const int tx = threadIdx.x;
  const int ty = threadIdx.y;

  // Index of the first sub-matrix of A processed by the block
  const int aBegin = wA * BLOCK_SIZE * by;
  // Index of the last element of the first row of A's band
  const int aEnd = aBegin + wA - 1;
  // Step size used to iterate through the sub-matrices of A
  const int aStep = BLOCK_SIZE;
  // Index of the first sub-matrix of B processed by the block
  const int bBegin = BLOCK_SIZE * bx;
  // Step size used to iterate through the sub-matrices of B
  const int bStep = BLOCK_SIZE * wB;

  // The element of C this thread computes (also its row of A and column of B)
  const int row = by * BLOCK_SIZE + ty;
  const int col = bx * BLOCK_SIZE + tx;

  // Csub is used to store the element of the block sub-matrix computed by the thread
  float Csub = 0.0f;

  // Loop over all the sub-matrices of A and B required to compute the block sub-matrix;
  // kt is the column of A (row of B) where the current sub-matrices start.
  for (int a = aBegin, b = bBegin, kt = 0; a <= aEnd; a += aStep, b += bStep, kt += BLOCK_SIZE) {
    // Declaration of the shared memory arrays used to store the sub-matrices of A and B
    __shared__ float As[BLOCK_SIZE][BLOCK_SIZE];
    __shared__ float Bs[BLOCK_SIZE][BLOCK_SIZE];

    // Load the matrices from device memory to shared memory; each thread loads one
    // element of each matrix, 0 where the sub-matrix hangs over the edge
    As[ty][tx] = (row < hA && kt + tx < wA) ? A[a + wA * ty + tx] : 0.0f;
    Bs[ty][tx] = (kt + ty < wA && col < wB) ? B[b + wB * ty + tx] : 0.0f;

    // Synchronize to make sure the matrices are loaded
    __syncthreads();

    // Multiply the two matrices together; each thread computes one element of the
    // block sub-matrix
    for (int k = 0; k < BLOCK_SIZE; ++k) Csub += As[ty][k] * Bs[k][tx];

    // Synchronize to make sure that the preceding computation is done before loading
    // two new sub-matrices of A and B in the next iteration
    __syncthreads();
  }

  // Write the block sub-matrix to device memory; each thread writes one element
  if (row < hA && col < wB) C[size_t(row) * wB + col] = Csub;
}

// Register-tiled matmul: a BM x BN tile of C per block of (BM/TM) x (BN/TN) threads,
// thread (ty, tx) owning rows ty + (BM/TM)*i and columns tx + (BN/TN)*j.
template <int BM, int BN, int BK, int TM, int TN>
__global__ void MatrixMulRegisterTiled(float* C, const float* A, const float* B, int hA, int wA, int wB) {
  constexpr int TY = BM / TM;  // thread rows
  constexpr int TX = BN / TN;  // thread columns
  constexpr int NT = TY * TX;  // threads per block

  __shared__ float As[BM][BK];
  __shared__ float Bs[BK][BN];

  const int tx = threadIdx.x, ty = threadIdx.y;
  const int tid = ty * TX + tx;
  const int rowBase = blockIdx.y * BM, colBase = blockIdx.x * BN;

  float acc[TM][TN];
  for (int i = 0; i < TM; ++i)
    for (int j = 0; j < TN; ++j) acc[i][j] = 0.0f;
  float regA[TM], regB[TN];

  for (int kt = 0; kt < wA; kt += BK) {
    // Stage the BM x BK slice of A and the BK x BN slice of B, all threads striding.
    for (int e = tid; e < BM * BK; e += NT) {
      const int r = e / BK, c = e % BK;
      const int gr = rowBase + r, gc = kt + c;
      As[r][c] = (gr < hA && gc < wA) ? A[size_t(gr) * wA + gc] : 0.0f;
    }
    for (int e = tid; e < BK * BN; e += NT) {
      const int r = e / BN, c = e % BN;
      const int gr = kt + r, gc = colBase + c;
      Bs[r][c] = (gr < wA && gc < wB) ? B[size_t(gr) * wB + gc] : 0.0f;
    }
    __syncthreads();

    for (int k = 0; k < BK; ++k) {
      for (int i = 0; i < TM; ++i) regA[i] = As[ty + TY * i][k];
      for (int j = 0; j < TN; ++j) regB[j] = Bs[k][tx + TX * j];
      for (int i = 0; i < TM; ++i)
        for (int j = 0; j < TN; ++j) acc[i][j] += regA[i] * regB[j];  // registers only
    }
    __syncthreads();
  }

  for (int i = 0; i < TM; ++i)
    for (int j = 0; j < TN; ++j) {
      const int r = rowBase + ty + TY * i, c = colBase + tx + TX * j;
      if (r < hA && c < wB) C[size_t(r) * wB + c] = acc[i][j];
    }
}

constexpr int kBM = 64, kBN = 64, kBK = 8, kTM = 8, kTN = 8;

}  // namespace

void matmul_tiled(const float* A, const float* B, float* C, int M, int N, int K) {
  const dim3 threads(kTile, kTile);
  const dim3 grid((N + kTile - 1) / kTile, (M + kTile - 1) / kTile);
  MatrixMulCUDA<kTile><<<grid, threads>>>(C, A, B, M, K, N);
}

void matmul_coarsened(const float* A, const float* B, float* C, int M, int N, int K) {
  const dim3 threads(kBN / kTN, kBM / kTM);
  const dim3 grid((N + kBN - 1) / kBN, (M + kBM - 1) / kBM);
  MatrixMulRegisterTiled<kBM, kBN, kBK, kTM, kTN><<<grid, threads>>>(C, A, B, M, K, N);
}

}  // namespace lesson13
