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

// The H200 vector and broadcast table (docs/emulator.md): 2^20 floats in and
// out, 256 threads a block; nvcc emits one LDG.E.64/.128 per lane for float2/float4.
__global__ void vec_copy_float_kernel(const float* a, float* o) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  o[i] = a[i];
}
__global__ void vec_copy_float2_kernel(const float* a, float* o) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  float2 v = reinterpret_cast<const float2*>(a)[i];
  v.x += 1.0f;  // touch the fields: g++'s SRA would split the load into two
  v.y += 1.0f;
  reinterpret_cast<float2*>(o)[i] = v;
}
__global__ void vec_copy_float4_kernel(const float* a, float* o) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  const float4 v = reinterpret_cast<const float4*>(a)[i];
  reinterpret_cast<float4*>(o)[i] = make_float4(v.x * 2.0f, v.y * 2.0f, v.z * 2.0f, v.w * 2.0f);
}
__global__ void vec_every_other_float4_kernel(const float* a, float* o) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  reinterpret_cast<float4*>(o)[i] = reinterpret_cast<const float4*>(a)[2 * i];
}
__global__ void vec_broadcast_float_kernel(const float* a, float* o) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  o[i] = a[blockIdx.x];
}
__global__ void vec_broadcast_float4_kernel(const float* a, float* o) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  const float4 v = reinterpret_cast<const float4*>(a)[blockIdx.x];
  reinterpret_cast<float4*>(o)[i] = make_float4(v.w, v.z, v.y, v.x);
}
__global__ void vec_stride32_kernel(const float* a, float* o, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  o[i] = a[(32 * i) % n];
}

void vec_table_kernel(int row, const float* a, float* o, int n) {
  const int b = 256;
  switch (row) {
    case 0:
      vec_copy_float_kernel<<<n / b, b>>>(a, o);
      break;
    case 1:
      vec_copy_float2_kernel<<<n / 2 / b, b>>>(a, o);
      break;
    case 2:
      vec_copy_float4_kernel<<<n / 4 / b, b>>>(a, o);
      break;
    case 3:
      vec_every_other_float4_kernel<<<n / 8 / b, b>>>(a, o);
      break;
    case 4:
      vec_broadcast_float_kernel<<<n / b, b>>>(a, o);
      break;
    case 5:
      vec_broadcast_float4_kernel<<<n / 4 / b, b>>>(a, o);
      break;
    default:
      vec_stride32_kernel<<<n / b, b>>>(a, o, n);
      break;
  }
}
