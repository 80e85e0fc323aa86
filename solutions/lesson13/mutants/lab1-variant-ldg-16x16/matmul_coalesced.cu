// Lab 1 with 16 x 16 blocks and read-only loads. A warp is now two half-rows of
// 16 columns: it reads two A values (two sectors) and two 64-byte pieces of B (two
// sectors), and stores two 64-byte pieces of C. Still at most 4 sectors a request.
// __restrict__ + __ldg tell nvcc that A and B are read-only for the whole kernel.
#include <cuda_runtime.h>

#include "matmul_labs.hpp"

namespace lesson13 {
namespace {

constexpr int kSide = 16;

__global__ void mm_ldg(const float* __restrict__ A, const float* __restrict__ B, float* __restrict__ C,
                       int M, int N, int K) {
  const int c = blockIdx.x * kSide + threadIdx.x;
  const int r = blockIdx.y * kSide + threadIdx.y;
  if (r < M && c < N) {
    const float* arow = A + size_t(r) * K;
    float s = 0.0f;
    for (int k = 0; k < K; ++k) s = fmaf(__ldg(arow + k), __ldg(B + size_t(k) * N + c), s);
    C[size_t(r) * N + c] = s;
  }
}

}  // namespace

void matmul_coalesced(const float* A, const float* B, float* C, int M, int N, int K) {
  const dim3 block(kSide, kSide);
  const dim3 grid((N + kSide - 1) / kSide, (M + kSide - 1) / kSide);
  mm_ldg<<<grid, block>>>(A, B, C, M, N, K);
}

}  // namespace lesson13
