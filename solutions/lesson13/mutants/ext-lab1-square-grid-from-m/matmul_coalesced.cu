// Lab 1: siboehm-style global-memory coalescing, with a 1-D block of 32 x 32 threads.
// threadIdx.x % 32 picks the column inside the tile, threadIdx.x / 32 the row.
#include <cuda_runtime.h>

#include "matmul_labs.hpp"

namespace lesson13 {
namespace {

#define CEIL_DIV(a, b) (((a) + (b) - 1) / (b))
constexpr int BLOCKSIZE = 32;

__global__ void sgemm_global_mem_coalesce(const float* A, const float* B, float* C, int M, int N,
                                          int K) {
  const int cRow = blockIdx.y * BLOCKSIZE + (threadIdx.x / BLOCKSIZE);
  const int cCol = blockIdx.x * BLOCKSIZE + (threadIdx.x % BLOCKSIZE);
  if (cRow < M && cCol < N) {
    float tmp = 0.0f;
    for (int i = 0; i < K; ++i) tmp += A[size_t(cRow) * K + i] * B[size_t(i) * N + cCol];
    C[size_t(cRow) * N + cCol] = tmp;
  }
}

}  // namespace

void matmul_coalesced(const float* A, const float* B, float* C, int M, int N, int K) {
  // One 32 x 32 tile of C per block.
  const int tiles = CEIL_DIV(M, BLOCKSIZE);
  dim3 gridDim(tiles, tiles);
  dim3 blockDim(BLOCKSIZE * BLOCKSIZE);
  sgemm_global_mem_coalesce<<<gridDim, blockDim>>>(A, B, C, M, N, K);
}

}  // namespace lesson13
