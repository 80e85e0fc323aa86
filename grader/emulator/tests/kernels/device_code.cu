// Kernels for test_device_code.cpp: deep recursion through device functions,
// atomics on shared and global memory, printf, and min/max of float and double.
// Plain CUDA.
#include <cuda_runtime.h>
#include <limits.h>
#include <stdio.h>

#include "device_code.hpp"

__device__ int adv_leaf(const int* in, int i) {
  return in[i % 4];
}
__device__ int adv_middle(const int* in, int i) {
  return adv_leaf(in, i) + adv_leaf(in, i + 1);
}
__device__ int adv_recurse(const int* in, int depth) {
  volatile int local[16];
  for (int i = 0; i < 16; ++i) local[i] = depth + i;
  if (depth == 0) return adv_middle(in, 0);
  return local[depth % 16] - depth - depth % 16 + adv_recurse(in, depth - 1) + 1;
}
__global__ void adv_recursion_kernel(const int* in, int* out, int depth) {
  out[threadIdx.x] = adv_recurse(in, depth + int(threadIdx.x));
}
void adv_recursion(const int* in, int* out, int depth) {
  adv_recursion_kernel<<<1, 32>>>(in, out, depth);
}

__global__ void adv_shared_atomics_kernel(const int* in, int* out) {
  __shared__ int adv_count, adv_max;
  const int t = threadIdx.x;
  if (t == 0) {
    adv_count = 0;
    adv_max = INT_MIN;
  }
  __syncthreads();
  atomicAdd(&adv_count, 1);
  atomicMax(&adv_max, in[blockIdx.x * blockDim.x + t]);
  __syncthreads();
  if (t == 0) {
    out[2 * blockIdx.x] = adv_count;
    out[2 * blockIdx.x + 1] = adv_max;
  }
}
void adv_shared_atomics(const int* in, int* out, int blocks, int threads) {
  adv_shared_atomics_kernel<<<blocks, threads>>>(in, out);
}

// ints: [0] sum, [1] max, [2] min, [3] CAS-claimed slot owner, [4] exch; f: [0] sum.
__global__ void adv_global_atomics_kernel(int* ints, float* f) {
  const int t = threadIdx.x;
  atomicAdd(&ints[0], t);
  atomicMax(&ints[1], t * 3);
  atomicMin(&ints[2], 100 - t);
  atomicCAS(&ints[3], -1, t);  // only the first thread wins
  atomicSub(&ints[4], 2);
  atomicAdd(&f[0], 0.5f);
}
void adv_global_atomics(int* ints, float* f, int threads) {
  adv_global_atomics_kernel<<<1, threads>>>(ints, f);
}

__global__ void adv_printf_kernel(int base) {
  printf("adv thread %d of %d says %d\n", int(threadIdx.x), int(blockDim.x),
         base + int(threadIdx.x));
}
void adv_printf(int base, int threads) {
  adv_printf_kernel<<<1, threads>>>(base);
}

// CUDA's math headers give min/max for float and double too (max(x, 0.0f) is common).
template <class T>
constexpr bool adv_has_min_max = requires(T a, T b) {
  max(a, b);
  min(a, b);
};
bool adv_float_min_max_compiles() {
  return adv_has_min_max<float> && adv_has_min_max<double>;
}

// __byte_perm in a kernel: each thread packs with one selector (the low halves of x and y,
// the high halves, x's bytes reversed, y's top byte four times).
__global__ void adv_byte_perm_kernel(const unsigned* sel, unsigned* out) {
  out[threadIdx.x] = __byte_perm(0x33221100u, 0x77665544u, sel[threadIdx.x]);
}
void adv_byte_perm(const unsigned* sel, unsigned* out, int n) {
  adv_byte_perm_kernel<<<1, n>>>(sel, out);
}
