// Host entry points of semantics.cu (see there). Pointers are device pointers
// unless a test passes a host pointer on purpose.
#pragma once

void run_warp_sum_down(const float* in, float* out, int warps);
void run_warp_xor_allreduce(const int* in, int* out);
void run_warp_broadcast(const float* in, float* out, int src);
void run_warp_shift_up(int* out);
void run_warp_ballot(unsigned* out);
void run_count_with_atomics(int* counter, int blocks, int threads);
void run_block_sum(const float* in, float* out, int n);
void run_block_sum_missing_barrier(const float* in, float* out);
void run_divergent_barrier(float* o);
void run_spin_forever(const int* flag, int* out);
void run_copy_each(const float* in, float* out, int threads);
void run_index_2d(int* out, int width, int height);
void run_template_local_shared(float* o);
