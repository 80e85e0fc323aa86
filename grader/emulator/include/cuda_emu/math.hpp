// CUDA's device math beyond <math.h> for the CPU emulator: integer, float and
// double min/max, and the fast-math intrinsics (__expf, __logf, __fdividef,
// rsqrtf, __saturatef), which the emulator computes exactly. Part of
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
