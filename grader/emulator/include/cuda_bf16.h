// Emulator stand-in for CUDA's <cuda_bf16.h>: __nv_bfloat16, its conversions
// (__float2bfloat16, _rn, _rz, __bfloat162float, the bit casts), arithmetic
// (operators, __hadd, __hmul, __hfma, __hmax, __hmin), and __nv_bfloat162 pairs as storage
// (__floats2bfloat162_rn, __halves2bfloat162, __low2bfloat16, __high2bfloat16). Pair
// arithmetic (__hadd2, ...) is not here: using it is a compile error, not a wrong result.
#pragma once
#include <math.h>

#include "cuda_emu/cuda.hpp"
#include "cuda_emu/bf16.hpp"
