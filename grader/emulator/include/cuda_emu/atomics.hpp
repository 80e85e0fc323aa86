// CUDA's atomic functions for the CPU emulator: atomicAdd, atomicSub, atomicMax,
// atomicMin, atomicExch and atomicCAS. Part of cuda_emu/cuda.hpp; include that,
// not this.
#pragma once

namespace cuda_emu::detail {
void note_atomic(const void* address, unsigned size, const void* pc);
}  // namespace cuda_emu::detail

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
