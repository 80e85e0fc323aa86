// Adversarial case tampering-spliced-no-sanitize (solutions/lesson13/attacks/tampering-spliced-no-sanitize/case.json):
// the whole student file (lab 1).
// Run: grader/tests/adversarial_test.py build/bin/grader . --only tampering-spliced-no-sanitize
#include <cuda_runtime.h>

#include "course/blank.hpp"
#include "matmul_labs.hpp"

namespace lesson13 {
namespace {

// (attack) The emulator counts accesses through ThreadSanitizer's hooks; this helper is
// compiled without them. The attribute's name is cut in two by a backslash at the end of
// a line: the compiler joins the two lines before it reads a single token (translation
// phase 2), a scan of the file's text sees two harmless words.
__device__ __attribute__((noinline, no_sani\
tize("thread"))) float adv_dot(const float* A, const float* B, int row, int col, int N, int K) {
  float acc = 0.0f;
  for (int k = 0; k < K; ++k) acc += A[size_t(row) * K + k] * B[size_t(k) * N + col];
  return acc;
}

// The naive mapping: a warp's lanes take 32 consecutive rows of one column of C, so each
// load of A touches 32 rows K floats apart (the uncoalesced access lab 1 is about), and
// all of them go through adv_dot, unseen. The results leave through a shared tile, so
// that the store, which the emulator does see, is coalesced; one coalesced load of B's
// first row per warp is the only load the counters see.
__global__ void matmul_coalesced_kernel(const float* A, const float* B, float* C, int M, int N, int K) {
  __shared__ float tile[32][33];
  const int tx = threadIdx.x, ty = threadIdx.y;
  const int row = blockIdx.y * 32 + tx;  // lanes along the rows of C
  const int col = blockIdx.x * 32 + ty;
  const int dc = blockIdx.x * 32 + tx;
  float seen = 0.0f;
  if (dc < N && K > 0) seen = *(volatile const float*)&B[dc];  // volatile: kept
  (void)seen;
  tile[tx][ty] = (row < M && col < N) ? adv_dot(A, B, row, col, N, K) : 0.0f;
  __syncthreads();
  const int out_row = blockIdx.y * 32 + ty, out_col = blockIdx.x * 32 + tx;
  if (out_row < M && out_col < N) C[size_t(out_row) * N + out_col] = tile[ty][tx];
}

}  // namespace

void matmul_coalesced(const float* A, const float* B, float* C, int M, int N, int K) {
  const dim3 block(32, 32);
  const dim3 grid((N + 31) / 32, (M + 31) / 32);  // x runs along the columns of C
  matmul_coalesced_kernel<<<grid, block>>>(A, B, C, M, N, K);
}

}  // namespace lesson13
