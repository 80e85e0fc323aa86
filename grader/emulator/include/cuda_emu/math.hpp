// CUDA's device math beyond <math.h> for the CPU emulator: integer, float and
// double min/max, the fast-math intrinsics (__expf, __logf, __fdividef,
// rsqrtf, __saturatef), which the emulator computes exactly, and __byte_perm. Part of
// cuda_emu/cuda.hpp; include that, not this.
#pragma once

#include <math.h>  // expf, fmaxf, INFINITY in the global namespace, as in CUDA

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
inline float min(float a, float b) {
  return fminf(a, b);
}
inline float max(float a, float b) {
  return fmaxf(a, b);
}
inline double min(double a, double b) {
  return fmin(a, b);
}
inline double max(double a, double b) {
  return fmax(a, b);
}

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

// Byte n of the result is byte (s >> 4n) & 7 of the 8 bytes y:x (x the low four), as PTX's
// prmt in its default mode; used to pack two bf16 or half values into one word.
inline unsigned __byte_perm(unsigned x, unsigned y, unsigned s) {
  const unsigned long long bytes = (static_cast<unsigned long long>(y) << 32) | x;
  unsigned r = 0;
  for (int n = 0; n < 4; ++n)
    r |= static_cast<unsigned>((bytes >> (8 * ((s >> (4 * n)) & 7))) & 0xFF) << (8 * n);
  return r;
}
