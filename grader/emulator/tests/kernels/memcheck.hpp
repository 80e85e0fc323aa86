// Host entry points of memcheck.cu (accesses the memory checks must judge).
//   build/bin/emulator_tests -# "[#test_memcheck]"
#pragma once

#include <cuda_runtime.h>  // float4

void adv_device_vars(float* out, int* counter_out);
void adv_write_bytes(char* p, int threads);
void adv_read_before(const float* in, float* out);
void adv_misaligned_float4(const float* in, float4* out);  // float4 loads at in + 1
void adv_misaligned_float(const float* in, float* out);    // float loads at 2 bytes off
