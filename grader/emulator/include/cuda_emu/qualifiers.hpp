// CUDA's function and variable qualifiers for g++: __global__, __device__ and
// __host__ vanish, and every static __shared__ array lands in one linker section
// that the emulator finds and gives each block a fresh, poisoned copy of.
// Part of cuda_emu/cuda.hpp; include that, not this.
#pragma once

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
#define __align__(n) __attribute__((aligned(n)))
// `extern __shared__` (dynamic shared memory) is rewritten before compiling:
// see src/rewrite.cpp.
