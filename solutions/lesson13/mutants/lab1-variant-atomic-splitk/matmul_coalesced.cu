// Lab 1 as a split-K matmul: the K dimension is cut into kSplits slices, blockIdx.z
// picks the slice, and each block adds its partial dot products into C with
// atomicAdd (several blocks add into every output, so the add must be atomic).
// C is cleared first by a small kernel of its own (coalesced plain stores).
// Mapping as in the lab: threadIdx.x along the columns of C.
#include <cuda_runtime.h>

#include "matmul_labs.hpp"

namespace lesson13 {
namespace {

constexpr int kSplits = 4;

__global__ void clear_c(float* C, size_t count) {
  const size_t i = size_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i < count) C[i] = 0.0f;
}

__global__ void matmul_splitk(const float* A, const float* B, float* C, int M, int N, int K, int chunk) {
  const int col = blockIdx.x * blockDim.x + threadIdx.x;
  const int row = blockIdx.y * blockDim.y + threadIdx.y;
  if (row >= M || col >= N) return;
  const int k_begin = blockIdx.z * chunk;
  const int k_end = min(K, k_begin + chunk);
  if (k_begin >= k_end) return;
  float part = 0.0f;
  for (int k = k_begin; k < k_end; ++k) part += A[size_t(row) * K + k] * B[size_t(k) * N + col];
  atomicAdd(&C[size_t(row) * N + col], part);
}

}  // namespace

void matmul_coalesced(const float* A, const float* B, float* C, int M, int N, int K) {
  const size_t count = size_t(M) * N;
  clear_c<<<unsigned((count + 255) / 256), 256>>>(C, count);
  const int chunk = (K + kSplits - 1) / kSplits;
  const dim3 block(32, 8);
  const dim3 grid((N + 31) / 32, (M + 7) / 8, kSplits);
  matmul_splitk<<<grid, block>>>(A, B, C, M, N, K, chunk);
}

}  // namespace lesson13
