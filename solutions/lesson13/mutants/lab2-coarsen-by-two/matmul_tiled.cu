// Lab 2 where the "coarsened" kernel only doubles the work per thread: a 32 x 16
// tile of C per block of 16 x 16 threads, each thread two outputs (rows ty and
// ty + 16) of one column. Correct, but 3 shared loads per k now feed 2 outputs: 1.5
// per output instead of the tiled kernel's 2, nowhere near half.
#include <cuda_runtime.h>

#include "matmul_labs.hpp"

namespace lesson13 {
namespace {

constexpr int T = kTile;

__global__ void tiled(const float* A, const float* B, float* C, int M, int N, int K) {
  __shared__ float As[T][T];
  __shared__ float Bs[T][T];
  const int tx = threadIdx.x, ty = threadIdx.y;
  const int row = blockIdx.y * T + ty, col = blockIdx.x * T + tx;
  float acc = 0.0f;
  for (int k0 = 0; k0 < K; k0 += T) {
    As[ty][tx] = (row < M && k0 + tx < K) ? A[size_t(row) * K + k0 + tx] : 0.0f;
    Bs[ty][tx] = (k0 + ty < K && col < N) ? B[size_t(k0 + ty) * N + col] : 0.0f;
    __syncthreads();
    for (int k = 0; k < T; ++k) acc += As[ty][k] * Bs[k][tx];
    __syncthreads();
  }
  if (row < M && col < N) C[size_t(row) * N + col] = acc;
}

__global__ void two_rows_per_thread(const float* A, const float* B, float* C, int M, int N, int K) {
  __shared__ float As[2 * T][T];
  __shared__ float Bs[T][T];
  const int tx = threadIdx.x, ty = threadIdx.y;
  const int row_a = blockIdx.y * 2 * T + ty, row_b = row_a + T;
  const int col = blockIdx.x * T + tx;
  float acc_a = 0.0f, acc_b = 0.0f;
  for (int k0 = 0; k0 < K; k0 += T) {
    As[ty][tx] = (row_a < M && k0 + tx < K) ? A[size_t(row_a) * K + k0 + tx] : 0.0f;
    As[ty + T][tx] = (row_b < M && k0 + tx < K) ? A[size_t(row_b) * K + k0 + tx] : 0.0f;
    Bs[ty][tx] = (k0 + ty < K && col < N) ? B[size_t(k0 + ty) * N + col] : 0.0f;
    __syncthreads();
    for (int k = 0; k < T; ++k) {
      const float b = Bs[k][tx];
      acc_a += As[ty][k] * b;
      acc_b += As[ty + T][k] * b;
    }
    __syncthreads();
  }
  if (col < N) {
    if (row_a < M) C[size_t(row_a) * N + col] = acc_a;
    if (row_b < M) C[size_t(row_b) * N + col] = acc_b;
  }
}

}  // namespace

void matmul_tiled(const float* A, const float* B, float* C, int M, int N, int K) {
  tiled<<<dim3((N + T - 1) / T, (M + T - 1) / T), dim3(T, T)>>>(A, B, C, M, N, K);
}

void matmul_coarsened(const float* A, const float* B, float* C, int M, int N, int K) {
  two_rows_per_thread<<<dim3((N + T - 1) / T, (M + 2 * T - 1) / (2 * T)), dim3(T, T)>>>(A, B, C, M, N, K);
}

}  // namespace lesson13
