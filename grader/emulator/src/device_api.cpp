// The device-query, function-attribute and symbol-copy API (device_api.hpp):
// answers as one NVIDIA H200 would (sm_90, 132 SMs, 228 KiB shared per SM).
#include "cuda_emu/device_api.hpp"

#include <cstring>

#include "internal.hpp"

namespace cuda_emu::detail {

extern size_t g_dynamic_shared_limit;  // src/limits.cpp
extern bool g_dynamic_shared_opted_in;

cudaError_t func_set_attribute(cudaFuncAttribute attr, int value) {
  switch (attr) {
    case cudaFuncAttributeMaxDynamicSharedMemorySize:
      if (value < 0 || static_cast<size_t>(value) > kMaxDynamicSharedBytes)
        return emu.last_error = cudaErrorInvalidValue;  // cudaGetLastError gives it too
      g_dynamic_shared_opted_in = true;
      if (static_cast<size_t>(value) > g_dynamic_shared_limit)
        g_dynamic_shared_limit = static_cast<size_t>(value);
      return cudaSuccess;
    case cudaFuncAttributePreferredSharedMemoryCarveout:
      if (value < -1 || value > 100) return emu.last_error = cudaErrorInvalidValue;
      return cudaSuccess;
  }
  return emu.last_error = cudaErrorInvalidValue;
}

cudaError_t copy_symbol(void* dst, const void* src, size_t bytes, cudaMemcpyKind) {
  if (bytes && (!dst || !src)) return cudaErrorInvalidValue;
  std::memmove(dst, src, bytes);
  return cudaSuccess;
}

}  // namespace cuda_emu::detail

cudaError_t cudaGetDeviceProperties(cudaDeviceProp* prop, int device) {
  if (!prop || device != 0) return cudaErrorInvalidValue;
  cudaDeviceProp p{};
  std::strcpy(p.name, "NVIDIA H200 (emulated)");
  p.totalGlobalMem = 150754820096;  // 143,771 MiB, as an H200 reports
  p.sharedMemPerBlock = cuda_emu::kDefaultDynamicSharedBytes;
  p.regsPerBlock = 65536;
  p.warpSize = 32;
  p.memPitch = 2147483647;
  p.maxThreadsPerBlock = 1024;
  p.maxThreadsDim[0] = 1024;
  p.maxThreadsDim[1] = 1024;
  p.maxThreadsDim[2] = 64;
  p.maxGridSize[0] = 2147483647;
  p.maxGridSize[1] = 65535;
  p.maxGridSize[2] = 65535;
  p.clockRate = 1980000;
  p.totalConstMem = 65536;
  p.major = 9;
  p.minor = 0;
  p.textureAlignment = 512;
  p.deviceOverlap = 1;
  p.multiProcessorCount = 132;
  p.concurrentKernels = 1;
  p.ECCEnabled = 1;
  p.memoryClockRate = 3201000;
  p.memoryBusWidth = 6144;
  p.l2CacheSize = 50331648;  // 48 MiB usable of 50 MiB
  p.persistingL2CacheMaxSize = 35651584;
  p.maxThreadsPerMultiProcessor = 2048;
  p.unifiedAddressing = 1;
  p.managedMemory = 1;
  p.cooperativeLaunch = 1;
  p.sharedMemPerMultiprocessor = 228 * 1024;
  p.regsPerMultiprocessor = 65536;
  p.sharedMemPerBlockOptin = cuda_emu::kMaxDynamicSharedBytes;
  p.reservedSharedMemPerBlock = 1024;
  p.maxBlocksPerMultiProcessor = 32;
  *prop = p;
  return cudaSuccess;
}

cudaError_t cudaDeviceGetAttribute(int* value, cudaDeviceAttr attr, int device) {
  if (!value || device != 0) return cudaErrorInvalidValue;
  cudaDeviceProp p;
  cudaGetDeviceProperties(&p, 0);
  switch (attr) {
    case cudaDevAttrMaxThreadsPerBlock:
      *value = p.maxThreadsPerBlock;
      break;
    case cudaDevAttrMaxBlockDimX:
      *value = p.maxThreadsDim[0];
      break;
    case cudaDevAttrMaxBlockDimY:
      *value = p.maxThreadsDim[1];
      break;
    case cudaDevAttrMaxBlockDimZ:
      *value = p.maxThreadsDim[2];
      break;
    case cudaDevAttrMaxGridDimX:
      *value = p.maxGridSize[0];
      break;
    case cudaDevAttrMaxGridDimY:
      *value = p.maxGridSize[1];
      break;
    case cudaDevAttrMaxGridDimZ:
      *value = p.maxGridSize[2];
      break;
    case cudaDevAttrMaxSharedMemoryPerBlock:
      *value = int(p.sharedMemPerBlock);
      break;
    case cudaDevAttrTotalConstantMemory:
      *value = int(p.totalConstMem);
      break;
    case cudaDevAttrWarpSize:
      *value = p.warpSize;
      break;
    case cudaDevAttrMaxRegistersPerBlock:
      *value = p.regsPerBlock;
      break;
    case cudaDevAttrClockRate:
      *value = p.clockRate;
      break;
    case cudaDevAttrMultiProcessorCount:
      *value = p.multiProcessorCount;
      break;
    case cudaDevAttrMemoryClockRate:
      *value = p.memoryClockRate;
      break;
    case cudaDevAttrGlobalMemoryBusWidth:
      *value = p.memoryBusWidth;
      break;
    case cudaDevAttrL2CacheSize:
      *value = p.l2CacheSize;
      break;
    case cudaDevAttrMaxThreadsPerMultiProcessor:
      *value = p.maxThreadsPerMultiProcessor;
      break;
    case cudaDevAttrComputeCapabilityMajor:
      *value = p.major;
      break;
    case cudaDevAttrComputeCapabilityMinor:
      *value = p.minor;
      break;
    case cudaDevAttrMaxSharedMemoryPerMultiprocessor:
      *value = int(p.sharedMemPerMultiprocessor);
      break;
    case cudaDevAttrMaxRegistersPerMultiprocessor:
      *value = p.regsPerMultiprocessor;
      break;
    case cudaDevAttrMaxSharedMemoryPerBlockOptin:
      *value = int(p.sharedMemPerBlockOptin);
      break;
    case cudaDevAttrMaxBlocksPerMultiprocessor:
      *value = p.maxBlocksPerMultiProcessor;
      break;
    default:
      return cudaErrorInvalidValue;
  }
  return cudaSuccess;
}

cudaError_t cudaGetDeviceCount(int* count) {
  if (!count) return cudaErrorInvalidValue;
  *count = 1;
  return cudaSuccess;
}
cudaError_t cudaGetDevice(int* device) {
  if (!device) return cudaErrorInvalidValue;
  *device = 0;
  return cudaSuccess;
}
cudaError_t cudaSetDevice(int device) {
  return device == 0 ? cudaSuccess : cudaErrorInvalidValue;
}

cudaError_t cudaStreamCreate(cudaStream_t* stream) {
  static char handles[64];
  static unsigned next = 0;
  if (!stream) return cudaErrorInvalidValue;
  *stream = reinterpret_cast<cudaStream_t>(&handles[next++ % sizeof(handles)]);
  return cudaSuccess;
}
cudaError_t cudaStreamDestroy(cudaStream_t) {
  return cudaSuccess;
}
cudaError_t cudaStreamSynchronize(cudaStream_t) {
  return cudaDeviceSynchronize();
}
cudaError_t cudaMemcpyAsync(void* dst, const void* src, size_t bytes, cudaMemcpyKind kind,
                            cudaStream_t) {
  return cudaMemcpy(dst, src, bytes, kind);
}
