// Lesson 13 lab 3: FlashAttention's forward pass as a CUDA kernel (fp32).
// Fill in the BLANKs, then grade with: grader lesson13 --unit lab_flash
//
// One warp per query row, 16 rows (warps) per block, K and V streamed through
// shared memory in tiles of 32 rows. Here the lanes split the head dimension, not
// the keys: lane t holds q[t + 32u] and o[t + 32u]. For each key of the tile the
// warp forms the dot product from the lanes' partial sums with a __shfl_xor_sync
// butterfly (every lane ends with the score), and then applies the online-softmax
// update one key at a time (Milakov & Gimelshein's per-element form): running max
// m, running sum l, and o rescaled by exp(m_old - m_new) whenever m grows. The
// output is divided by l once, at the end. No score is ever stored.
// API: lessons/lesson13/include/flash_attention_lab.hpp.
#include <cuda_runtime.h>

#include "course/blank.hpp"
#include "flash_attention_lab.hpp"

namespace lesson13 {
namespace {

constexpr int kRowsPerBlock = 16;  // one warp per query row
constexpr int kKeysPerTile = 32;
constexpr unsigned kWarp = 0xffffffffu;

__device__ float warp_allreduce_sum(float v) {
  for (int mask = 16; mask >= 1; mask >>= 1) v += __shfl_xor_sync(kWarp, v, mask);
  return v;
}

template <int D>
__global__ void __launch_bounds__(kRowsPerBlock * 32) flash_rows_kernel(const float* __restrict__ Q, const float* __restrict__ K,
                                                                      const float* __restrict__ V, float* __restrict__ O, int n) {
  constexpr int kCols = D / 32;  // head columns per lane
  __shared__ float k_tile[kKeysPerTile * D];
  __shared__ float v_tile[kKeysPerTile * D];

  const int lane = threadIdx.x % 32;
  const int warp = threadIdx.x / 32;
  const int row = blockIdx.x * kRowsPerBlock + warp;
  const bool has_row = row < n;  // the same on all 32 lanes of a warp

  float q[kCols], o[kCols];
  for (int u = 0; u < kCols; ++u) {
    q[u] = has_row ? Q[size_t(row) * D + lane + 32 * u] : 0.0f;  // 32 consecutive floats per request
    o[u] = 0.0f;
  }
  float m = -INFINITY;  // running max of the row's scores
  float l = 0.0f;       // running sum of exp(score - m)

  for (int key0 = 0; key0 < n; key0 += kKeysPerTile) {
    const int count = min(kKeysPerTile, n - key0);  // the last tile may be partial
    for (int e = threadIdx.x; e < count * D; e += blockDim.x) {
      k_tile[e] = K[size_t(key0) * D + e];
      v_tile[e] = V[size_t(key0) * D + e];
    }
    __syncthreads();

    if (has_row) {
      for (int c = 0; c < count; ++c) {
        float part = 0.0f;
        for (int u = 0; u < kCols; ++u) part += q[u] * k_tile[c * D + lane + 32 * u];
        const float s = warp_allreduce_sum(part);  // score of key key0 + c, on every lane

        const float m_new = fmaxf(m, s);
        const float rescale = expf(m - m_new);  // 0 for the first key, 1 when m does not move
        const float p = expf(s - m_new);
        l = l * rescale + p;
        for (int u = 0; u < kCols; ++u) o[u] = o[u] * rescale + p * v_tile[c * D + lane + 32 * u];
        m = m_new;
      }
    }
    __syncthreads();  // the next tile overwrites k_tile and v_tile
  }

  if (has_row)
    for (int u = 0; u < kCols; ++u) O[size_t(row) * D + lane + 32 * u] = o[u] / l;
}

template <int D>
void launch(const float* Q, const float* K, const float* V, float* O, int n) {
  const dim3 grid((n + kRowsPerBlock - 1) / kRowsPerBlock);
  const dim3 block(kRowsPerBlock * 32);
  flash_rows_kernel<D><<<grid, block>>>(Q, K, V, O, n);
}

}  // namespace

bool flash_attention_forward(const float* Q, const float* K, const float* V, float* O, int n, int d) {
  switch (d) {
    case 32: launch<32>(Q, K, V, O, n); return true;
    case 64: launch<64>(Q, K, V, O, n); return true;
    case 128: launch<128>(Q, K, V, O, n); return true;
    default: return false;
  }
}

}  // namespace lesson13
