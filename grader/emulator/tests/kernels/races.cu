// Kernels for test_races.cpp: shared-memory accesses with and without the
// barriers that order them, and a warp reduction ordered by __syncwarp only.
// Plain CUDA.
#include <cuda_runtime.h>

#include "races.hpp"

__global__ void adv_raw_kernel(float* out, bool barrier) {
  __shared__ float adv_raw[64];
  const int t = threadIdx.x;
  adv_raw[t] = float(t);
  if (barrier) __syncthreads();
  out[t] = adv_raw[63 - t];  // warp 0 reads what warp 1 wrote and the other way round
}
void adv_raw_across_warps(float* out, bool barrier) {
  adv_raw_kernel<<<1, 64>>>(out, barrier);
}

__global__ void adv_waw_kernel(float* out) {
  __shared__ float adv_cell[32];
  const int t = threadIdx.x;
  if (t < 2) adv_cell[0] = float(t);  // threads 0 and 1 write the same word
  __syncthreads();
  out[t] = adv_cell[0];
}
void adv_waw(float* out) {
  adv_waw_kernel<<<1, 32>>>(out);
}

__global__ void adv_own_word_kernel(float* out) {
  __shared__ float adv_own[128];
  const int t = threadIdx.x;
  adv_own[t] = float(t);
  adv_own[t] += 1.0f;
  out[t] = adv_own[t];
}
void adv_own_word(float* out) {
  adv_own_word_kernel<<<1, 128>>>(out);
}

__global__ void adv_broadcast_kernel(float* out) {
  __shared__ float adv_one;
  if (threadIdx.x == 0) adv_one = 42.0f;
  __syncthreads();
  out[threadIdx.x] = adv_one;
}
void adv_broadcast_after_barrier(float* out) {
  adv_broadcast_kernel<<<1, 256>>>(out);
}

// A warp-synchronous tree reduction in shared memory, synchronised with
// __syncwarp between the read and the write of every step (the Volta-safe form).
__global__ void adv_warp_reduce_syncwarp_kernel(const float* in, float* out) {
  __shared__ float adv_wsum[64];
  const int t = threadIdx.x;
  adv_wsum[t] = in[t];
  adv_wsum[t + 32] = in[t + 32];
  __syncwarp();
  for (int off = 32; off > 0; off /= 2) {
    float v = 0.0f;
    if (t < off) v = adv_wsum[t] + adv_wsum[t + off];
    __syncwarp();
    if (t < off) adv_wsum[t] = v;
    __syncwarp();
  }
  if (t == 0) out[0] = adv_wsum[0];
}
void adv_warp_reduce_syncwarp(const float* in, float* out) {
  adv_warp_reduce_syncwarp_kernel<<<1, 32>>>(in, out);
}

// The same reduction with __syncthreads: the control.
__global__ void adv_warp_reduce_syncthreads_kernel(const float* in, float* out) {
  __shared__ float adv_bsum[64];
  const int t = threadIdx.x;
  adv_bsum[t] = in[t];
  adv_bsum[t + 32] = in[t + 32];
  __syncthreads();
  for (int off = 32; off > 0; off /= 2) {
    float v = 0.0f;
    if (t < off) v = adv_bsum[t] + adv_bsum[t + off];
    __syncthreads();
    if (t < off) adv_bsum[t] = v;
    __syncthreads();
  }
  if (t == 0) out[0] = adv_bsum[0];
}
void adv_warp_reduce_syncthreads(const float* in, float* out) {
  adv_warp_reduce_syncthreads_kernel<<<1, 32>>>(in, out);
}

// Every lane reads one shared word, then lane 0 rewrites it: ordered by a __syncwarp (mode
// 1), a race without one (mode 0); with a second warp reading too (mode 2, 64 threads) the
// writer's __syncwarp cannot order that warp's read, so it stays a race.
__global__ void adv_warp_read_then_write_kernel(float* out, int mode) {
  __shared__ float adv_word;
  if (threadIdx.x == 0) adv_word = 1.0f;
  __syncthreads();
  const float v = adv_word;
  if (mode != 0) __syncwarp();
  if (threadIdx.x == 0) adv_word = 2.0f;
  out[threadIdx.x] = v;
}
void adv_warp_read_then_write(float* out, int mode) {
  adv_warp_read_then_write_kernel<<<1, mode == 2 ? 64 : 32>>>(out, mode);
}

// Two-byte elements and whole words over the same 16 shared words, by the two warps of a
// 64-thread block (warp 0 runs first in order, so each race has one pair of instructions):
//   mode 0, 1: warp 0's lanes write one half each (neighbours: no race), then warp 1's first
//              16 lanes read a whole word each, after a barrier (0) or without one (1);
//   mode 2:    warp 1's first 16 lanes write whole words, warp 0's lanes read one half each
//              in the same phase;
//   mode 3:    as 0, then in the next phase warp 0 reads halves while warp 1 writes words.
__global__ void adv_half_words_kernel(float* out, int mode) {
  __shared__ uint32_t adv_words[16];
  uint16_t* halves = reinterpret_cast<uint16_t*>(adv_words);
  const int t = threadIdx.x;
  if (mode != 2 && t < 32) halves[t] = static_cast<uint16_t>(t);
  if (mode == 0 || mode == 3) __syncthreads();
  if (mode == 2 && t >= 32 && t < 48) adv_words[t - 32] = 7u;
  float v = 0.0f;
  if ((mode == 0 || mode == 1) && t >= 32 && t < 48) v = static_cast<float>(adv_words[t - 32]);
  if ((mode == 2 || mode == 3) && t < 32) v = static_cast<float>(halves[t]);
  if (mode == 3 && t >= 32 && t < 48) adv_words[t - 32] = 9u;
  out[t] = v;
}
void adv_half_words(float* out, int mode) {
  adv_half_words_kernel<<<1, 64>>>(out, mode);
}

// One shared word read in one phase by every thread through one instruction, then by
// some through a second (adv_second_read), and last written by the last thread, with no
// barrier between: the write races the latest read, which must be the second
// instruction's (the read summaries may skip a read only when nothing it would change can
// show). mode 0: 4 warps, warp 3 also reads through the second; mode 1: one warp, lane 31
// alone reads through the second.
__device__ __attribute__((noinline)) float adv_second_read(const float* word) {
  return *word;
}
__global__ void adv_reads_then_write_kernel(float* out, int mode) {
  __shared__ float adv_read_word;
  const int t = threadIdx.x;
  if (t == 0) adv_read_word = 3.0f;
  __syncthreads();
  float v = adv_read_word;
  if (mode == 0 ? t >= 96 : t == 31) v += adv_second_read(&adv_read_word);
  if (t == static_cast<int>(blockDim.x) - 1) adv_read_word = 4.0f;
  out[t] = v;
}
void adv_reads_then_write(float* out, int mode) {
  adv_reads_then_write_kernel<<<1, mode == 0 ? 128 : 32>>>(out, mode);
}

// Three launches over the dynamic shared bytes: a neighbour's writes, then a kernel that
// uses none, then each thread its own word. The last is race-free: what the first left in
// the race check's state must not be read as a write of this launch.
__global__ void adv_stale_dynamic_kernel(float* out, int shift) {
  extern __shared__ float adv_dyn[];
  const int t = threadIdx.x;
  if (shift >= 0) {
    adv_dyn[(t + shift) % blockDim.x] = float(t);
    __syncthreads();
    out[t] = adv_dyn[t];
  } else {
    out[t] = float(t);
  }
}
void adv_stale_dynamic(float* out) {
  adv_stale_dynamic_kernel<<<1, 64, 64 * sizeof(float)>>>(out, 1);
  adv_stale_dynamic_kernel<<<1, 64>>>(out, -1);
  adv_stale_dynamic_kernel<<<1, 64, 64 * sizeof(float)>>>(out, 0);
}
