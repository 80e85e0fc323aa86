// Plain copy kernels that several adversarial tests share (test_memcheck.cpp,
// test_coalescing.cpp, test_faults.cpp). Plain CUDA.
#include <cuda_runtime.h>

#include <cstdio>

#include "copies.hpp"

__global__ void adv_copy_kernel(const float* in, float* out) {
  out[threadIdx.x] = in[threadIdx.x];
}
void adv_copy(const float* in, float* out, int threads) {
  adv_copy_kernel<<<1, threads>>>(in, out);
}

__global__ void adv_copy_big_kernel(const adv_big* in, adv_big* out) {
  out[threadIdx.x] = in[threadIdx.x];
}
void adv_copy_big(const adv_big* in, adv_big* out, int threads) {
  adv_copy_big_kernel<<<1, threads>>>(in, out);
}

// Stores the instrumentation cannot see: a library call that writes device memory, and
// (x86-64) an inline-assembly store. Each must fail its launch as an unseen write.
__global__ void adv_hidden_library_store_kernel(const float* in, float* out) {
  if (threadIdx.x == 0) std::snprintf(reinterpret_cast<char*>(out), 4, "%s", in ? "ab" : "cd");
}
void adv_hidden_library_store(const float* in, float* out) {
  adv_hidden_library_store_kernel<<<1, 32>>>(in, out);
}

__global__ void adv_hidden_asm_store_kernel(const float* in, float* out) {
  const float v = in[threadIdx.x];
#if defined(__x86_64__)
  asm volatile("movss %1, %0" : "=m"(out[threadIdx.x]) : "x"(v));
#else
  out[threadIdx.x] = v;
#endif
}
void adv_hidden_asm_store(const float* in, float* out, int threads) {
  adv_hidden_asm_store_kernel<<<1, threads>>>(in, out);
}
