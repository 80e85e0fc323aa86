// Host entry points of warp.cu (shuffles and votes).
//   build/bin/emulator_tests -# "[#test_warp]"
#pragma once

void adv_segment_sums(const int* in, int* out, int threads);
void adv_xor_earlier_segment(int* out);
void adv_shfl_width8(int* out);
void adv_parity_masks(int* out);
void adv_vote_partial(unsigned* out);
void adv_masked_partial_reduction(const int* in, int* out, int threads, int bc);
void adv_half_warp_reductions(int* out, bool by_width);
void adv_same_mask_different_ops(int* out);
void adv_warp_deadlock(int* out);
void adv_xor_outside_mask(float* out);
void adv_shuffle_after_return(float* out);
void adv_shuffle_vs_barrier(int* out);
