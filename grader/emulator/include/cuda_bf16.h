// Emulator stand-in for CUDA's <cuda_bf16.h>: __nv_bfloat16, its conversions
// (__float2bfloat16, _rn, _rz, __bfloat162float, the bit casts) and arithmetic
// (operators, __hadd, __hmul, __hfma, __hmax, __hmin). No __nv_bfloat162 pairs yet:
// using one is a compile error, not a wrong result.
#pragma once
#include <math.h>

#include "cuda_emu/cuda.hpp"
#include "cuda_emu/bf16.hpp"
