// Lab 1 with float4 loads of B and float4 stores of C for every full group of 4
// columns, and scalar code for the last N % 4 columns. The catch: a float4 access
// must be 16-byte aligned, and when N is not a multiple of 4, row k of B starts at
// k * N floats, which is not -- B[k][4 q] is then a misaligned float4 (a fault on
// the GPU). At N = 128 every row is aligned and it works.
#include <cuda_runtime.h>

#include "matmul_labs.hpp"

namespace lesson13 {
namespace {

__global__ void mm_quads(const float* A, const float* B, float* C, int M, int N, int K) {
  const int q = blockIdx.x * blockDim.x + threadIdx.x;  // columns 4q .. 4q+3
  const int row = blockIdx.y * blockDim.y + threadIdx.y;
  const int col = 4 * q;
  if (row >= M || col >= N) return;
  if (col + 3 < N) {
    float4 acc = make_float4(0.0f, 0.0f, 0.0f, 0.0f);
    for (int k = 0; k < K; ++k) {
      const float a = A[size_t(row) * K + k];
      const float4 b = *reinterpret_cast<const float4*>(B + size_t(k) * N + col);  // misaligned if N % 4 != 0
      acc.x += a * b.x;
      acc.y += a * b.y;
      acc.z += a * b.z;
      acc.w += a * b.w;
    }
    *reinterpret_cast<float4*>(C + size_t(row) * N + col) = acc;
  } else {
    for (int c = col; c < N; ++c) {  // scalar tail: the last N % 4 columns
      float acc = 0.0f;
      for (int k = 0; k < K; ++k) acc += A[size_t(row) * K + k] * B[size_t(k) * N + c];
      C[size_t(row) * N + c] = acc;
    }
  }
}

}  // namespace

void matmul_coalesced(const float* A, const float* B, float* C, int M, int N, int K) {
  const int quads = (N + 3) / 4;
  const dim3 block(32, 8);
  mm_quads<<<dim3((quads + 31) / 32, (M + 7) / 8), block>>>(A, B, C, M, N, K);
}

}  // namespace lesson13
