// Lab 1, my version: a 1-D launch. Every thread gets one linear output index
// i = row * N + col, so consecutive threads of a warp get consecutive columns of
// one row (when N is a multiple of 32 a warp never straddles two rows).
#include <cuda_runtime.h>

#include "matmul_labs.hpp"

namespace lesson13 {
namespace {

constexpr int kThreads = 256;

__global__ void mm_linear(const float* A, const float* B, float* C, int M, int N, int K) {
  const long long i = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i >= static_cast<long long>(M) * N) return;
  const int row = static_cast<int>(i / N);
  const int col = static_cast<int>(i % N);
  const float* a = A + static_cast<size_t>(row) * K;  // one row of A: the same address on every lane
  const float* b = B + col;                            // walk down column col of B
  float sum = 0.0f;
  for (int k = 0; k < K; ++k) {
    sum += a[k] * (*b);
    b += N;
  }
  C[i] = sum;
}

}  // namespace

void matmul_coalesced(const float* A, const float* B, float* C, int M, int N, int K) {
  const long long total = static_cast<long long>(M) * N;
  const unsigned blocks = static_cast<unsigned>((total + kThreads - 1) / kThreads);
  mm_linear<<<blocks, kThreads>>>(A, B, C, M, N, K);
}

}  // namespace lesson13
