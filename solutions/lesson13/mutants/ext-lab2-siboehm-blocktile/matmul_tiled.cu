// Lab 2, written after siboehm's "How to optimize a CUDA matmul kernel" (kernels 3 and 5),
// with 1-D thread blocks whose row/column inside the tile are computed from threadIdx.x.
#include <cuda_runtime.h>

#include "matmul_labs.hpp"

namespace lesson13 {
namespace {

constexpr int TS = kTile;  // 16 x 16 outputs per block, 256 threads

__global__ void sgemm_shared_mem_block(const float* A, const float* B, float* C, int M, int N, int K) {
  __shared__ float As[TS * TS];
  __shared__ float Bs[TS * TS];
  const int threadCol = threadIdx.x % TS;
  const int threadRow = threadIdx.x / TS;
  const int cRow = blockIdx.y * TS + threadRow;
  const int cCol = blockIdx.x * TS + threadCol;

  float tmp = 0.0f;
  for (int bk = 0; bk < K; bk += TS) {
    const int aCol = bk + threadCol, bRow = bk + threadRow;
    As[threadRow * TS + threadCol] = (cRow < M && aCol < K) ? A[size_t(cRow) * K + aCol] : 0.0f;
    Bs[threadRow * TS + threadCol] = (bRow < K && cCol < N) ? B[size_t(bRow) * N + cCol] : 0.0f;
    __syncthreads();
    for (int dot = 0; dot < TS; ++dot) tmp += As[threadRow * TS + dot] * Bs[dot * TS + threadCol];
    __syncthreads();
  }
  if (cRow < M && cCol < N) C[size_t(cRow) * N + cCol] = tmp;
}

// 2-D blocktiling: a 64 x 64 tile of C per block, 256 threads, each computing a
// contiguous TM x TN = 4 x 4 patch from registers.
constexpr int BM = kCoarseTile, BN = kCoarseTile, BK = 16, TM = kCoarseFactor, TN = kCoarseFactor;
constexpr int kThreads = (BM / TM) * (BN / TN);  // 256

__global__ void sgemm_2d_blocktiling(const float* A, const float* B, float* C, int M, int N, int K) {
  __shared__ float As[BM * BK];
  __shared__ float Bs[BK * BN];
  const int tid = threadIdx.x;
  const int threadCol = tid % (BN / TN);
  const int threadRow = tid / (BN / TN);
  const int rowBase = blockIdx.y * BM, colBase = blockIdx.x * BN;

  float threadResults[TM * TN] = {0.0f};
  float regM[TM], regN[TN];

  for (int bk = 0; bk < K; bk += BK) {
    for (int idx = tid; idx < BM * BK; idx += kThreads) {
      const int r = idx / BK, c = idx % BK;
      const int gr = rowBase + r, gc = bk + c;
      As[r * BK + c] = (gr < M && gc < K) ? A[size_t(gr) * K + gc] : 0.0f;
    }
    for (int idx = tid; idx < BK * BN; idx += kThreads) {
      const int r = idx / BN, c = idx % BN;
      const int gr = bk + r, gc = colBase + c;
      Bs[r * BN + c] = (gr < K && gc < N) ? B[size_t(gr) * N + gc] : 0.0f;
    }
    __syncthreads();
    for (int dotIdx = 0; dotIdx < BK; ++dotIdx) {
      for (int i = 0; i < TM; ++i) regM[i] = As[(threadRow * TM + i) * BK + dotIdx];
      for (int j = 0; j < TN; ++j) regN[j] = Bs[dotIdx * BN + threadCol * TN + j];
      for (int i = 0; i < TM; ++i)
        for (int j = 0; j < TN; ++j) threadResults[i * TN + j] += regM[i] * regN[j];
    }
    __syncthreads();
  }
  for (int i = 0; i < TM; ++i)
    for (int j = 0; j < TN; ++j) {
      const int r = rowBase + threadRow * TM + i, c = colBase + threadCol * TN + j;
      if (r < M && c < N) C[size_t(r) * N + c] = threadResults[i * TN + j];
    }
}

inline int ceil_div(int a, int b) { return (a + b - 1) / b; }

}  // namespace

void matmul_tiled(const float* A, const float* B, float* C, int M, int N, int K) {
  sgemm_shared_mem_block<<<dim3(ceil_div(N, TS), ceil_div(M, TS)), dim3(TS * TS)>>>(A, B, C, M, N, K);
}

void matmul_coarsened(const float* A, const float* B, float* C, int M, int N, int K) {
  sgemm_2d_blocktiling<<<dim3(ceil_div(N, BN), ceil_div(M, BM)), dim3(kThreads)>>>(A, B, C, M, N, K);
}

}  // namespace lesson13
