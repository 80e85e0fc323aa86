// Host entry points of races.cu (shared-memory accesses for the race check).
//   build/bin/emulator_tests -# "[#test_races]"
#pragma once

void adv_raw_across_warps(float* out, bool barrier);  // 64 threads
void adv_waw(float* out);                             // two threads write one word
void adv_own_word(float* out);                        // write, then read back, own word
void adv_broadcast_after_barrier(float* out);         // 256 readers of one word
void adv_warp_reduce_syncwarp(const float* in, float* out);
void adv_warp_read_then_write(float* out, int mode);
void adv_warp_reduce_syncthreads(const float* in, float* out);
void adv_half_words(float* out, int mode);        // 2-byte and 4-byte accesses, 64 threads
void adv_reads_then_write(float* out, int mode);  // many reads, two instructions, a write
void adv_stale_dynamic(float* out);               // three launches; the last has no race
