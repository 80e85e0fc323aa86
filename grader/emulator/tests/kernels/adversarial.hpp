// Host entry points of adversarial.cu (kernels that probe the emulator's corners).
//   build/bin/emulator_tests "[adversarial]"
#pragma once

#include <cuda_runtime.h>  // float4

struct adv_big {  // 32 bytes: wider than any __tsan_readN hook
  float v[8];
};

// Launch syntax the rewrite must accept; each fills p[0..n) with a value.
void adv_launch_four_config_args(int* p, int n, int v);      // <<<g, b, 0, 0>>>
void adv_launch_nested_template(int* p, int n, int v);       // k<adv_pair<int>, 2><<<>>>
void adv_launch_in_lambda(int* p, int n, int v);             // [&] { k<<<>>>(); }
void adv_launch_in_macro(int* p, int n, int v);              // #define L(k) k<<<>>>()
void adv_launch_with_shifts(int* p, int n, int v);           // a >> b in config and args

// Scheduling.
void adv_index_3d(int* out);  // grid (2,3,2), block (4,2,3): 4 ints per thread
void adv_segment_sums(const int* in, int* out, int threads);
void adv_xor_earlier_segment(int* out);
void adv_shfl_width8(int* out);
void adv_parity_masks(int* out);
void adv_barrier_loop(float* out, int threads, int steps);
void adv_warp_returns_before_barrier(float* out);
void adv_vote_partial(unsigned* out);
void adv_recursion(const int* in, int* out, int depth);
void adv_warp_reduce_syncwarp(const float* in, float* out);
void adv_warp_reduce_syncthreads(const float* in, float* out);
void adv_one_thread_blocks(int* out, int blocks_x, int blocks_y);
void adv_big_local_array(float* out);  // a 160 KiB local array

// Counters.
void adv_copy_double(const double* in, double* out);  // 32 threads
void adv_copy_float4(const float4* in, float4* out);  // 32 threads
void adv_misaligned(const float* in, float* out);      // reads in[t + 1], 32 threads
void adv_stencil(const float* in, float* out);         // in[t - 1] when t > 0, then in[t]
void adv_triangular(const float* in, float* out);      // lane t reads in[0..t)
void adv_odd_lanes(const float* in, float* out);
void adv_grid_stride(const float* in, float* out, int n);  // 32 threads
void adv_serial_sum(const float* in, float* out, int n);   // 1 thread
void adv_shared_double(const double* in, double* out);     // 32 threads

// Memory checks.
void adv_device_vars(float* out, int* counter_out);
void adv_copy(const float* in, float* out, int threads);
void adv_write_bytes(char* p, int threads);
void adv_read_before(const float* in, float* out);
void adv_copy_big(const adv_big* in, adv_big* out, int threads);
void adv_shared_atomics(const int* in, int* out, int blocks, int threads);
void adv_global_atomics(int* ints, float* f, int threads);
void adv_printf(int base, int threads);

// Races.
void adv_raw_across_warps(float* out, bool barrier);  // 64 threads
void adv_waw(float* out);                              // two threads write one word
void adv_own_word(float* out);                         // write, then read back, own word
void adv_broadcast_after_barrier(float* out);          // 256 readers of one word

// Faults and recovery.
void adv_blank(float* out, int blocks);  // thread 5 of block 1 hits BLANK_STMT
void adv_spin(const int* flag, int* out);
void adv_atomic_spin(int* flag);
void adv_static_spin();
void adv_launch_config(int* p, unsigned gx, unsigned gy, unsigned bx, unsigned by, unsigned bz);
void adv_device_assert(int* p);

// More.
void adv_partial_mask_shuffle(int* out);                      // 32 threads
void adv_misaligned_float4(const float* in, float4* out);     // float4 loads at in + 1
void adv_misaligned_float(const float* in, float* out);       // float loads at 2 bytes off
bool adv_float_min_max_compiles();                            // max(float, float) in a .cu
void adv_shared_float4(const float4* in, float4* out);          // 32 threads, __shared__ float4[32]
