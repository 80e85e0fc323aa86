// Kernel launches for the CPU emulator: dim3, uint3 and the vector types, the
// built-in variables (threadIdx, blockIdx, blockDim, gridDim, warpSize), and
// launch_kernel(), which the build's rewrite of kernel<<<grid, block>>>(args)
// calls. Part of cuda_emu/cuda.hpp; include that, not this.
#pragma once

#include <stddef.h>

#include <tuple>
#include <type_traits>
#include <utility>

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
struct alignas(8) uint2 {
  unsigned x, y;
};
struct alignas(16) uint4 {
  unsigned x, y, z, w;
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
inline uint2 make_uint2(unsigned x, unsigned y) {
  return {x, y};
}
inline uint4 make_uint4(unsigned x, unsigned y, unsigned z, unsigned w) {
  return {x, y, z, w};
}
inline dim3 make_dim3(unsigned x, unsigned y, unsigned z) {
  return dim3(x, y, z);
}

// ---- built-in variables ----------------------------------------------------
// Set by the scheduler before it switches to a thread's fiber.
namespace cuda_emu::detail {
extern uint3 thread_idx, block_idx;
extern dim3 block_dim, grid_dim;
}  // namespace cuda_emu::detail
// Global names for the same objects (asm labels, not macros), so host code may
// still declare its own `dim3 gridDim(...)` or `blockDim`, shadowing them.
extern uint3 threadIdx __asm__("_ZN8cuda_emu6detail10thread_idxE");
extern uint3 blockIdx __asm__("_ZN8cuda_emu6detail9block_idxE");
extern dim3 blockDim __asm__("_ZN8cuda_emu6detail9block_dimE");
extern dim3 gridDim __asm__("_ZN8cuda_emu6detail8grid_dimE");
constexpr int warpSize = 32;

// ---- launches (the build rewrites kernel<<<...>>>(...) into launch_kernel) ----
// A launch's fourth configuration argument; the emulator has no streams.
struct cuda_emu_stream;
using cudaStream_t = cuda_emu_stream*;

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
__attribute__((no_sanitize_thread)) void invoke(Fn& fn, Tuple& params, std::index_sequence<I...>) {
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

// The rewrite's form: `call` is a generic lambda that calls the kernel by name, so
// template arguments are deduced, default arguments filled in and overloads chosen
// as in a plain call. The arguments are evaluated and copied once.
template <class Call, class... A>
requires(!std::is_pointer_v<std::decay_t<Call>>)
    __attribute__((no_sanitize_thread)) void launch_kernel(const launch_config& config,
                                                           const char* name, Call&& call,
                                                           A&&... args) {
  struct frame {
    std::decay_t<Call>* call;
    std::tuple<std::decay_t<A>...> params;
  } f{&call, std::tuple<std::decay_t<A>...>(std::forward<A>(args)...)};
  detail::launch(
      config, name, [](void* p) __attribute__((no_sanitize_thread)) {
        auto* fr = static_cast<frame*>(p);
        detail::invoke(*fr->call, fr->params, std::index_sequence_for<A...>{});
      },
      &f);
}

}  // namespace cuda_emu
