// Host entry points of coalescing.cu (global request and sector counting).
//   build/bin/emulator_tests -# "[#test_coalescing]"
#pragma once

#include <cuda_runtime.h>  // float4

void adv_copy_double(const double* in, double* out);  // 32 threads
void adv_copy_float4(const float4* in, float4* out);  // 32 threads
void adv_misaligned(const float* in, float* out);     // reads in[t + 1], 32 threads
void adv_stencil(const float* in, float* out);        // in[t - 1] when t > 0, then in[t]
void adv_triangular(const float* in, float* out);     // lane t reads in[0..t)
void adv_odd_lanes(const float* in, float* out);
void adv_grid_stride(const float* in, float* out, int n);  // 32 threads
void adv_serial_sum(const float* in, float* out, int n);   // 1 thread
void adv_partial_mask_shuffle(int* out);                   // 32 threads
// Row r (0..6) of the H200 vector/broadcast table, on n floats in a and o.
void vec_table_kernel(int row, const float* a, float* o, int n);
