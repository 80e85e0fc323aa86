// Plain copy kernels that several adversarial tests share (test_memcheck.cpp,
// test_coalescing.cpp, test_faults.cpp). Plain CUDA.
#include <cuda_runtime.h>

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
