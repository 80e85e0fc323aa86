// Kernels for test_printf.cpp: device printf from every thread, its formats and return
// value, std::printf and ::printf, and printf in host code of the same file. Plain CUDA.
#include <cstdio>
#include <cuda_runtime.h>

#include "device_printf.hpp"

__global__ void printf_every_thread_kernel(int* out) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  // 36 bytes a line: "block " 5 " thread " 5 " m " 8 "\n".
  printf("block %5d thread %5d m %8.3f\n", int(blockIdx.x), int(threadIdx.x), 0.5f * threadIdx.x);
  out[i] = 2 * i;
}
void printf_every_thread(int* out, int blocks, int threads) {
  printf_every_thread_kernel<<<blocks, threads>>>(out);
}

__global__ void printf_formats_kernel(int* r) {
  r[0] = printf("%d %f %s|%5.2f|%%|%*d\n", 7, 1.5, "str", 3.14159, 4, 9);
  r[1] = printf("no arguments\n");
}
void printf_formats(int* r) {
  printf_formats_kernel<<<1, 1>>>(r);
}

__global__ void printf_qualified_kernel(int* r) {
  r[0] = std::printf("std %d\n", 1);
  r[1] = ::printf("global\n");
}
void printf_qualified(int* r) {
  printf_qualified_kernel<<<1, 1>>>(r);
}

__global__ void printf_only_kernel() {
  printf("thread %d\n", int(threadIdx.x));
}
void printf_only(int threads) {
  printf_only_kernel<<<1, threads>>>();
}

int printf_on_host(int value) {
  return printf("host %d\n", value);
}
