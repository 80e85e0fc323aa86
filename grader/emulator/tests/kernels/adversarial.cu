// Kernels that probe the emulator's corners: launch syntax, 3-D and partial warps,
// segment shuffles, request grouping, memcheck edges, races, faults. Plain CUDA.
#undef NDEBUG  // device assert() is tested; a Release build would drop it
#include <assert.h>
#include <cuda_runtime.h>
#include <limits.h>
#include <stdio.h>

#include "adversarial.hpp"
#include "course/blank.hpp"

namespace {
constexpr unsigned kFull = 0xffffffffu;
}

// ---- launch syntax ------------------------------------------------------------
__global__ void adv_fill(int* p, int v) { p[blockIdx.x * blockDim.x + threadIdx.x] = v; }

template <class T>
struct adv_pair {
  T a, b;
};

template <class P, int N>
__global__ void adv_apply(int* p, int v) {
  P pair{v, N};
  p[threadIdx.x] = pair.a * pair.b / N;
}

#define ADV_LAUNCH(kernel, threads, ...) kernel<<<1, threads>>>(__VA_ARGS__)

void adv_launch_four_config_args(int* p, int n, int v) { adv_fill<<<1, n, 0, 0>>>(p, v); }
void adv_launch_nested_template(int* p, int n, int v) { adv_apply<adv_pair<int>, 2><<<1, n>>>(p, v); }
void adv_launch_in_lambda(int* p, int n, int v) {
  auto go = [&](int value) { adv_fill<<<1, n>>>(p, value); };
  go(v);
}
void adv_launch_in_macro(int* p, int n, int v) { ADV_LAUNCH(adv_fill, n, p, v); }
void adv_launch_with_shifts(int* p, int n, int v) {
  adv_fill<<<(n >> 5) << 1 >> 1, 32 >> 0>>>(p, (v << 2) >> 2);
}

// ---- scheduling ---------------------------------------------------------------
__global__ void adv_index_3d_kernel(int* out) {
  const int block = (blockIdx.z * gridDim.y + blockIdx.y) * gridDim.x + blockIdx.x;
  const int n = blockDim.x * blockDim.y * blockDim.z;
  const int t = (threadIdx.z * blockDim.y + threadIdx.y) * blockDim.x + threadIdx.x;
  int* o = out + 4 * (block * n + t);
  o[0] = threadIdx.x + 10 * threadIdx.y + 100 * threadIdx.z;
  o[1] = blockIdx.x + 10 * blockIdx.y + 100 * blockIdx.z;
  o[2] = blockDim.x + 10 * blockDim.y + 100 * blockDim.z;
  o[3] = gridDim.x + 10 * gridDim.y + 100 * gridDim.z;
}
void adv_index_3d(int* out) { adv_index_3d_kernel<<<dim3(2, 3, 2), dim3(4, 2, 3)>>>(out); }

// Sums within 16-lane segments; a 48-thread block has a half warp.
__global__ void adv_segment_sums_kernel(const int* in, int* out) {
  int v = in[threadIdx.x];
  for (int m = 8; m > 0; m /= 2) v += __shfl_xor_sync(kFull, v, m, 16);
  out[threadIdx.x] = v;
}
void adv_segment_sums(const int* in, int* out, int threads) { adv_segment_sums_kernel<<<1, threads>>>(in, out); }

// CUDA: with width < 32, __shfl_xor_sync may read from an earlier segment.
__global__ void adv_xor_earlier_segment_kernel(int* out) {
  out[threadIdx.x] = __shfl_xor_sync(kFull, int(threadIdx.x), 16, 16);
}
void adv_xor_earlier_segment(int* out) { adv_xor_earlier_segment_kernel<<<1, 32>>>(out); }

__global__ void adv_shfl_width8_kernel(int* out) {
  const int t = threadIdx.x;
  out[t] = __shfl_sync(kFull, t, 3, 8);             // lane 3 of my 8-lane segment
  out[32 + t] = __shfl_up_sync(kFull, t, 2, 8);     // stays in the segment
  out[64 + t] = __shfl_down_sync(kFull, t, 5, 8);   // stays in the segment
  out[96 + t] = __shfl_sync(kFull, t, -1, 8);       // lane 7 of the segment
}
void adv_shfl_width8(int* out) { adv_shfl_width8_kernel<<<1, 32>>>(out); }

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
void adv_parity_masks(int* out) { adv_parity_masks_kernel<<<1, 32>>>(out); }

__global__ void adv_barrier_loop_kernel(float* out, int steps) {
  __shared__ float adv_rot[2][1024];
  const int t = threadIdx.x, n = blockDim.x;
  adv_rot[0][t] = float(t);
  __syncthreads();
  for (int s = 0; s < steps; ++s) {
    const int cur = s & 1;
    adv_rot[cur ^ 1][t] = adv_rot[cur][(t + 1) % n];
    __syncthreads();
  }
  out[t] = adv_rot[steps & 1][t];
}
void adv_barrier_loop(float* out, int threads, int steps) { adv_barrier_loop_kernel<<<1, threads>>>(out, steps); }

__global__ void adv_warp_returns_kernel(float* out) {
  if (threadIdx.x >= 32) return;  // warp 1 leaves
  __syncthreads();                // warp 0 waits here
  out[threadIdx.x] = 1.0f;
}
void adv_warp_returns_before_barrier(float* out) { adv_warp_returns_kernel<<<1, 64>>>(out); }

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
void adv_vote_partial(unsigned* out) { adv_vote_partial_kernel<<<1, 40>>>(out); }

__device__ int adv_leaf(const int* in, int i) { return in[i % 4]; }
__device__ int adv_middle(const int* in, int i) { return adv_leaf(in, i) + adv_leaf(in, i + 1); }
__device__ int adv_recurse(const int* in, int depth) {
  volatile int local[16];
  for (int i = 0; i < 16; ++i) local[i] = depth + i;
  if (depth == 0) return adv_middle(in, 0);
  return local[depth % 16] - depth - depth % 16 + adv_recurse(in, depth - 1) + 1;
}
__global__ void adv_recursion_kernel(const int* in, int* out, int depth) {
  out[threadIdx.x] = adv_recurse(in, depth + int(threadIdx.x));
}
void adv_recursion(const int* in, int* out, int depth) { adv_recursion_kernel<<<1, 32>>>(in, out, depth); }

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
void adv_warp_reduce_syncwarp(const float* in, float* out) { adv_warp_reduce_syncwarp_kernel<<<1, 32>>>(in, out); }

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

__global__ void adv_one_thread_blocks_kernel(int* out) {
  out[blockIdx.y * gridDim.x + blockIdx.x] = int(blockIdx.x) * 2 + int(blockIdx.y);
}
void adv_one_thread_blocks(int* out, int blocks_x, int blocks_y) {
  adv_one_thread_blocks_kernel<<<dim3(blocks_x, blocks_y), 1>>>(out);
}

__global__ void adv_big_local_array_kernel(float* out) {
  volatile float local[40000];  // 160 KB of local memory (a GPU allows 512 KB)
  for (int i = 0; i < 40000; ++i) local[i] = float(i);
  out[threadIdx.x] = local[39999];
}
void adv_big_local_array(float* out) { adv_big_local_array_kernel<<<1, 1>>>(out); }

// ---- counters -----------------------------------------------------------------
__global__ void adv_copy_double_kernel(const double* in, double* out) { out[threadIdx.x] = in[threadIdx.x]; }
void adv_copy_double(const double* in, double* out) { adv_copy_double_kernel<<<1, 32>>>(in, out); }

__global__ void adv_copy_float4_kernel(const float4* in, float4* out) { out[threadIdx.x] = in[threadIdx.x]; }
void adv_copy_float4(const float4* in, float4* out) { adv_copy_float4_kernel<<<1, 32>>>(in, out); }

__global__ void adv_misaligned_kernel(const float* in, float* out) { out[threadIdx.x] = in[threadIdx.x + 1]; }
void adv_misaligned(const float* in, float* out) { adv_misaligned_kernel<<<1, 32>>>(in, out); }

__global__ void adv_stencil_kernel(const float* in, float* out) {
  const int t = threadIdx.x;
  float left = 0.0f;
  if (t > 0) left = in[t - 1];  // lane 0 skips this load
  out[t] = left + in[t];        // every lane: one request
}
void adv_stencil(const float* in, float* out) { adv_stencil_kernel<<<1, 32>>>(in, out); }

__global__ void adv_triangular_kernel(const float* in, float* out) {
  const int t = threadIdx.x;
  float acc = 0.0f;
  for (int j = 0; j < t; ++j) acc += in[j];  // lane t runs t iterations
  out[t] = acc;                              // every lane: one request
}
void adv_triangular(const float* in, float* out) { adv_triangular_kernel<<<1, 32>>>(in, out); }

__global__ void adv_odd_lanes_kernel(const float* in, float* out) {
  const int t = threadIdx.x;
  if (t & 1) out[t] = in[t];
}
void adv_odd_lanes(const float* in, float* out) { adv_odd_lanes_kernel<<<1, 32>>>(in, out); }

__global__ void adv_grid_stride_kernel(const float* in, float* out, int n) {
  float acc = 0.0f;
  for (int i = threadIdx.x; i < n; i += blockDim.x) acc += in[i];
  out[threadIdx.x] = acc;
}
void adv_grid_stride(const float* in, float* out, int n) { adv_grid_stride_kernel<<<1, 32>>>(in, out, n); }

__global__ void adv_serial_sum_kernel(const float* in, float* out, int n) {
  float acc = 0.0f;
  for (int i = 0; i < n; ++i) acc += in[i];
  out[0] = acc;
}
void adv_serial_sum(const float* in, float* out, int n) { adv_serial_sum_kernel<<<1, 1>>>(in, out, n); }

__global__ void adv_shared_double_kernel(const double* in, double* out) {
  __shared__ double adv_dbl[32];
  const int t = threadIdx.x;
  adv_dbl[t] = in[t];
  __syncthreads();
  out[t] = adv_dbl[31 - t];
}
void adv_shared_double(const double* in, double* out) { adv_shared_double_kernel<<<1, 32>>>(in, out); }

// ---- memory checks ------------------------------------------------------------
__device__ float adv_dev_table[4] = {1.0f, 2.0f, 3.0f, 4.0f};
__device__ int adv_dev_counter;
__device__ volatile int adv_dev_flag;

__global__ void adv_device_vars_kernel(float* out) {
  out[threadIdx.x] = adv_dev_table[threadIdx.x % 4];
  atomicAdd(&adv_dev_counter, 1);
}
__global__ void adv_read_counter_kernel(int* out) { out[0] = adv_dev_counter; }
void adv_device_vars(float* out, int* counter_out) {
  adv_device_vars_kernel<<<1, 32>>>(out);
  adv_read_counter_kernel<<<1, 1>>>(counter_out);
}

__global__ void adv_copy_kernel(const float* in, float* out) { out[threadIdx.x] = in[threadIdx.x]; }
void adv_copy(const float* in, float* out, int threads) { adv_copy_kernel<<<1, threads>>>(in, out); }

__global__ void adv_write_bytes_kernel(char* p) { p[threadIdx.x] = 1; }
void adv_write_bytes(char* p, int threads) { adv_write_bytes_kernel<<<1, threads>>>(p); }

__global__ void adv_read_before_kernel(const float* in, float* out) {
  const int t = threadIdx.x;
  out[t] = in[t - 1];  // thread 0 reads one element before the start
}
void adv_read_before(const float* in, float* out) { adv_read_before_kernel<<<1, 32>>>(in, out); }

__global__ void adv_copy_big_kernel(const adv_big* in, adv_big* out) { out[threadIdx.x] = in[threadIdx.x]; }
void adv_copy_big(const adv_big* in, adv_big* out, int threads) { adv_copy_big_kernel<<<1, threads>>>(in, out); }

__global__ void adv_shared_atomics_kernel(const int* in, int* out) {
  __shared__ int adv_count, adv_max;
  const int t = threadIdx.x;
  if (t == 0) {
    adv_count = 0;
    adv_max = INT_MIN;
  }
  __syncthreads();
  atomicAdd(&adv_count, 1);
  atomicMax(&adv_max, in[blockIdx.x * blockDim.x + t]);
  __syncthreads();
  if (t == 0) {
    out[2 * blockIdx.x] = adv_count;
    out[2 * blockIdx.x + 1] = adv_max;
  }
}
void adv_shared_atomics(const int* in, int* out, int blocks, int threads) {
  adv_shared_atomics_kernel<<<blocks, threads>>>(in, out);
}

// ints: [0] sum, [1] max, [2] min, [3] CAS-claimed slot owner, [4] exch; f: [0] sum.
__global__ void adv_global_atomics_kernel(int* ints, float* f) {
  const int t = threadIdx.x;
  atomicAdd(&ints[0], t);
  atomicMax(&ints[1], t * 3);
  atomicMin(&ints[2], 100 - t);
  atomicCAS(&ints[3], -1, t);  // only the first thread wins
  atomicSub(&ints[4], 2);
  atomicAdd(&f[0], 0.5f);
}
void adv_global_atomics(int* ints, float* f, int threads) { adv_global_atomics_kernel<<<1, threads>>>(ints, f); }

__global__ void adv_printf_kernel(int base) {
  printf("adv thread %d of %d says %d\n", int(threadIdx.x), int(blockDim.x), base + int(threadIdx.x));
}
void adv_printf(int base, int threads) { adv_printf_kernel<<<1, threads>>>(base); }

// ---- races --------------------------------------------------------------------
__global__ void adv_raw_kernel(float* out, bool barrier) {
  __shared__ float adv_raw[64];
  const int t = threadIdx.x;
  adv_raw[t] = float(t);
  if (barrier) __syncthreads();
  out[t] = adv_raw[63 - t];  // warp 0 reads what warp 1 wrote and the other way round
}
void adv_raw_across_warps(float* out, bool barrier) { adv_raw_kernel<<<1, 64>>>(out, barrier); }

__global__ void adv_waw_kernel(float* out) {
  __shared__ float adv_cell[32];
  const int t = threadIdx.x;
  if (t < 2) adv_cell[0] = float(t);  // threads 0 and 1 write the same word
  __syncthreads();
  out[t] = adv_cell[0];
}
void adv_waw(float* out) { adv_waw_kernel<<<1, 32>>>(out); }

__global__ void adv_own_word_kernel(float* out) {
  __shared__ float adv_own[128];
  const int t = threadIdx.x;
  adv_own[t] = float(t);
  adv_own[t] += 1.0f;
  out[t] = adv_own[t];
}
void adv_own_word(float* out) { adv_own_word_kernel<<<1, 128>>>(out); }

__global__ void adv_broadcast_kernel(float* out) {
  __shared__ float adv_one;
  if (threadIdx.x == 0) adv_one = 42.0f;
  __syncthreads();
  out[threadIdx.x] = adv_one;
}
void adv_broadcast_after_barrier(float* out) { adv_broadcast_kernel<<<1, 256>>>(out); }

// ---- faults and recovery ------------------------------------------------------
__global__ void adv_blank_kernel(float* out) {
  __shared__ float adv_stage[64];
  const int t = threadIdx.x;
  adv_stage[t] = float(t);
  __syncthreads();
  if (blockIdx.x == 1 && t == 5) BLANK_STMT(adv_blank);
  __syncthreads();
  out[blockIdx.x * 64 + t] = adv_stage[63 - t];
}
void adv_blank(float* out, int blocks) { adv_blank_kernel<<<blocks, 64>>>(out); }

__global__ void adv_spin_kernel(const volatile int* flag, int* out) {
  int spins = 0;
  while (flag[0] == 0) ++spins;
  out[0] = spins;
}
void adv_spin(const int* flag, int* out) { adv_spin_kernel<<<1, 1>>>(flag, out); }

__global__ void adv_atomic_spin_kernel(int* flag) {
  while (atomicAdd(flag, 0) == 0) {
  }
}
void adv_atomic_spin(int* flag) { adv_atomic_spin_kernel<<<1, 1>>>(flag); }

__global__ void adv_static_spin_kernel() {
  while (adv_dev_flag == 0) {
  }
}
void adv_static_spin() { adv_static_spin_kernel<<<1, 1>>>(); }

void adv_launch_config(int* p, unsigned gx, unsigned gy, unsigned bx, unsigned by, unsigned bz) {
  adv_fill<<<dim3(gx, gy), dim3(bx, by, bz)>>>(p, 1);
}

__global__ void adv_device_assert_kernel(int* p) {
  assert(p[threadIdx.x] == 0);  // fails in thread 3
}
void adv_device_assert(int* p) { adv_device_assert_kernel<<<1, 4>>>(p); }

// ---- more ---------------------------------------------------------------------
// Lanes 0..15 shuffle with a 16-lane mask; then every lane stores once.
__global__ void adv_partial_mask_shuffle_kernel(int* out) {
  const int t = threadIdx.x;
  int v = t;
  if (t < 16) v = __shfl_down_sync(0x0000ffffu, v, 1);
  out[t] = v;
}
void adv_partial_mask_shuffle(int* out) { adv_partial_mask_shuffle_kernel<<<1, 32>>>(out); }

__global__ void adv_misaligned_float4_kernel(const float* in, float4* out) {
  const float4* p = reinterpret_cast<const float4*>(in + 1);  // 4 bytes off a 16-byte boundary
  out[threadIdx.x] = p[threadIdx.x];
}
void adv_misaligned_float4(const float* in, float4* out) { adv_misaligned_float4_kernel<<<1, 32>>>(in, out); }

__global__ void adv_misaligned_float_kernel(const float* in, float* out) {
  const float* p = reinterpret_cast<const float*>(reinterpret_cast<const char*>(in) + 2);
  out[threadIdx.x] = p[threadIdx.x];
}
void adv_misaligned_float(const float* in, float* out) { adv_misaligned_float_kernel<<<1, 32>>>(in, out); }

// CUDA's math headers give min/max for float and double too (max(x, 0.0f) is common).
template <class T>
constexpr bool adv_has_min_max = requires(T a, T b) {
  max(a, b);
  min(a, b);
};
bool adv_float_min_max_compiles() { return adv_has_min_max<float> && adv_has_min_max<double>; }

__global__ void adv_shared_float4_kernel(const float4* in, float4* out) {
  __shared__ float4 adv_f4[32];
  const int t = threadIdx.x;
  adv_f4[t] = in[t];  // one 16-byte store per lane, 512 contiguous bytes
  __syncthreads();
  out[t] = adv_f4[31 - t];
}
void adv_shared_float4(const float4* in, float4* out) { adv_shared_float4_kernel<<<1, 32>>>(in, out); }
