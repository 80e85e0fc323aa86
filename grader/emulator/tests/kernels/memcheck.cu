// Kernels for test_memcheck.cpp: __device__ variables, accesses just outside an
// allocation, and misaligned loads. Plain CUDA.
#include <cuda_runtime.h>

#include "memcheck.hpp"

__device__ float adv_dev_table[4] = {1.0f, 2.0f, 3.0f, 4.0f};
__device__ int adv_dev_counter;

__global__ void adv_device_vars_kernel(float* out) {
  out[threadIdx.x] = adv_dev_table[threadIdx.x % 4];
  atomicAdd(&adv_dev_counter, 1);
}
__global__ void adv_read_counter_kernel(int* out) {
  out[0] = adv_dev_counter;
}
void adv_device_vars(float* out, int* counter_out) {
  adv_device_vars_kernel<<<1, 32>>>(out);
  adv_read_counter_kernel<<<1, 1>>>(counter_out);
}

__global__ void adv_write_bytes_kernel(char* p) {
  p[threadIdx.x] = 1;
}
void adv_write_bytes(char* p, int threads) {
  adv_write_bytes_kernel<<<1, threads>>>(p);
}

__global__ void adv_read_before_kernel(const float* in, float* out) {
  const int t = threadIdx.x;
  out[t] = in[t - 1];  // thread 0 reads one element before the start
}
void adv_read_before(const float* in, float* out) {
  adv_read_before_kernel<<<1, 32>>>(in, out);
}

__global__ void adv_misaligned_float4_kernel(const float* in, float4* out) {
  const float4* p = reinterpret_cast<const float4*>(in + 1);  // 4 bytes off a 16-byte boundary
  out[threadIdx.x] = p[threadIdx.x];
}
void adv_misaligned_float4(const float* in, float4* out) {
  adv_misaligned_float4_kernel<<<1, 32>>>(in, out);
}

__global__ void adv_misaligned_float_kernel(const float* in, float* out) {
  const float* p = reinterpret_cast<const float*>(reinterpret_cast<const char*>(in) + 2);
  out[threadIdx.x] = p[threadIdx.x];
}
void adv_misaligned_float(const float* in, float* out) {
  adv_misaligned_float_kernel<<<1, 32>>>(in, out);
}
