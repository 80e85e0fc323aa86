// Host entry points of memcheck.cu (accesses the memory checks must judge).
//   build/bin/emulator_tests -# "[#test_memcheck]"
#pragma once

#include <cuda_runtime.h>  // float4

void adv_device_vars(float* out, int* counter_out);
void adv_write_bytes(char* p, int threads);
void adv_read_before(const float* in, float* out);
void adv_misaligned_float4(const float* in, float4* out);       // float4 loads at in + 1
void adv_misaligned_float(const float* in, float* out);         // float loads at 2 bytes off
void adv_write_far_below(float* out, long offset_floats);       // out[t - offset] = 1, 32 threads
void adv_atomic_count(int* counter, long offset, int threads);  // atomicAdd(counter + offset, 1)
void adv_device_scores(float* out);  // 64 threads fill a __device__ float[64 * 64]
void adv_local_array(const float* in, float* out, int n);  // a local float[1024], n used
void adv_neighbour_local(float* out);  // thread t reads a local array of thread t - 1
