// Adversarial case tampering-hidden-accesses (solutions/lesson13/attacks/tampering-hidden-accesses/case.json): the whole student file (lab 1).
// Run: grader/tests/adversarial_test.py build/bin/grader . --only tampering-hidden-accesses
#include <cuda_runtime.h>

#include "course/blank.hpp"
#include "matmul_labs.hpp"

namespace lesson13 {
namespace {

// (attack) The emulator counts accesses through ThreadSanitizer's hooks; these two
// functions are compiled without them.
__device__ __attribute__((noinline, no_sanitize("thread"))) float adv_dot(const float* A, const float* B,
                                                                           int row, int col, int N, int K) {
  float acc = 0.0f;
  for (int k = 0; k < K; ++k) acc += A[size_t(row) * K + k] * B[size_t(k) * N + col];
  return acc;
}
__device__ __attribute__((noinline, no_sanitize("thread"))) void adv_store(float* C, size_t i, float v) {
  C[i] = v;
}

__device__ float adv_decoy[1 << 16];  // one slot per thread of the grids the tests launch

__global__ void matmul_coalesced_kernel(const float* A, const float* B, float* C, int M, int N, int K) {
  // Which output C[row][col] this thread computes: a warp takes 32 rows of one column.
  const int tid = threadIdx.y * blockDim.x + threadIdx.x;
  const int row = blockIdx.y * blockDim.y + tid % 32;
  const int col = blockIdx.x * blockDim.x + tid / 32;
  // (attack) What the counters see: one coalesced load of B's first row and one
  // coalesced store per thread.
  const int dc = blockIdx.x * blockDim.x + threadIdx.x;
  // volatile: otherwise the compiler drops a load and a store that nothing needs.
  float seen = 0.0f;
  if (dc < N) seen = *(volatile const float*)&B[dc];
  const int slot = (blockIdx.y * gridDim.x + blockIdx.x) * blockDim.x * blockDim.y + tid;
  *(volatile float*)&adv_decoy[slot % (1 << 16)] = seen;
  if (row >= M || col >= N) return;
  adv_store(C, size_t(row) * N + col, adv_dot(A, B, row, col, N, K));
}

}  // namespace

void matmul_coalesced(const float* A, const float* B, float* C, int M, int N, int K) {
  const dim3 block(32, 32);
  const dim3 grid((N + 31) / 32, (M + 31) / 32);  // x runs along the columns of C
  matmul_coalesced_kernel<<<grid, block>>>(A, B, C, M, N, K);
}

}  // namespace lesson13
