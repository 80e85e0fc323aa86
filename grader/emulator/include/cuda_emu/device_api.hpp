// CUDA's device-query and symbol API for the CPU emulator: cudaGetDeviceProperties,
// cudaDeviceGetAttribute and cudaFuncSetAttribute answer as an H200 would;
// cudaMemcpyToSymbol/FromSymbol copy to and from __device__/__constant__ variables;
// __activemask(). Part of cuda_emu/cuda.hpp; include that, not this.
#pragma once

#include <stddef.h>

#include "cuda_emu/launch.hpp"
#include "cuda_emu/memory.hpp"

// The dynamic shared memory (`extern __shared__` arrays, as rewritten) of a launch.
extern "C" char cuda_emu_dynamic_shared[];

namespace cuda_emu {
// H200 shared-memory limits per block: the default, and the most after an opt-in.
constexpr size_t kDefaultDynamicSharedBytes = 48 * 1024;
constexpr size_t kMaxDynamicSharedBytes = 227 * 1024;
// Room for the __shared__ arrays of all template-kernel instantiations together.
constexpr size_t kTemplateSharedPoolBytes = 256 * 1024;
// The other sm_90 limits a launch or a build must respect (src/limits.cpp, src/rewrite.cpp).
constexpr size_t kMaxStaticSharedBytes = 48 * 1024;  // ptxas: "uses too much shared data"
constexpr size_t kMaxConstantBytes = 64 * 1024;      // ptxas: "too much global constant data"
constexpr unsigned kMaxThreadsPerBlock = 1024, kMaxBlockDimZ = 64;
constexpr unsigned kMaxGridDimX = 2147483647u, kMaxGridDimYZ = 65535;

namespace detail {
// The rewrite calls this after each static __shared__ declaration in a function: the
// launch sums the arrays its threads declare and fails past a shared-memory limit.
void note_static_shared(const volatile void* array, size_t bytes);
// And after each one at namespace scope, once, at start-up: a launch counts it when its
// first block touches it. Returns true.
bool note_file_shared(const volatile void* array, size_t bytes);
void* template_shared(size_t bytes, size_t align);  // a slot for the process's lifetime
// The storage of one __shared__ declaration of a template kernel (Tag: a lambda
// type, unique per declaration and instantiation), placed in the shared section.
template <class T, class Tag>
__attribute__((no_sanitize_thread)) T& template_shared_slot() {
  static T* slot = static_cast<T*>(template_shared(sizeof(T), alignof(T) < 128 ? 128 : alignof(T)));
  return *slot;
}
}  // namespace detail
}  // namespace cuda_emu

// ---- device properties -----------------------------------------------------
struct cudaDeviceProp {
  char name[256];
  size_t totalGlobalMem;
  size_t sharedMemPerBlock;
  int regsPerBlock;
  int warpSize;
  size_t memPitch;
  int maxThreadsPerBlock;
  int maxThreadsDim[3];
  int maxGridSize[3];
  int clockRate;  // kHz
  size_t totalConstMem;
  int major;
  int minor;
  size_t textureAlignment;
  int deviceOverlap;
  int multiProcessorCount;
  int kernelExecTimeoutEnabled;
  int integrated;
  int canMapHostMemory;
  int concurrentKernels;
  int ECCEnabled;
  int memoryClockRate;  // kHz
  int memoryBusWidth;   // bits
  int l2CacheSize;
  int persistingL2CacheMaxSize;
  int maxThreadsPerMultiProcessor;
  int unifiedAddressing;
  int managedMemory;
  int cooperativeLaunch;
  size_t sharedMemPerMultiprocessor;
  int regsPerMultiprocessor;
  size_t sharedMemPerBlockOptin;
  size_t reservedSharedMemPerBlock;
  int maxBlocksPerMultiProcessor;
};

// The values of CUDA's enum (driver_types.h), for the attributes the emulator knows.
enum cudaDeviceAttr {
  cudaDevAttrMaxThreadsPerBlock = 1,
  cudaDevAttrMaxBlockDimX = 2,
  cudaDevAttrMaxBlockDimY = 3,
  cudaDevAttrMaxBlockDimZ = 4,
  cudaDevAttrMaxGridDimX = 5,
  cudaDevAttrMaxGridDimY = 6,
  cudaDevAttrMaxGridDimZ = 7,
  cudaDevAttrMaxSharedMemoryPerBlock = 8,
  cudaDevAttrTotalConstantMemory = 9,
  cudaDevAttrWarpSize = 10,
  cudaDevAttrMaxRegistersPerBlock = 12,
  cudaDevAttrClockRate = 13,
  cudaDevAttrMultiProcessorCount = 16,
  cudaDevAttrMemoryClockRate = 36,
  cudaDevAttrGlobalMemoryBusWidth = 37,
  cudaDevAttrL2CacheSize = 38,
  cudaDevAttrMaxThreadsPerMultiProcessor = 39,
  cudaDevAttrComputeCapabilityMajor = 75,
  cudaDevAttrComputeCapabilityMinor = 76,
  cudaDevAttrMaxSharedMemoryPerMultiprocessor = 81,
  cudaDevAttrMaxRegistersPerMultiprocessor = 82,
  cudaDevAttrMaxSharedMemoryPerBlockOptin = 97,
  cudaDevAttrMaxBlocksPerMultiprocessor = 106,
};

enum cudaFuncAttribute {
  cudaFuncAttributeMaxDynamicSharedMemorySize = 8,
  cudaFuncAttributePreferredSharedMemoryCarveout = 9,
};

cudaError_t cudaGetDeviceProperties(cudaDeviceProp* prop, int device);
cudaError_t cudaDeviceGetAttribute(int* value, cudaDeviceAttr attr, int device);
cudaError_t cudaGetDeviceCount(int* count);
cudaError_t cudaGetDevice(int* device);
cudaError_t cudaSetDevice(int device);

namespace cuda_emu::detail {
cudaError_t func_set_attribute(cudaFuncAttribute attr, int value);
cudaError_t copy_symbol(void* dst, const void* src, size_t bytes, cudaMemcpyKind kind);
}  // namespace cuda_emu::detail

// The emulator keeps one dynamic-shared-memory limit for all kernels (a GPU keeps
// one per kernel): the largest any kernel opted in to.
template <class F>
cudaError_t cudaFuncSetAttribute(F* /*kernel*/, cudaFuncAttribute attr, int value) {
  return ::cuda_emu::detail::func_set_attribute(attr, value);
}

// A __device__ or __constant__ variable is an ordinary variable here.
template <class T>
cudaError_t cudaMemcpyToSymbol(const T& symbol, const void* src, size_t count, size_t offset = 0,
                               cudaMemcpyKind kind = cudaMemcpyHostToDevice) {
  if (offset + count > sizeof(T)) return cudaErrorInvalidValue;
  if (kind != cudaMemcpyHostToDevice && kind != cudaMemcpyDeviceToDevice &&
      kind != cudaMemcpyDefault)
    return cudaErrorInvalidMemcpyDirection;
  void* dst = const_cast<char*>(reinterpret_cast<const char*>(&symbol)) + offset;
  return ::cuda_emu::detail::copy_symbol(dst, src, count, kind);
}
template <class T>
cudaError_t cudaMemcpyFromSymbol(void* dst, const T& symbol, size_t count, size_t offset = 0,
                                 cudaMemcpyKind kind = cudaMemcpyDeviceToHost) {
  if (offset + count > sizeof(T)) return cudaErrorInvalidValue;
  if (kind != cudaMemcpyDeviceToHost && kind != cudaMemcpyDeviceToDevice &&
      kind != cudaMemcpyDefault)
    return cudaErrorInvalidMemcpyDirection;
  return ::cuda_emu::detail::copy_symbol(dst, reinterpret_cast<const char*>(&symbol) + offset,
                                         count, kind);
}

// Lanes of the calling thread's warp that exist (the emulator keeps no divergence
// state, so every existing lane counts as active).
inline unsigned __activemask() {
  const unsigned n = blockDim.x * blockDim.y * blockDim.z;
  const unsigned t = (threadIdx.z * blockDim.y + threadIdx.y) * blockDim.x + threadIdx.x;
  const unsigned base = t / 32 * 32, lanes = n - base < 32 ? n - base : 32;
  return lanes == 32 ? 0xffffffffu : (1u << lanes) - 1;
}

// ---- streams ---------------------------------------------------------------
// Launches run to completion where they are made, so every stream is the default
// stream: creating one only hands out a distinct handle; async copies are copies.
cudaError_t cudaStreamCreate(cudaStream_t* stream);
cudaError_t cudaStreamDestroy(cudaStream_t stream);
cudaError_t cudaStreamSynchronize(cudaStream_t stream);
cudaError_t cudaMemcpyAsync(void* dst, const void* src, size_t bytes, cudaMemcpyKind kind,
                            cudaStream_t stream = nullptr);

// ---- not emulated: one clear compile-time line each ----------------------------
// (Templates, so that only a call, not this declaration, triggers the message.)
struct cuda_emu_event;
using cudaEvent_t = cuda_emu_event*;
namespace cuda_emu::detail {
template <class T>
inline constexpr bool unsupported = false;
}  // namespace cuda_emu::detail
#define CUDA_EMU_UNSUPPORTED(name, what)                             \
  template <class... A>                                              \
  cudaError_t name(A...) {                                           \
    static_assert(::cuda_emu::detail::unsupported<std::tuple<A...>>, \
                  "the course's emulator does not support " what     \
                  "; run `grader <lesson> --gpu` on a GPU machine"); \
    return cudaErrorInvalidValue;                                    \
  }
CUDA_EMU_UNSUPPORTED(cudaEventCreate, "CUDA events (it has no time model)")
CUDA_EMU_UNSUPPORTED(cudaEventRecord, "CUDA events (it has no time model)")
CUDA_EMU_UNSUPPORTED(cudaEventSynchronize, "CUDA events (it has no time model)")
CUDA_EMU_UNSUPPORTED(cudaEventElapsedTime, "CUDA events (it has no time model)")
CUDA_EMU_UNSUPPORTED(cudaEventDestroy, "CUDA events (it has no time model)")
CUDA_EMU_UNSUPPORTED(cudaMallocManaged, "managed memory (cudaMallocManaged)")
CUDA_EMU_UNSUPPORTED(cudaMallocHost, "pinned host memory (cudaMallocHost)")
CUDA_EMU_UNSUPPORTED(cudaLaunchCooperativeKernel, "cooperative launches")
#undef CUDA_EMU_UNSUPPORTED
