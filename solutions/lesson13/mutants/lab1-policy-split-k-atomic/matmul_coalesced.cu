// Lab 1, written as split-k: blockIdx.z picks a slice of the K dimension, each thread
// sums its slice for one element of C and adds it in with atomicAdd. Consecutive lanes
// own consecutive columns, so B's loads and the atomics into C are coalesced.
#include <cuda_runtime.h>

#include "matmul_labs.hpp"

namespace lesson13 {
namespace {

constexpr int kSlices = 4;

__global__ void split_k_kernel(const float* A, const float* B, float* C, int M, int N, int K) {
  const int col = blockIdx.x * blockDim.x + threadIdx.x;
  const int row = blockIdx.y * blockDim.y + threadIdx.y;
  if (row >= M || col >= N) return;
  const int per_slice = (K + kSlices - 1) / kSlices;
  const int k0 = blockIdx.z * per_slice, k1 = min(K, k0 + per_slice);
  if (k0 >= k1) return;
  float partial = 0.0f;
  for (int k = k0; k < k1; ++k) partial += A[size_t(row) * K + k] * B[size_t(k) * N + col];
  atomicAdd(&C[size_t(row) * N + col], partial);
}

}  // namespace

void matmul_coalesced(const float* A, const float* B, float* C, int M, int N, int K) {
  cudaMemset(C, 0, sizeof(float) * size_t(M) * N);  // the slices add into zero
  const dim3 block(32, 8);
  const dim3 grid((N + 31) / 32, (M + 7) / 8, kSlices);
  split_k_kernel<<<grid, block>>>(A, B, C, M, N, K);
}

}  // namespace lesson13
