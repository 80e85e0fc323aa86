// The CUDA C++ surface a kernel file uses, implemented for the CPU emulator.
// Force-included (-include cuda_emu/cuda.hpp, cmake/course_cuda.cmake) into a .cu
// file compiled by g++ after the build rewrote its <<<>>> launches; cuda_runtime.h
// includes it too. The surface is laid out by area, one header each:
//   qualifiers.hpp  __global__, __device__, __host__, __shared__, ...
//   launch.hpp      dim3, vector types, threadIdx & co., launch_kernel()
//   memory.hpp      cudaMalloc/cudaMemcpy/... and cudaError_t; __ldg
//   sync.hpp        __syncthreads, __syncwarp
//   warp.hpp        __shfl_*_sync, __ballot_sync, __any_sync, __all_sync
//   atomics.hpp     atomicAdd, atomicCAS, ...
//   math.hpp        min/max, __expf and the other fast-math intrinsics
//   device_api.hpp  cudaGetDeviceProperties, cudaFuncSetAttribute, symbols, __activemask
//   printf.hpp      device printf (the rewrite turns printf calls into device_printf)
// <cooperative_groups.h> (include/) adds the common subset of cooperative groups.
#pragma once

// Lets a .cu file tell the emulator from nvcc (e.g. to print the emulator's counters).
#define CUDA_EMU 1

// What nvcc makes visible without an #include; first, before any macro below.
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

#include "cuda_emu/qualifiers.hpp"
#include "cuda_emu/launch.hpp"
#include "cuda_emu/memory.hpp"
#include "cuda_emu/sync.hpp"
#include "cuda_emu/warp.hpp"
#include "cuda_emu/atomics.hpp"
#include "cuda_emu/math.hpp"
#include "cuda_emu/device_api.hpp"
#include "cuda_emu/printf.hpp"
