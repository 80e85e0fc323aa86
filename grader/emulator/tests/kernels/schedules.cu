// Kernels for test_schedules.cpp: order bugs that an in-order emulator cannot see
// (a __syncwarp where __syncthreads is needed, one thread staging a tile with no
// barrier after it, blocks that depend on each other, non-atomic split-K), their
// correct forms, and global-memory races within a block. Plain CUDA.
#include <cuda_runtime.h>

#include "schedules.hpp"

namespace {
constexpr int T = 16;
}

__global__ void sched_tiled_kernel(const float* A, const float* B, float* C, int n, int barrier) {
  __shared__ float As[T][T];
  __shared__ float Bs[T][T];
  const int tx = threadIdx.x, ty = threadIdx.y;
  const int row = blockIdx.y * T + ty, col = blockIdx.x * T + tx;
  float acc = 0.0f;
  for (int k0 = 0; k0 < n; k0 += T) {
    if (barrier == 2) {
      if (tx == 0 && ty == 0)
        for (int i = 0; i < T; ++i)
          for (int j = 0; j < T; ++j) {
            As[i][j] = A[(blockIdx.y * T + i) * n + k0 + j];
            Bs[i][j] = B[(k0 + i) * n + blockIdx.x * T + j];
          }
    } else {
      As[ty][tx] = A[row * n + k0 + tx];
      Bs[ty][tx] = B[(k0 + ty) * n + col];
    }
    if (barrier == 0) __syncthreads();
    if (barrier == 1) __syncwarp();
    for (int k = 0; k < T; ++k) acc += As[ty][k] * Bs[k][tx];
    if (barrier != 1) __syncthreads();  // thread 0's staging (2) is ordered only here
    if (barrier == 1) __syncwarp();
  }
  C[row * n + col] = acc;
}
void sched_tiled_matmul(const float* A, const float* B, float* C, int n, int barrier) {
  sched_tiled_kernel<<<dim3(n / T, n / T), dim3(T, T)>>>(A, B, C, n, barrier);
}

__global__ void sched_split_k_kernel(const float* A, const float* B, float* C, int m, int n, int k,
                                     int splits, bool atomic) {
  const int row = blockIdx.y * blockDim.y + threadIdx.y,
            col = blockIdx.x * blockDim.x + threadIdx.x;
  if (row >= m || col >= n) return;
  const int chunk = (k + splits - 1) / splits, k0 = blockIdx.z * chunk;
  float partial = 0.0f;
  for (int i = k0; i < k0 + chunk && i < k; ++i) partial += A[row * k + i] * B[i * n + col];
  if (atomic)
    atomicAdd(&C[row * n + col], partial);
  else
    C[row * n + col] += partial;
}
void sched_split_k(const float* A, const float* B, float* C, int m, int n, int k, int splits,
                   bool atomic) {
  const dim3 block(16, 16), grid((n + 15) / 16, (m + 15) / 16, splits);
  sched_split_k_kernel<<<grid, block>>>(A, B, C, m, n, k, splits, atomic);
}

__global__ void sched_chained_kernel(const float* in, float* out, int n) {
  const int i = blockIdx.x * 32 + threadIdx.x;
  if (i >= n) return;
  const float before = blockIdx.x == 0 ? 0.0f : out[blockIdx.x * 32 - 1];
  float sum = before;
  for (int j = blockIdx.x * 32; j <= i; ++j) sum += in[j];
  out[i] = sum;
}
void sched_chained_blocks(const float* in, float* out, int n) {
  sched_chained_kernel<<<(n + 31) / 32, 32>>>(in, out, n);
}

__global__ void sched_neighbour_kernel(float* out, float* out2, int n, bool barrier) {
  const int t = threadIdx.x;
  out[t] = float(t);
  if (barrier) __syncthreads();
  out2[t] = out[(t + 1) % n];
}
void sched_neighbour(float* out, float* out2, int n, bool barrier) {
  sched_neighbour_kernel<<<1, n>>>(out, out2, n, barrier);
}

__global__ void sched_block_sum_kernel(const float* in, float* out, int n) {
  __shared__ float part[256];
  const int t = threadIdx.x, lane = t % 32;
  part[t] = t < n ? in[t] : 0.0f;
  __syncwarp();
  for (int s = 16; s > 0; s /= 2) {
    const float v = lane < s ? part[t + s] : 0.0f;
    __syncwarp();
    if (lane < s) part[t] += v;
    __syncwarp();
  }
  __syncthreads();
  if (t == 0) {
    float sum = 0.0f;
    for (int w = 0; w < int(blockDim.x); w += 32) sum += part[w];
    *out = sum;
  }
}
void sched_block_sum(const float* in, float* out, int n) {
  sched_block_sum_kernel<<<1, 256>>>(in, out, n);
}

__device__ int sched_counter;

__global__ void sched_counter_kernel(bool atomic) {
  if (threadIdx.x != 0) return;
  if (atomic)
    atomicAdd(&sched_counter, 1);
  else
    sched_counter = sched_counter + 1;
}
int sched_device_counter(int blocks, bool atomic) {
  const int zero = 0;
  cudaMemcpyToSymbol(sched_counter, &zero, sizeof zero);
  sched_counter_kernel<<<blocks, 32>>>(atomic);
  int got = 0;
  cudaMemcpyFromSymbol(&got, sched_counter, sizeof got);
  return got;
}
