// Kernels for test_warp.cpp: shuffles within 8- and 16-lane segments, disjoint
// masks, and votes in a block whose last warp has 8 lanes. Plain CUDA.
#include <cuda_runtime.h>

#include "warp.hpp"

namespace {
constexpr unsigned kFull = 0xffffffffu;
}

// Sums within 16-lane segments; a 48-thread block has a half warp.
__global__ void adv_segment_sums_kernel(const int* in, int* out) {
  int v = in[threadIdx.x];
  for (int m = 8; m > 0; m /= 2) v += __shfl_xor_sync(kFull, v, m, 16);
  out[threadIdx.x] = v;
}
void adv_segment_sums(const int* in, int* out, int threads) {
  adv_segment_sums_kernel<<<1, threads>>>(in, out);
}

// CUDA: with width < 32, __shfl_xor_sync may read from an earlier segment.
__global__ void adv_xor_earlier_segment_kernel(int* out) {
  out[threadIdx.x] = __shfl_xor_sync(kFull, int(threadIdx.x), 16, 16);
}
void adv_xor_earlier_segment(int* out) {
  adv_xor_earlier_segment_kernel<<<1, 32>>>(out);
}

__global__ void adv_shfl_width8_kernel(int* out) {
  const int t = threadIdx.x;
  out[t] = __shfl_sync(kFull, t, 3, 8);            // lane 3 of my 8-lane segment
  out[32 + t] = __shfl_up_sync(kFull, t, 2, 8);    // stays in the segment
  out[64 + t] = __shfl_down_sync(kFull, t, 5, 8);  // stays in the segment
  out[96 + t] = __shfl_sync(kFull, t, -1, 8);      // lane 7 of the segment
}
void adv_shfl_width8(int* out) {
  adv_shfl_width8_kernel<<<1, 32>>>(out);
}

// Two disjoint groups of lanes shuffle at the same time (legal since Volta).
__global__ void adv_parity_masks_kernel(int* out) {
  const int lane = threadIdx.x;
  int v = lane * 10;
  if (lane % 2 == 0)
    v = __shfl_sync(0x55555555u, v, 0);
  else
    v = __shfl_sync(0xaaaaaaaau, v, 1);
  out[lane] = v;
}
void adv_parity_masks(int* out) {
  adv_parity_masks_kernel<<<1, 32>>>(out);
}

// A 40-thread block: warp 1 has 8 lanes.
__global__ void adv_vote_partial_kernel(unsigned* out) {
  const int t = threadIdx.x, w = t / 32;
  const unsigned bits = __ballot_sync(kFull, t % 2 == 1);
  const int any = __any_sync(kFull, t == 37);
  const int all = __all_sync(kFull, t < 40);
  const int all_but = __all_sync(kFull, t != 35);
  if (t % 32 == 0) {
    out[w * 4 + 0] = bits;
    out[w * 4 + 1] = any;
    out[w * 4 + 2] = all;
    out[w * 4 + 3] = all_but;
  }
}
void adv_vote_partial(unsigned* out) {
  adv_vote_partial_kernel<<<1, 40>>>(out);
}

// A partial tile: lanes < bc reduce among themselves (mask from a ballot, partner kept
// only when it holds a value) while lanes >= bc already wait at the full-mask broadcast
// (legal with independent thread scheduling, sm_70+).
__global__ void adv_masked_partial_reduction_kernel(const int* in, int* out, int bc) {
  const int lane = threadIdx.x % 32;
  int v = in[threadIdx.x];
  const unsigned live = __ballot_sync(kFull, lane < bc);
  if (lane < bc) {
    for (int off = 16; off > 0; off >>= 1) {
      const int other = __shfl_down_sync(live, v, off);
      if (lane + off < bc) v += other;
    }
  }
  v = __shfl_sync(kFull, v, 0);
  out[threadIdx.x] = v;
}
void adv_masked_partial_reduction(const int* in, int* out, int threads, int bc) {
  adv_masked_partial_reduction_kernel<<<1, threads>>>(in, out, bc);
}

// Lanes 0-15 and 16-31 each reduce their half with its own mask, both pending at once;
// then the whole warp meets at a __syncwarp and a full-mask shuffle.
__global__ void adv_half_warp_reductions_kernel(int* out, bool by_width) {
  const int lane = threadIdx.x;
  int v = lane;
  if (lane < 16) {
    for (int m = 8; m > 0; m /= 2)
      v += by_width ? __shfl_xor_sync(kFull >> 16, v, m, 16) : __shfl_xor_sync(0x0000ffffu, v, m);
  } else {
    for (int m = 8; m > 0; m /= 2)
      v += by_width ? __shfl_xor_sync(kFull << 16, v, m, 16) : __shfl_xor_sync(0xffff0000u, v, m);
  }
  __syncwarp();
  out[lane] = v + 1000 * __shfl_sync(kFull, v, 31 - lane);
}
void adv_half_warp_reductions(int* out, bool by_width) {
  adv_half_warp_reductions_kernel<<<1, 32>>>(out, by_width);
}

// The same mask at two different operations: divergence, an error.
__global__ void adv_same_mask_different_ops_kernel(int* out) {
  const int lane = threadIdx.x;
  int v = lane;
  if (lane < 16)
    v = __shfl_sync(kFull, v, 0);
  else
    v = __shfl_xor_sync(kFull, v, 1);
  out[lane] = v;
}
void adv_same_mask_different_ops(int* out) {
  adv_same_mask_different_ops_kernel<<<1, 32>>>(out);
}

// Each half waits at a mask that also names a lane of the other half: neither can
// complete, and every lane waits.
__global__ void adv_warp_deadlock_kernel(int* out) {
  const int lane = threadIdx.x;
  int v = lane;
  if (lane < 16)
    v = __shfl_sync(0x0001ffffu, v, 0);
  else
    v = __shfl_sync(0xffff0001u, v, 16);
  out[lane] = v;
}
void adv_warp_deadlock(int* out) {
  adv_warp_deadlock_kernel<<<1, 32>>>(out);
}

// Butterfly partners outside the mask (lanes < 7 reading lanes 8..16): undefined values.
__global__ void adv_xor_outside_mask_kernel(float* out) {
  const int lane = threadIdx.x;
  float v = 1.0f;
  const unsigned live = __ballot_sync(kFull, lane < 7);
  if (lane < 7)
    for (int off = 16; off > 0; off >>= 1) v += __shfl_xor_sync(live, v, off);
  out[lane] = __shfl_sync(kFull, v, 0);
}
void adv_xor_outside_mask(float* out) {
  adv_xor_outside_mask_kernel<<<1, 32>>>(out);
}

// A warp sum after an early return: lanes 20..31 leave before the shuffles, so lanes
// 4..19 read returned lanes (undefined on a GPU).
__global__ void adv_shuffle_after_return_kernel(float* out) {
  const int lane = threadIdx.x;
  if (lane >= 20) return;
  float v = 1.0f;
  for (int off = 16; off > 0; off >>= 1) v += __shfl_down_sync(kFull, v, off);
  if (lane == 0) out[0] = v;
}
void adv_shuffle_after_return(float* out) {
  adv_shuffle_after_return_kernel<<<1, 32>>>(out);
}

// Lanes 0-15 wait at a full-mask shuffle that lanes 16-31, at __syncthreads, never reach.
__global__ void adv_shuffle_vs_barrier_kernel(int* out) {
  const int lane = threadIdx.x;
  int v = lane;
  if (lane < 16)
    v = __shfl_sync(kFull, v, 0);
  else
    __syncthreads();
  out[lane] = v;
}
void adv_shuffle_vs_barrier(int* out) {
  adv_shuffle_vs_barrier_kernel<<<1, 32>>>(out);
}
