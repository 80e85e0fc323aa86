// Lab 1, a little coarsened: each thread computes 4 outputs of one row, at
// columns c, c + 32, c + 64 and c + 96 of its block's 128-column strip. For each of
// the four the warp's lanes still touch 32 consecutive floats, and A[row][k] is
// loaded once per k and reused for all four (from a register).
#include <cuda_runtime.h>

#include "matmul_labs.hpp"

namespace lesson13 {
namespace {

constexpr int kWarp = 32;
constexpr int kPerThread = 4;
constexpr int kStrip = kWarp * kPerThread;  // columns of C per block
constexpr int kRows = 4;                    // rows of C per block (one warp each)

__global__ void matmul_cols4(const float* A, const float* B, float* C, int M, int N, int K) {
  const int row = blockIdx.y * kRows + threadIdx.y;
  const int base = blockIdx.x * kStrip + threadIdx.x;
  if (row >= M) return;
  float acc[kPerThread] = {0.0f, 0.0f, 0.0f, 0.0f};
  for (int k = 0; k < K; ++k) {
    const float a = A[size_t(row) * K + k];
    const float* brow = B + size_t(k) * N;
    for (int j = 0; j < kPerThread; ++j) {
      const int col = base + j * kWarp;
      if (col < N) acc[j] += a * brow[col];
    }
  }
  for (int j = 0; j < kPerThread; ++j) {
    const int col = base + j * kWarp;
    if (col < N) C[size_t(row) * N + col] = acc[j];
  }
}

}  // namespace

void matmul_coalesced(const float* A, const float* B, float* C, int M, int N, int K) {
  const dim3 block(kWarp, kRows);
  const dim3 grid((N + kStrip - 1) / kStrip, (M + kRows - 1) / kRows);
  matmul_cols4<<<grid, block>>>(A, B, C, M, N, K);
}

}  // namespace lesson13
