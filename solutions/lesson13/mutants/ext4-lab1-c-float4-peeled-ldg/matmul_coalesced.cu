// Lesson 13 lab 1: make the naive matmul's memory accesses coalesced.
// Fill in the BLANKs, then grade with: grader lesson13 --unit lab_coalescing
//
// Variant: one output per thread, threadIdx.x along the columns of C (the launch's
// 32 x 32 blocks, unchanged). The row of A that every lane of a warp shares is read
// 16 bytes at a time: a scalar head up to the first 16-byte boundary of the row, a
// float4 body, and a scalar tail, so every float4 load is aligned whatever K is.
// B is read through __ldg and const __restrict__ pointers. API:
// lessons/lesson13/include/matmul_labs.hpp.
#include <cuda_runtime.h>

#include "course/blank.hpp"
#include "matmul_labs.hpp"

namespace lesson13 {
namespace {

__global__ void matmul_coalesced_kernel(const float* __restrict__ A, const float* __restrict__ B,
                                        float* __restrict__ C, int M, int N, int K) {
  // Which output C[row][col] this thread computes.
  const int row = blockIdx.y * blockDim.y + threadIdx.y;  // this thread's row of C, along the grid's y
  const int col = blockIdx.x * blockDim.x + threadIdx.x;  // its column: a warp's lanes, neighbouring columns
  if (row >= M || col >= N) return;

  const float* __restrict__ a_row = A + size_t(row) * K;
  // Floats before the first 16-byte boundary of this row (0..3), at most K.
  int head = int(((16 - (reinterpret_cast<size_t>(a_row) & 15)) & 15) / 4);
  if (head > K) head = K;
  const int quads = (K - head) / 4;

  float acc = 0.0f;
  int k = 0;
  for (; k < head; ++k) acc += a_row[k] * __ldg(B + size_t(k) * N + col);
  const float4* a4 = reinterpret_cast<const float4*>(a_row + head);  // 16-byte aligned
  for (int q = 0; q < quads; ++q, k += 4) {
    const float4 a = a4[q];  // the same 16 bytes for every lane: a one-sector broadcast
    acc += a.x * __ldg(B + size_t(k) * N + col);
    acc += a.y * __ldg(B + size_t(k + 1) * N + col);
    acc += a.z * __ldg(B + size_t(k + 2) * N + col);
    acc += a.w * __ldg(B + size_t(k + 3) * N + col);
  }
  for (; k < K; ++k) acc += a_row[k] * __ldg(B + size_t(k) * N + col);  // scalar tail
  C[size_t(row) * N + col] = acc;
}

}  // namespace

void matmul_coalesced(const float* A, const float* B, float* C, int M, int N, int K) {
  const dim3 block(32, 32);
  const dim3 grid((N + 31) / 32, (M + 31) / 32);  // x runs along the columns of C
  matmul_coalesced_kernel<<<grid, block>>>(A, B, C, M, N, K);
}

}  // namespace lesson13
