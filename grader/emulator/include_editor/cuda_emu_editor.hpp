// Editor-only shim, never compiled by the grader: clangd force-includes it into a .cu file
// (cmake/course_editor.cmake) to parse the file as it is, <<<>>> launches included, in
// clang's CUDA mode without a CUDA installation (-x cuda --cuda-host-only -nocudainc), with
// the emulator's headers for CUDA's API as the grader compiles it (-include cuda_emu/cuda.hpp
// and course/blank.hpp, the grading tree's precompiled header).
//
// In CUDA mode clang checks which side may call what, so everything the emulator and the
// blanks declare is made __host__ __device__ (clang's force_cuda_host_device pragma), and
// the qualifiers the emulator defines away (qualifiers.hpp) are clang's attributes. The C++
// library stays host only, as under nvcc (constexpr functions, std::min and std::max
// excepted), and so does a plain function of the file: a kernel that calls one is an error
// here and under nvcc, though the emulator runs it. <cooperative_groups.h> and
// <cooperative_groups/reduce.h> are wrapped the same way by the headers beside this one.
//
// clangd keeps what the file includes in a precompiled preamble, and before clang 20 that
// merges two functions that differ only in __host__/__device__ into one (llvm/llvm-project
// issue 106394), hence the order below. The one case left: clang declares the global
// operator new and delete on both sides itself, so a `new` or `delete` expression in a .cu
// file's host code gets a wrong error from clangd 14, or crashes it (no lab file has one;
// std::vector works).
#pragma once

#if __has_include(<bits/exception.h>)
// libstdc++: std::exception __host__ __device__, so that course::unfilled_blank::what()
// (made __host__ __device__ below) still overrides it; <bits/c++config.h> first, whose
// std::terminate the rest of <exception> declares again as a host function.
#include <bits/c++config.h>
#pragma clang force_cuda_host_device begin
#include <bits/exception.h>
#pragma clang force_cuda_host_device end
#endif

// The C++ library's <new> alone (host only: clang declares the global operator new itself,
// as a host function). clang's wrapper of <new> (its cuda_wrappers/ folder comes first) adds
// a __device__ operator new and delete once __device__ is defined, and clangd's preamble
// merges those with the host ones (a host `delete` then crashes clangd 14): its guard keeps
// it out from here on.
#include <new>
#define __CLANG_CUDA_WRAPPERS_NEW

// CUDA's qualifiers as clang's attributes: first, for clang's wrapper of <algorithm>
// (__host__ __device__ std::min and std::max), then for the .cu file itself (below, after
// the emulator's headers have defined them away).
#define __global__ __attribute__((global))
#define __device__ __attribute__((device))
#define __host__ __attribute__((host))
#define __shared__ __attribute__((shared))
#define __constant__ __attribute__((constant))
#define __launch_bounds__(...) __attribute__((launch_bounds(__VA_ARGS__)))

// printf, abs, malloc ... on both sides, as CUDA has them (a __device__ declaration beside
// the host one would be merged with it in clangd's preamble, and lost).
#pragma clang force_cuda_host_device begin
#include <stdio.h>
#include <stdlib.h>
#pragma clang force_cuda_host_device end

// Host only: the C library and the C++ library that the emulator's headers include. A
// function declared __host__ __device__ could not be declared again as a host function by a
// header the .cu file includes later (<iostream> does so for parts of <algorithm>).
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <limits>
#include <tuple>
#include <type_traits>
#include <utility>

// Host only: __syncthreads is also clang's device builtin (declared again below), which a
// __host__ __device__ declaration could not overload.
#include "cuda_emu/sync.hpp"

// __host__ __device__: the C math library (expf, fmaxf, ..., which CUDA has on the device
// too), the emulator's CUDA API and the blanks, read with the qualifiers as the emulator
// defines them; then the attributes again.
#pragma push_macro("__global__")
#pragma push_macro("__device__")
#pragma push_macro("__host__")
#pragma push_macro("__shared__")
#pragma push_macro("__constant__")
#pragma push_macro("__launch_bounds__")
#undef __global__
#undef __device__
#undef __host__
#undef __shared__
#undef __constant__
#undef __launch_bounds__
#pragma clang force_cuda_host_device begin
#include <math.h>

#include <cmath>

#include "course/blank.hpp"
#include "cuda_emu/cuda.hpp"
#pragma clang force_cuda_host_device end
#pragma pop_macro("__global__")
#pragma pop_macro("__device__")
#pragma pop_macro("__host__")
#pragma pop_macro("__shared__")
#pragma pop_macro("__constant__")
#pragma pop_macro("__launch_bounds__")

// The device side of what stayed host only above, as CUDA declares it.
__device__ void __syncthreads();  // the builtin, which clangd's preamble would hide
__device__ void __syncwarp(unsigned mask = 0xffffffffu);

// What clang calls for kernel<<<grid, block, shared, stream>>>: the first for CUDA 9.2 and
// later (clang 14 assumes 11.5 when it finds none), the second before.
extern "C" unsigned __cudaPushCallConfiguration(dim3 grid, dim3 block, size_t shared = 0,
                                                void* stream = nullptr);
extern "C" cudaError_t cudaConfigureCall(dim3 grid, dim3 block, size_t shared = 0,
                                         cudaStream_t stream = nullptr);
