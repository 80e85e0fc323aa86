// Kernels for test_shared_memory.cpp: shared-memory accesses through many
// barriers, and 8- and 16-byte shared accesses. Plain CUDA.
#include <cuda_runtime.h>

#include "shared_memory.hpp"

__global__ void adv_barrier_loop_kernel(float* out, int steps) {
  __shared__ float adv_rot[2][1024];
  const int t = threadIdx.x, n = blockDim.x;
  adv_rot[0][t] = float(t);
  __syncthreads();
  for (int s = 0; s < steps; ++s) {
    const int cur = s & 1;
    adv_rot[cur ^ 1][t] = adv_rot[cur][(t + 1) % n];
    __syncthreads();
  }
  out[t] = adv_rot[steps & 1][t];
}
void adv_barrier_loop(float* out, int threads, int steps) {
  adv_barrier_loop_kernel<<<1, threads>>>(out, steps);
}

__global__ void adv_shared_double_kernel(const double* in, double* out) {
  __shared__ double adv_dbl[32];
  const int t = threadIdx.x;
  adv_dbl[t] = in[t];
  __syncthreads();
  out[t] = adv_dbl[31 - t];
}
void adv_shared_double(const double* in, double* out) {
  adv_shared_double_kernel<<<1, 32>>>(in, out);
}

__global__ void adv_shared_float4_kernel(const float4* in, float4* out) {
  __shared__ float4 adv_f4[32];
  const int t = threadIdx.x;
  adv_f4[t] = in[t];  // one 16-byte store per lane, 512 contiguous bytes
  __syncthreads();
  out[t] = adv_f4[31 - t];
}
void adv_shared_float4(const float4* in, float4* out) {
  adv_shared_float4_kernel<<<1, 32>>>(in, out);
}
