// Kernels for test_coalescing.cpp: global accesses whose requests and sectors
// the emulator must count as ncu does (8- and 16-byte, misaligned, predicated,
// divergent loops, after a shuffle by half a warp). Plain CUDA.
#include <cuda_runtime.h>

#include "coalescing.hpp"

__global__ void adv_copy_double_kernel(const double* in, double* out) {
  out[threadIdx.x] = in[threadIdx.x];
}
void adv_copy_double(const double* in, double* out) {
  adv_copy_double_kernel<<<1, 32>>>(in, out);
}

__global__ void adv_copy_float4_kernel(const float4* in, float4* out) {
  out[threadIdx.x] = in[threadIdx.x];
}
void adv_copy_float4(const float4* in, float4* out) {
  adv_copy_float4_kernel<<<1, 32>>>(in, out);
}

__global__ void adv_misaligned_kernel(const float* in, float* out) {
  out[threadIdx.x] = in[threadIdx.x + 1];
}
void adv_misaligned(const float* in, float* out) {
  adv_misaligned_kernel<<<1, 32>>>(in, out);
}

__global__ void adv_stencil_kernel(const float* in, float* out) {
  const int t = threadIdx.x;
  float left = 0.0f;
  if (t > 0) left = in[t - 1];  // lane 0 skips this load
  out[t] = left + in[t];        // every lane: one request
}
void adv_stencil(const float* in, float* out) {
  adv_stencil_kernel<<<1, 32>>>(in, out);
}

__global__ void adv_triangular_kernel(const float* in, float* out) {
  const int t = threadIdx.x;
  float acc = 0.0f;
  for (int j = 0; j < t; ++j) acc += in[j];  // lane t runs t iterations
  out[t] = acc;                              // every lane: one request
}
void adv_triangular(const float* in, float* out) {
  adv_triangular_kernel<<<1, 32>>>(in, out);
}

__global__ void adv_odd_lanes_kernel(const float* in, float* out) {
  const int t = threadIdx.x;
  if (t & 1) out[t] = in[t];
}
void adv_odd_lanes(const float* in, float* out) {
  adv_odd_lanes_kernel<<<1, 32>>>(in, out);
}

__global__ void adv_grid_stride_kernel(const float* in, float* out, int n) {
  float acc = 0.0f;
  for (int i = threadIdx.x; i < n; i += blockDim.x) acc += in[i];
  out[threadIdx.x] = acc;
}
void adv_grid_stride(const float* in, float* out, int n) {
  adv_grid_stride_kernel<<<1, 32>>>(in, out, n);
}

__global__ void adv_serial_sum_kernel(const float* in, float* out, int n) {
  float acc = 0.0f;
  for (int i = 0; i < n; ++i) acc += in[i];
  out[0] = acc;
}
void adv_serial_sum(const float* in, float* out, int n) {
  adv_serial_sum_kernel<<<1, 1>>>(in, out, n);
}

// Lanes 0..15 shuffle with a 16-lane mask; then every lane stores once.
__global__ void adv_partial_mask_shuffle_kernel(int* out) {
  const int t = threadIdx.x;
  int v = t;
  if (t < 16) v = __shfl_down_sync(0x0000ffffu, v, 1);
  out[t] = v;
}
void adv_partial_mask_shuffle(int* out) {
  adv_partial_mask_shuffle_kernel<<<1, 32>>>(out);
}
