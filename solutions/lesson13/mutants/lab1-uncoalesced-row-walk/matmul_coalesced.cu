// Lab 1, but I kept the "natural" picture of the naive kernel: a 1-D block of 256
// threads walks down the rows of one column of C (threadIdx.x -> row,
// blockIdx.y -> column). Every launch parameter matches the mapping, so the
// results are right -- but a warp's 32 lanes read 32 different rows of A, K floats
// apart, and store 32 different rows of C.
#include <cuda_runtime.h>

#include "matmul_labs.hpp"

namespace lesson13 {
namespace {

__global__ void matmul_down_rows(const float* A, const float* B, float* C, int M, int N, int K) {
  const int row = blockIdx.x * blockDim.x + threadIdx.x;
  const int col = blockIdx.y;
  if (row >= M) return;
  float acc = 0.0f;
  for (int k = 0; k < K; ++k) acc += A[size_t(row) * K + k] * B[size_t(k) * N + col];
  C[size_t(row) * N + col] = acc;
}

}  // namespace

void matmul_coalesced(const float* A, const float* B, float* C, int M, int N, int K) {
  const int threads = 256;
  matmul_down_rows<<<dim3((M + threads - 1) / threads, N), threads>>>(A, B, C, M, N, K);
}

}  // namespace lesson13
