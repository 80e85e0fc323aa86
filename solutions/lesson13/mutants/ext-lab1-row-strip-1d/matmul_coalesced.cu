// Lab 1, my version: one block per strip of 128 columns of a single row of C.
// threadIdx.x walks along the row, so a warp touches 32 neighbouring columns:
// B[k][col..col+31] is one 128-byte line and A[row][k] is a broadcast.
#include <cuda_runtime.h>

#include "matmul_labs.hpp"

namespace lesson13 {
namespace {

constexpr int kStrip = 128;

__global__ void rowstrip_kernel(const float* __restrict__ A, const float* __restrict__ B,
                                float* __restrict__ C, int M, int N, int K) {
  const int col = blockIdx.x * kStrip + threadIdx.x;
  const int row = blockIdx.y;
  if (row >= M || col >= N) return;
  const float* a = A + size_t(row) * K;
  const float* b = B + col;
  float sum = 0.0f;
  int k = 0;
  for (; k + 4 <= K; k += 4) {
    sum += a[k + 0] * b[size_t(k + 0) * N];
    sum += a[k + 1] * b[size_t(k + 1) * N];
    sum += a[k + 2] * b[size_t(k + 2) * N];
    sum += a[k + 3] * b[size_t(k + 3) * N];
  }
  for (; k < K; ++k) sum += a[k] * b[size_t(k) * N];
  C[size_t(row) * N + col] = sum;
}

}  // namespace

void matmul_coalesced(const float* A, const float* B, float* C, int M, int N, int K) {
  const dim3 threads(kStrip);
  const dim3 blocks((N + kStrip - 1) / kStrip, M);
  rowstrip_kernel<<<blocks, threads>>>(A, B, C, M, N, K);
}

}  // namespace lesson13
