// Host entry points of limits.cu: launches at and just over sm_90's resource limits
// (block and grid dimensions, static and dynamic shared memory), for test_limits.cpp.
//   build/bin/emulator_limits_tests
#pragma once

#include <cuda_runtime.h>

// Each launches its kernel and returns cudaGetLastError(); the kernel sets *ran = 1
// (thread 0 of block 0) when it ran.
cudaError_t lim_dims(dim3 grid, dim3 block, int* ran);
// `bytes` of dynamic shared memory, the last byte used.
cudaError_t lim_dynamic(size_t bytes, int* ran);
// 1 KiB of static __shared__ plus `bytes` of dynamic shared memory.
cudaError_t lim_static_dynamic(size_t bytes, int* ran);
// 2 x 24 KiB of static __shared__ in two __device__ functions: exactly ptxas's limit.
cudaError_t lim_static_48k(int* ran);
// The same and one byte more in a third: ptxas refuses it, and the rewrite's
// per-function assert cannot see the sum, so the launch does.
cudaError_t lim_static_split(int* ran);
// cudaFuncSetAttribute(..., cudaFuncAttributeMaxDynamicSharedMemorySize, bytes).
cudaError_t lim_opt_in(int bytes);
// A kernel using one namespace-scope __shared__ array of 24 KiB, or (both) that and one of
// 24 KiB + 4 bytes: 49,156 bytes, which ptxas refuses.
cudaError_t lim_file_shared(bool both, int* ran);
