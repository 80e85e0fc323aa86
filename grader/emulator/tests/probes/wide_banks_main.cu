// Runs wide_banks.cu's kernels once each, for Nsight Compute on a GPU:
//   nvcc -arch=sm_90 -lineinfo wide_banks_main.cu wide_banks.cu -o wide_banks
//   ncu --metrics l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum,... ./wide_banks
#include <cuda_runtime.h>

#include <cstdio>

#include "wide_banks.hpp"

int main() {
  float* out = nullptr;
  cudaMalloc(&out, 32 * sizeof(float));
  for (int pad : {0, 4, 8, 12, 16}) wide_banks_float4(out, pad);
  wide_banks_float2(out);
  const cudaError_t e = cudaDeviceSynchronize();
  std::printf("%s\n", cudaGetErrorName(e));
  cudaFree(out);
  return e == cudaSuccess ? 0 : 1;
}
