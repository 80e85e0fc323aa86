// bfloat16 for the CPU emulator: CUDA's __nv_bfloat16 as 16 bits of storage (a float's
// sign, exponent and top 7 mantissa bits), with CUDA's conversions and arithmetic.
// Conversions round to nearest even, like the GPU's cvt.rn.bf16.f32, and keep subnormals;
// NaN becomes the canonical 0x7fff. One operation in float then one rounding is exact for
// + - * / (float's 24 bits are more than twice bf16's 8, plus two). Plain C++: included
// by <cuda_bf16.h> for kernels and by the emulator's own wmma code.
#pragma once

#include <math.h>
#include <stdint.h>
#include <string.h>

namespace cuda_emu::detail {
inline uint16_t float_to_bf16_rn(float f) {
  uint32_t u;
  memcpy(&u, &f, 4);
  if ((u & 0x7fffffffu) > 0x7f800000u) return 0x7fffu;  // NaN
  return static_cast<uint16_t>((u + 0x7fffu + ((u >> 16) & 1u)) >> 16);
}
inline uint16_t float_to_bf16_rz(float f) {
  uint32_t u;
  memcpy(&u, &f, 4);
  if ((u & 0x7fffffffu) > 0x7f800000u) return 0x7fffu;
  return static_cast<uint16_t>(u >> 16);
}
inline float bf16_to_float(uint16_t b) {
  const uint32_t u = uint32_t{b} << 16;
  float f;
  memcpy(&f, &u, 4);
  return f;
}
}  // namespace cuda_emu::detail

struct __nv_bfloat16_raw {
  unsigned short x;
};

struct __nv_bfloat16 {
  unsigned short __x;  // CUDA's name for the bits
  __nv_bfloat16() = default;
  __nv_bfloat16(float f) : __x(::cuda_emu::detail::float_to_bf16_rn(f)) {}
  __nv_bfloat16(double f) : __nv_bfloat16(static_cast<float>(f)) {}
  __nv_bfloat16(int i) : __nv_bfloat16(static_cast<float>(i)) {}
  __nv_bfloat16(const __nv_bfloat16_raw& r) : __x(r.x) {}
  operator float() const { return ::cuda_emu::detail::bf16_to_float(__x); }
  operator __nv_bfloat16_raw() const { return {__x}; }
  __nv_bfloat16& operator=(float f) { return *this = __nv_bfloat16(f); }
};
using nv_bfloat16 = __nv_bfloat16;

inline __nv_bfloat16 __float2bfloat16(float f) {
  return __nv_bfloat16(f);
}
inline __nv_bfloat16 __float2bfloat16_rn(float f) {
  return __nv_bfloat16(f);
}
inline __nv_bfloat16 __float2bfloat16_rz(float f) {
  return __nv_bfloat16_raw{::cuda_emu::detail::float_to_bf16_rz(f)};
}
inline float __bfloat162float(__nv_bfloat16 b) {
  return static_cast<float>(b);
}
inline unsigned short __bfloat16_as_ushort(__nv_bfloat16 b) {
  return b.__x;
}
inline __nv_bfloat16 __ushort_as_bfloat16(unsigned short u) {
  return __nv_bfloat16_raw{u};
}

// Arithmetic: one float operation, rounded once.
#define CUDA_EMU_BF16_OP(op)                                                \
  inline __nv_bfloat16 operator op(__nv_bfloat16 a, __nv_bfloat16 b) {      \
    return __nv_bfloat16(static_cast<float>(a) op static_cast<float>(b));   \
  }                                                                         \
  inline __nv_bfloat16& operator op##=(__nv_bfloat16& a, __nv_bfloat16 b) { \
    return a = a op b;                                                      \
  }
CUDA_EMU_BF16_OP(+)
CUDA_EMU_BF16_OP(-)
CUDA_EMU_BF16_OP(*)
CUDA_EMU_BF16_OP(/)
#undef CUDA_EMU_BF16_OP
inline __nv_bfloat16 operator-(__nv_bfloat16 a) {
  return __nv_bfloat16_raw{static_cast<unsigned short>(a.__x ^ 0x8000u)};
}
inline __nv_bfloat16 __hadd(__nv_bfloat16 a, __nv_bfloat16 b) {
  return a + b;
}
inline __nv_bfloat16 __hsub(__nv_bfloat16 a, __nv_bfloat16 b) {
  return a - b;
}
inline __nv_bfloat16 __hmul(__nv_bfloat16 a, __nv_bfloat16 b) {
  return a * b;
}
inline __nv_bfloat16 __hfma(__nv_bfloat16 a, __nv_bfloat16 b, __nv_bfloat16 c) {
  // The product of two bf16 values is exact in float; the sum is rounded twice at most
  // one ulp of float apart, far below bf16's step.
  return __nv_bfloat16(static_cast<float>(a) * static_cast<float>(b) + static_cast<float>(c));
}
inline __nv_bfloat16 __hmax(__nv_bfloat16 a, __nv_bfloat16 b) {
  return __nv_bfloat16(fmaxf(static_cast<float>(a), static_cast<float>(b)));
}
inline __nv_bfloat16 __hmin(__nv_bfloat16 a, __nv_bfloat16 b) {
  return __nv_bfloat16(fminf(static_cast<float>(a), static_cast<float>(b)));
}
#define CUDA_EMU_BF16_CMP(op)                                 \
  inline bool operator op(__nv_bfloat16 a, __nv_bfloat16 b) { \
    return static_cast<float>(a) op static_cast<float>(b);    \
  }
CUDA_EMU_BF16_CMP(==)
CUDA_EMU_BF16_CMP(!=)
CUDA_EMU_BF16_CMP(<)
CUDA_EMU_BF16_CMP(>)
CUDA_EMU_BF16_CMP(<=)
CUDA_EMU_BF16_CMP(>=)
#undef CUDA_EMU_BF16_CMP

// A pair, as CUDA's __nv_bfloat162: x in the low 16 bits (the lower address), y above, so a
// store of one writes two neighbouring elements of a bf16 array.
struct alignas(4) __nv_bfloat162 {
  __nv_bfloat16 x, y;
  __nv_bfloat162() = default;
  __nv_bfloat162(__nv_bfloat16 a, __nv_bfloat16 b) : x(a), y(b) {}
};
using nv_bfloat162 = __nv_bfloat162;
inline __nv_bfloat162 __floats2bfloat162_rn(float a, float b) {
  return {__float2bfloat16_rn(a), __float2bfloat16_rn(b)};
}
inline __nv_bfloat162 __halves2bfloat162(__nv_bfloat16 a, __nv_bfloat16 b) {
  return {a, b};
}
inline __nv_bfloat162 __bfloat162bfloat162(__nv_bfloat16 a) {
  return {a, a};
}
inline __nv_bfloat16 __low2bfloat16(__nv_bfloat162 p) {
  return p.x;
}
inline __nv_bfloat16 __high2bfloat16(__nv_bfloat162 p) {
  return p.y;
}
