// Lab 1 with flatter blocks: 32 x 8 threads. threadIdx.x (32 wide, one warp per
// value of threadIdx.y) walks along the columns, so each warp covers 32
// consecutive columns of a single row of C.
#include <cuda_runtime.h>

#include "matmul_labs.hpp"

namespace lesson13 {
namespace {

constexpr int BX = 32, BY = 8;

__global__ void sgemm_coalesced_32x8(const float* A, const float* B, float* C, int M, int N, int K) {
  const int x = blockIdx.x * BX + threadIdx.x;  // column of C
  const int y = blockIdx.y * BY + threadIdx.y;  // row of C
  if (x < N && y < M) {
    float tmp = 0.0f;
    for (int i = 0; i < K; ++i) tmp += A[size_t(y) * K + i] * B[size_t(i) * N + x];
    C[size_t(y) * N + x] = tmp;
  }
}

}  // namespace

void matmul_coalesced(const float* A, const float* B, float* C, int M, int N, int K) {
  dim3 threads(BX, BY);
  dim3 blocks((N + BX - 1) / BX, (M + BY - 1) / BY);
  sgemm_coalesced_32x8<<<blocks, threads>>>(A, B, C, M, N, K);
}

}  // namespace lesson13
