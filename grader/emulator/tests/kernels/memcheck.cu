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

// A write far below its buffer (16 MiB), where another buffer may lie: memcheck
// must name it against the nearest allocation, however far out it lands.
__global__ void adv_write_far_below_kernel(float* out, long offset) {
  out[threadIdx.x - offset] = 1.0f;
}
void adv_write_far_below(float* out, long offset_floats) {
  adv_write_far_below_kernel<<<1, 32>>>(out, offset_floats);
}

// Atomics: one request per warp, and checked like any access.
__global__ void adv_atomic_count_kernel(int* counter, long offset) {
  atomicAdd(counter + offset, 1);
}
void adv_atomic_count(int* counter, long offset, int threads) {
  adv_atomic_count_kernel<<<1, threads>>>(counter, offset);
}

// A static __device__ array is device memory: its stores and loads count.
__device__ float adv_dev_scores[64 * 64];
__global__ void adv_device_scores_kernel(float* out) {
  const int t = threadIdx.x;
  for (int j = 0; j < 64; ++j) adv_dev_scores[t * 64 + j] = float(t + j);
  __syncthreads();
  float acc = 0.0f;
  for (int j = 0; j < 64; ++j) acc += adv_dev_scores[j * 64 + t];
  out[t] = acc;
}
void adv_device_scores(float* out) {
  adv_device_scores_kernel<<<1, 64>>>(out);
}

// A per-thread local array of n floats (local memory on a GPU).
__global__ void adv_local_array_kernel(const float* in, float* out, int n) {
  float row[1024];
  for (int j = 0; j < n; ++j) row[j] = in[j];
  float acc = 0.0f;
  for (int j = n - 1; j >= 0; --j) acc += row[j];
  out[threadIdx.x] = acc;
}
void adv_local_array(const float* in, float* out, int n) {
  adv_local_array_kernel<<<1, 32>>>(in, out, n);
}

// Every thread publishes the address of a local array of its own; after the barrier each
// reads its neighbour's (thread t reads thread t - 1's, on the stack just below its own).
__global__ void adv_neighbour_local_kernel(float* out) {
  __shared__ volatile float* published[64];
  volatile float mine[4] = {1.0f, 2.0f, 3.0f, float(threadIdx.x)};
  published[threadIdx.x] = mine;
  __syncthreads();
  out[threadIdx.x] = published[(threadIdx.x + 63) % 64][3];
  __syncthreads();  // the neighbour's frame is still there while it is read
}
void adv_neighbour_local(float* out) {
  adv_neighbour_local_kernel<<<1, 64>>>(out);
}
