// Lesson 13 lab 1: make the naive matmul's memory accesses coalesced.
// Fill in the BLANKs, then grade with: grader lesson13 --unit lab_coalescing
//
// Adapted from the "global memory coalescing" kernel of the SGEMM worklog: a 1-D
// block of 32 * 32 threads per 32 x 32 tile of C, the thread's place in the tile
// computed from threadIdx.x with / and %.
// API: lessons/lesson13/include/matmul_labs.hpp.
#include <cuda_runtime.h>

#include "course/blank.hpp"
#include "matmul_labs.hpp"

namespace lesson13 {
namespace {

constexpr int BLOCKSIZE = 32;

__global__ void sgemm_global_mem_coalesce(int M, int N, int K, const float* A, const float* B, float* C) {
  // Tile of C: blockIdx.y picks the band of rows, blockIdx.x the band of columns.
  const int cRow = blockIdx.y * BLOCKSIZE + (threadIdx.x % BLOCKSIZE);
  const int cCol = blockIdx.x * BLOCKSIZE + (threadIdx.x / BLOCKSIZE);

  if (cRow < M && cCol < N) {
    float tmp = 0.0f;
    for (int i = 0; i < K; ++i) tmp += A[size_t(cRow) * K + i] * B[size_t(i) * N + cCol];
    C[size_t(cRow) * N + cCol] = tmp;
  }
}

}  // namespace

void matmul_coalesced(const float* A, const float* B, float* C, int M, int N, int K) {
  const dim3 block(BLOCKSIZE * BLOCKSIZE);
  const dim3 grid((N + BLOCKSIZE - 1) / BLOCKSIZE, (M + BLOCKSIZE - 1) / BLOCKSIZE);  // x runs along the columns of C
  sgemm_global_mem_coalesce<<<grid, block>>>(M, N, K, A, B, C);
}

}  // namespace lesson13
