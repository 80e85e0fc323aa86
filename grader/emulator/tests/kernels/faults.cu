// Kernels for test_faults.cpp: a divergent barrier, a 160 KB local array, an
// unfilled BLANK, endless loops, and a failing device assert. Plain CUDA.
#undef NDEBUG  // device assert() is tested; a Release build would drop it
#include <assert.h>
#include <cuda_runtime.h>

#include "faults.hpp"
#include "course/blank.hpp"

__global__ void adv_warp_returns_kernel(float* out) {
  if (threadIdx.x >= 32) return;  // warp 1 leaves
  __syncthreads();                // warp 0 waits here
  out[threadIdx.x] = 1.0f;
}
void adv_warp_returns_before_barrier(float* out) {
  adv_warp_returns_kernel<<<1, 64>>>(out);
}

__global__ void adv_big_local_array_kernel(float* out) {
  volatile float local[40000];  // 160 KB of local memory (a GPU allows 512 KB)
  for (int i = 0; i < 40000; ++i) local[i] = float(i);
  out[threadIdx.x] = local[39999];
}
void adv_big_local_array(float* out) {
  adv_big_local_array_kernel<<<1, 1>>>(out);
}

__global__ void adv_blank_kernel(float* out) {
  __shared__ float adv_stage[64];
  const int t = threadIdx.x;
  adv_stage[t] = float(t);
  __syncthreads();
  if (blockIdx.x == 1 && t == 5) BLANK_STMT(adv_blank);
  __syncthreads();
  out[blockIdx.x * 64 + t] = adv_stage[63 - t];
}
void adv_blank(float* out, int blocks) {
  adv_blank_kernel<<<blocks, 64>>>(out);
}

__global__ void adv_spin_kernel(const volatile int* flag, int* out) {
  int spins = 0;
  while (flag[0] == 0) ++spins;
  out[0] = spins;
}
void adv_spin(const int* flag, int* out) {
  adv_spin_kernel<<<1, 1>>>(flag, out);
}

__global__ void adv_atomic_spin_kernel(int* flag) {
  while (atomicAdd(flag, 0) == 0) {
  }
}
void adv_atomic_spin(int* flag) {
  adv_atomic_spin_kernel<<<1, 1>>>(flag);
}

__device__ volatile int adv_dev_flag;

__global__ void adv_static_spin_kernel() {
  while (adv_dev_flag == 0) {
  }
}
void adv_static_spin() {
  adv_static_spin_kernel<<<1, 1>>>();
}

__global__ void adv_device_assert_kernel(int* p) {
  assert(p[threadIdx.x] == 0);  // fails in thread 3
}
void adv_device_assert(int* p) {
  adv_device_assert_kernel<<<1, 4>>>(p);
}
