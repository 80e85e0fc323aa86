// Host entry points of device_code.cu (recursion, atomics, printf, min/max).
//   build/bin/emulator_tests -# "[#test_device_code]"
#pragma once

void adv_recursion(const int* in, int* out, int depth);
void adv_shared_atomics(const int* in, int* out, int blocks, int threads);
void adv_global_atomics(int* ints, float* f, int threads);
void adv_printf(int base, int threads);
bool adv_float_min_max_compiles();                              // max(float, float) in a .cu
void adv_byte_perm(const unsigned* sel, unsigned* out, int n);  // __byte_perm per thread
