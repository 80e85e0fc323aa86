// CUDA's runtime API for device memory and errors, as the CPU emulator provides
// it: cudaMalloc, cudaMemcpy, cudaMemset, cudaFree, cudaDeviceSynchronize and
// the error codes, plus the device-side __ldg. Part of cuda_emu/cuda.hpp;
// include that, not this.
#pragma once

#include <stddef.h>

// ---- errors ----------------------------------------------------------------
enum cudaError_t {
  cudaSuccess = 0,
  cudaErrorInvalidValue = 1,
  cudaErrorMemoryAllocation = 2,
  cudaErrorInvalidConfiguration = 9,
  cudaErrorInvalidDevicePointer = 17,
  cudaErrorInvalidMemcpyDirection = 21,
  cudaErrorIllegalAddress = 700,
  cudaErrorLaunchTimeout = 702,
  cudaErrorLaunchFailure = 719,
};
using cudaError = cudaError_t;

// ---- runtime API -----------------------------------------------------------
enum cudaMemcpyKind {
  cudaMemcpyHostToHost = 0,
  cudaMemcpyHostToDevice = 1,
  cudaMemcpyDeviceToHost = 2,
  cudaMemcpyDeviceToDevice = 3,
  cudaMemcpyDefault = 4,
};

cudaError_t cudaMalloc(void** ptr, size_t bytes);
template <class T>
cudaError_t cudaMalloc(T** ptr, size_t bytes) {
  return cudaMalloc(reinterpret_cast<void**>(ptr), bytes);
}
cudaError_t cudaFree(void* ptr);
cudaError_t cudaMemcpy(void* dst, const void* src, size_t bytes, cudaMemcpyKind kind);
cudaError_t cudaMemset(void* ptr, int value, size_t bytes);
cudaError_t cudaDeviceSynchronize();
cudaError_t cudaDeviceReset();
cudaError_t cudaGetLastError();
cudaError_t cudaPeekAtLastError();
const char* cudaGetErrorString(cudaError_t error);
const char* cudaGetErrorName(cudaError_t error);

// ---- device side -----------------------------------------------------------
// A load through the read-only data cache: a plain (checked, counted) load here.
template <class T>
inline T __ldg(const T* p) {
  return *p;
}
