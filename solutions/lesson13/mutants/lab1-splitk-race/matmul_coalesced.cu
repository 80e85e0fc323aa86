// Lab 1 as split-K: blockIdx.z picks one of kSplits slices of K, and each block
// adds its partial sums into C with a plain C[i] += part. Coalesced mapping.
// The bug: the kSplits blocks that own the same outputs run at the same time on
// different SMs, and a plain read-modify-write of global memory is not atomic, so
// concurrent adds overwrite each other (a global-memory race: updates get lost).
#include <cuda_runtime.h>

#include "matmul_labs.hpp"

namespace lesson13 {
namespace {

constexpr int kSplits = 4;

__global__ void zero_output(float* C, size_t count) {
  const size_t i = size_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i < count) C[i] = 0.0f;
}

__global__ void splitk_accumulate(const float* A, const float* B, float* C, int M, int N, int K) {
  const int col = blockIdx.x * blockDim.x + threadIdx.x;
  const int row = blockIdx.y * blockDim.y + threadIdx.y;
  if (row >= M || col >= N) return;
  const int chunk = (K + kSplits - 1) / kSplits;
  const int k0 = blockIdx.z * chunk;
  const int k1 = min(K, k0 + chunk);
  float part = 0.0f;
  for (int k = k0; k < k1; ++k) part += A[size_t(row) * K + k] * B[size_t(k) * N + col];
  C[size_t(row) * N + col] += part;  // races with the other slices' blocks
}

}  // namespace

void matmul_coalesced(const float* A, const float* B, float* C, int M, int N, int K) {
  const size_t count = size_t(M) * N;
  zero_output<<<unsigned((count + 255) / 256), 256>>>(C, count);
  const dim3 block(32, 8);
  const dim3 grid((N + 31) / 32, (M + 7) / 8, kSplits);
  splitk_accumulate<<<grid, block>>>(A, B, C, M, N, K);
}

}  // namespace lesson13
