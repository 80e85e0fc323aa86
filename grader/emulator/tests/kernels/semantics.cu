// Kernels for the emulator's semantic tests: warp shuffles, ballots, atomics, a
// shared-memory reduction, and the faults the emulator must report (a divergent
// barrier, an endless loop, stray pointers, a missing barrier).
#include <cuda_runtime.h>

#include "semantics.hpp"

namespace {
constexpr unsigned kFull = 0xffffffffu;
}

__global__ void warp_sum_down(const float* in, float* out) {
  float v = in[blockIdx.x * 32 + threadIdx.x];
  for (int offset = 16; offset > 0; offset /= 2) v += __shfl_down_sync(kFull, v, offset);
  if (threadIdx.x == 0) out[blockIdx.x] = v;
}

__global__ void warp_xor_allreduce(const int* in, int* out) {
  int v = in[threadIdx.x];
  for (int mask = 16; mask > 0; mask /= 2) v += __shfl_xor_sync(kFull, v, mask);
  out[threadIdx.x] = v;
}

__global__ void warp_broadcast(const float* in, float* out, int src) {
  out[threadIdx.x] = __shfl_sync(kFull, in[threadIdx.x], src);
}

__global__ void warp_shift_up(int* out) {
  out[threadIdx.x] = __shfl_up_sync(kFull, int(threadIdx.x) * 10, 1);
}

__global__ void warp_ballot(unsigned* out) {
  const unsigned bits = __ballot_sync(kFull, threadIdx.x % 3 == 0);
  if (threadIdx.x == 0) out[0] = bits;
}

__global__ void count_with_atomics(int* counter) {
  atomicAdd(counter, 1);
}

__global__ void block_sum(const float* in, float* out, int n) {
  __shared__ float buf[256];
  const int t = threadIdx.x, i = blockIdx.x * 256 + t;
  buf[t] = i < n ? in[i] : 0.0f;
  __syncthreads();
  for (int s = 128; s > 0; s >>= 1) {
    if (t < s) buf[t] += buf[t + s];
    __syncthreads();
  }
  if (t == 0) atomicAdd(out, buf[0]);
}

__global__ void block_sum_missing_barrier(const float* in, float* out) {
  __shared__ float buf[256];
  const int t = threadIdx.x;
  buf[t] = in[t];
  __syncthreads();
  for (int s = 128; s > 0; s >>= 1) {
    if (t < s) buf[t] += buf[t + s];  // no barrier between the steps
  }
  if (t == 0) out[0] = buf[0];
}

__global__ void divergent_barrier(float* o) {
  if (threadIdx.x >= 16) return;
  __syncthreads();
  o[threadIdx.x] = 1.0f;
}

__global__ void spin_forever(const volatile int* flag, int* out) {
  int spins = 0;
  while (flag[0] == 0) ++spins;
  out[0] = spins;
}

__global__ void copy_each(const float* in, float* out) {
  out[threadIdx.x] = in[threadIdx.x];
}

__global__ void index_2d(int* out, int width) {
  const int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y * blockDim.y + threadIdx.y;
  out[y * width + x] = y * 1000 + x;
}

void run_warp_sum_down(const float* in, float* out, int warps) {
  warp_sum_down<<<warps, 32>>>(in, out);
}
void run_warp_xor_allreduce(const int* in, int* out) {
  warp_xor_allreduce<<<1, 32>>>(in, out);
}
void run_warp_broadcast(const float* in, float* out, int src) {
  warp_broadcast<<<1, 32>>>(in, out, src);
}
void run_warp_shift_up(int* out) {
  warp_shift_up<<<1, 32>>>(out);
}
void run_warp_ballot(unsigned* out) {
  warp_ballot<<<1, 32>>>(out);
}
void run_count_with_atomics(int* counter, int blocks, int threads) {
  count_with_atomics<<<blocks, threads>>>(counter);
}
void run_block_sum(const float* in, float* out, int n) {
  block_sum<<<(n + 255) / 256, 256>>>(in, out, n);
}
void run_block_sum_missing_barrier(const float* in, float* out) {
  block_sum_missing_barrier<<<1, 256>>>(in, out);
}
void run_divergent_barrier(float* o) {
  divergent_barrier<<<1, 32>>>(o);
}
void run_spin_forever(const int* flag, int* out) {
  spin_forever<<<1, 1>>>(flag, out);
}
void run_copy_each(const float* in, float* out, int threads) {
  copy_each<<<1, threads>>>(in, out);
}
void run_index_2d(int* out, int width, int height) {
  index_2d<<<dim3(width / 8, height / 4), dim3(8, 4)>>>(out, width);
}

// g++ leaves a static local of a template out of the shared section: the rewrite
// gives it a slot of the emulator's shared pool instead.
template <int N>
__global__ void template_local_shared(float* o) {
  __shared__ float s[N];
  s[threadIdx.x] = 1.0f;
  __syncthreads();
  o[threadIdx.x] = s[threadIdx.x];
}
void run_template_local_shared(float* o) {
  template_local_shared<32><<<1, 32>>>(o);
}
