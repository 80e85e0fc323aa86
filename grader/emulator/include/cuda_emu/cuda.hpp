// The CUDA C++ surface a kernel file uses, implemented for the CPU emulator:
// qualifiers, built-in index variables, vector types, the runtime API, barriers,
// warp shuffles and atomics. Force-included (-include cuda_emu/cuda.hpp) into a
// .cu file compiled by g++ after the build rewrote its <<<>>> launches.
#pragma once

// Lets a .cu file tell the emulator from nvcc (e.g. to print the emulator's counters).
#define CUDA_EMU 1

#include <math.h>  // expf, fmaxf, INFINITY in the global namespace, as in CUDA
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmath>
#include <cstring>
#include <tuple>
#include <type_traits>
#include <utility>

// ---- qualifiers ------------------------------------------------------------
#define __global__
#define __device__
#define __host__
#define __forceinline__ inline
// (No __noinline__: GCC 13's own headers spell __attribute__((__noinline__)).)
#define __restrict__ __restrict
#define __launch_bounds__(...)
// Every static __shared__ array lands in one section; the emulator finds it through
// the linker's __start_/__stop_ symbols and gives each block a poisoned copy.
#define __shared__ __attribute__((section("cuda_shared"))) static
#define __constant__

// ---- vector types ----------------------------------------------------------
struct uint3 {
  unsigned x, y, z;
};
struct dim3 {
  unsigned x, y, z;
  constexpr dim3(unsigned x_ = 1, unsigned y_ = 1, unsigned z_ = 1) : x(x_), y(y_), z(z_) {}
  constexpr dim3(uint3 v) : x(v.x), y(v.y), z(v.z) {}
};
struct alignas(8) float2 {
  float x, y;
};
struct alignas(16) float4 {
  float x, y, z, w;
};
struct alignas(8) int2 {
  int x, y;
};
struct alignas(16) int4 {
  int x, y, z, w;
};
inline float2 make_float2(float x, float y) {
  return {x, y};
}
inline float4 make_float4(float x, float y, float z, float w) {
  return {x, y, z, w};
}
inline int2 make_int2(int x, int y) {
  return {x, y};
}
inline int4 make_int4(int x, int y, int z, int w) {
  return {x, y, z, w};
}
inline dim3 make_dim3(unsigned x, unsigned y, unsigned z) {
  return dim3(x, y, z);
}

// ---- built-in variables ----------------------------------------------------
namespace cuda_emu::detail {
extern uint3 thread_idx, block_idx;
extern dim3 block_dim, grid_dim;
}  // namespace cuda_emu::detail
#define threadIdx (::cuda_emu::detail::thread_idx)
#define blockIdx (::cuda_emu::detail::block_idx)
#define blockDim (::cuda_emu::detail::block_dim)
#define gridDim (::cuda_emu::detail::grid_dim)
constexpr int warpSize = 32;

// ---- runtime API -----------------------------------------------------------
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
enum cudaMemcpyKind {
  cudaMemcpyHostToHost = 0,
  cudaMemcpyHostToDevice = 1,
  cudaMemcpyDeviceToHost = 2,
  cudaMemcpyDeviceToDevice = 3,
  cudaMemcpyDefault = 4,
};
struct cuda_emu_stream;
using cudaStream_t = cuda_emu_stream*;

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

// ---- device functions ------------------------------------------------------
void __syncthreads();
void __syncwarp(unsigned mask = 0xffffffffu);

namespace cuda_emu::detail {
enum class shfl_op { idx, up, down, bfly };
uint64_t shuffle(shfl_op op, unsigned mask, uint64_t value, int lane_arg, int width);
unsigned ballot(unsigned mask, bool predicate);
void note_atomic(const void* address, unsigned size, const void* pc);
}  // namespace cuda_emu::detail

#define CUDA_EMU_SHUFFLE(name, op)                                                    \
  template <class T>                                                                  \
  T name(unsigned mask, T var, int lane_arg, int width = warpSize) {                  \
    static_assert(sizeof(T) <= 8 && std::is_trivially_copyable_v<T>, "shuffle type"); \
    uint64_t raw = 0;                                                                 \
    std::memcpy(&raw, &var, sizeof(T));                                               \
    raw = ::cuda_emu::detail::shuffle(op, mask, raw, lane_arg, width);                \
    std::memcpy(&var, &raw, sizeof(T));                                               \
    return var;                                                                       \
  }
CUDA_EMU_SHUFFLE(__shfl_sync, ::cuda_emu::detail::shfl_op::idx)
CUDA_EMU_SHUFFLE(__shfl_up_sync, ::cuda_emu::detail::shfl_op::up)
CUDA_EMU_SHUFFLE(__shfl_down_sync, ::cuda_emu::detail::shfl_op::down)
CUDA_EMU_SHUFFLE(__shfl_xor_sync, ::cuda_emu::detail::shfl_op::bfly)
#undef CUDA_EMU_SHUFFLE

inline unsigned __ballot_sync(unsigned mask, int predicate) {
  return ::cuda_emu::detail::ballot(mask, predicate != 0);
}
inline int __any_sync(unsigned mask, int predicate) {
  return __ballot_sync(mask, predicate) != 0;
}
inline int __all_sync(unsigned mask, int predicate) {
  return __ballot_sync(mask, predicate) == __ballot_sync(mask, 1);
}

// Threads of the emulator never run at the same time, so an atomic is a plain
// read-modify-write; it is still checked like any other access.
#define CUDA_EMU_ATOMIC(name, T, expr)                                                \
  __attribute__((no_sanitize_thread)) inline T name(T* address, T val) {              \
    ::cuda_emu::detail::note_atomic(address, sizeof(T), __builtin_return_address(0)); \
    T old = *address;                                                                 \
    *address = (expr);                                                                \
    return old;                                                                       \
  }
CUDA_EMU_ATOMIC(atomicAdd, int, old + val)
CUDA_EMU_ATOMIC(atomicAdd, unsigned, old + val)
CUDA_EMU_ATOMIC(atomicAdd, unsigned long long, old + val)
CUDA_EMU_ATOMIC(atomicAdd, float, old + val)
CUDA_EMU_ATOMIC(atomicAdd, double, old + val)
CUDA_EMU_ATOMIC(atomicSub, int, old - val)
CUDA_EMU_ATOMIC(atomicMax, int, old > val ? old : val)
CUDA_EMU_ATOMIC(atomicMin, int, old < val ? old : val)
CUDA_EMU_ATOMIC(atomicExch, int, val)
CUDA_EMU_ATOMIC(atomicExch, float, val)
#undef CUDA_EMU_ATOMIC
__attribute__((no_sanitize_thread)) inline int atomicCAS(int* address, int compare, int val) {
  ::cuda_emu::detail::note_atomic(address, sizeof(int), __builtin_return_address(0));
  const int old = *address;
  if (old == compare) *address = val;
  return old;
}

// CUDA's integer min/max (fminf/fmaxf come from math.h).
inline int min(int a, int b) {
  return a < b ? a : b;
}
inline int max(int a, int b) {
  return a > b ? a : b;
}
inline unsigned min(unsigned a, unsigned b) {
  return a < b ? a : b;
}
inline unsigned max(unsigned a, unsigned b) {
  return a > b ? a : b;
}
inline long long min(long long a, long long b) {
  return a < b ? a : b;
}
inline long long max(long long a, long long b) {
  return a > b ? a : b;
}
inline float min(float a, float b) { return fminf(a, b); }
inline float max(float a, float b) { return fmaxf(a, b); }
inline double min(double a, double b) { return fmin(a, b); }
inline double max(double a, double b) { return fmax(a, b); }

// Fast-math intrinsics: the emulator computes them exactly.
inline float __expf(float x) {
  return expf(x);
}
inline float __logf(float x) {
  return logf(x);
}
inline float __fdividef(float a, float b) {
  return a / b;
}
inline float rsqrtf(float x) {
  return 1.0f / sqrtf(x);
}
inline float __saturatef(float x) {
  return x < 0.0f ? 0.0f : x > 1.0f ? 1.0f : x;
}
template <class T>
inline T __ldg(const T* p) {
  return *p;
}

// ---- launches (the build rewrites kernel<<<...>>>(...) into launch_kernel) ----
namespace cuda_emu {

struct launch_config {
  dim3 grid;
  dim3 block;
  size_t shared_bytes = 0;
  cudaStream_t stream = nullptr;
};

namespace detail {
// Runs `entry(args)` once per CUDA thread of the launch.
void launch(const launch_config& config, const char* name, void (*entry)(void*), void* args);

template <class Fn, class Tuple, size_t... I>
__attribute__((no_sanitize_thread)) void invoke(Fn fn, Tuple& params, std::index_sequence<I...>) {
  fn(std::get<I>(params)...);
}
}  // namespace detail

// Parameters are converted to the kernel's own types and copied once, as CUDA
// copies kernel arguments; each thread then receives them by value.
template <class... P, class... A>
__attribute__((no_sanitize_thread)) void launch_kernel(const launch_config& config,
                                                       const char* name, void (*kernel)(P...),
                                                       A&&... args) {
  struct frame {
    void (*kernel)(P...);
    std::tuple<std::decay_t<P>...> params;
  } f{kernel, std::tuple<std::decay_t<P>...>(std::forward<A>(args)...)};
  detail::launch(
      config, name, [](void* p) __attribute__((no_sanitize_thread)) {
        auto* fr = static_cast<frame*>(p);
        detail::invoke(fr->kernel, fr->params, std::index_sequence_for<P...>{});
      },
      &f);
}

}  // namespace cuda_emu
