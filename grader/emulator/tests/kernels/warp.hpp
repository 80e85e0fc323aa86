// Host entry points of warp.cu (shuffles and votes).
//   build/bin/emulator_tests -# "[#test_warp]"
#pragma once

void adv_segment_sums(const int* in, int* out, int threads);
void adv_xor_earlier_segment(int* out);
void adv_shfl_width8(int* out);
void adv_parity_masks(int* out);
void adv_vote_partial(unsigned* out);
