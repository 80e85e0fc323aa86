// Lesson 13 lab 1: make the naive matmul's memory accesses coalesced.
// Fill in the BLANKs, then grade with: grader lesson13 --unit lab_coalescing
//
// The naive kernel (lessons/lesson13/reference/matmul_naive.cu) gives threadIdx.x
// to the rows of C, so a warp reads 32 rows of A that are K floats apart. Here the
// launch below puts blockIdx.x/threadIdx.x along the columns of C: map them so
// that consecutive threads of a warp handle consecutive columns. API:
// lessons/lesson13/include/matmul_labs.hpp.
#include <cuda_runtime.h>

#include "course/blank.hpp"
#include "matmul_labs.hpp"

namespace lesson13 {
namespace {

__global__ void matmul_coalesced_kernel(const float* A, const float* B, float* C, int M, int N, int K) {
  // Which output C[row][col] this thread computes.
  const int row = blockIdx.y * blockDim.y + threadIdx.y;
  const int col = blockIdx.x * blockDim.x + threadIdx.x;
  if (row >= M || col >= N) return;
  float acc = 0.0f;
  // Read the shared row of A four floats at a time (one 16-byte load), then the
  // K % 4 leftovers one by one.
  const float* a_row = A + size_t(row) * K;
  const float4* a4 = reinterpret_cast<const float4*>(a_row);
  const int quads = K / 4;
  for (int q = 0; q < quads; ++q) {
    const float4 a = a4[q];
    const size_t k = size_t(4) * q;
    acc += a.x * B[k * N + col];
    acc += a.y * B[(k + 1) * N + col];
    acc += a.z * B[(k + 2) * N + col];
    acc += a.w * B[(k + 3) * N + col];
  }
  for (int k = 4 * quads; k < K; ++k) acc += a_row[k] * B[size_t(k) * N + col];  // the tail
  C[size_t(row) * N + col] = acc;
}

}  // namespace

void matmul_coalesced(const float* A, const float* B, float* C, int M, int N, int K) {
  const dim3 block(32, 32);
  const dim3 grid((N + 31) / 32, (M + 31) / 32);  // x runs along the columns of C
  matmul_coalesced_kernel<<<grid, block>>>(A, B, C, M, N, K);
}

}  // namespace lesson13
