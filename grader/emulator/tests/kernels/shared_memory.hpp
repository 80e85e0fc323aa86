// Host entry points of shared_memory.cu (shared-memory requests and wavefronts).
//   build/bin/emulator_tests -# "[#test_shared_memory]"
#pragma once

#include <cuda_runtime.h>  // float4

void adv_barrier_loop(float* out, int threads, int steps);
void adv_shared_double(const double* in, double* out);  // 32 threads
void adv_shared_float4(const float4* in, float4* out);  // 32 threads, __shared__ float4[32]
