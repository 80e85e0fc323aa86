// Lesson 13 lab 3: FlashAttention's forward pass as a CUDA kernel (fp32).
// Fill in the BLANKs, then grade with: grader lesson13 --unit lab_flash
//
// Variant: 8 warps per block, each warp responsible for two of the block's 16 query
// rows, one after the other, against every K/V tile of kFlashBc keys staged in
// shared memory. For each of its rows the warp keeps a running max, running sum
// and unnormalised output (lane t: columns t, t + 32, ...); the dot products read
// the query row from the shared Q tile (a broadcast), so q is not held in registers.
// API: lessons/lesson13/include/flash_attention_lab.hpp.
#include <cuda_runtime.h>

#include "course/blank.hpp"
#include "flash_attention_lab.hpp"

namespace lesson13 {
namespace {

constexpr int kWarps = 8;                  // 256 threads per block
constexpr int R = 2;                       // query rows per warp
constexpr int Br = kWarps * R;             // 16 query rows per block
constexpr int Bc = kFlashBc;               // 32 keys per tile, one per lane
constexpr int kMaxD = 128;
constexpr unsigned kFull = 0xffffffffu;

__shared__ float Q_tile[Br * kMaxD];
__shared__ float K_tile[Bc * (kMaxD + 1)];  // rows padded by one float
__shared__ float V_tile[Bc * kMaxD];

template <int D>
__global__ void __launch_bounds__(kWarps * 32) flash_attention_kernel(const float* Q, const float* K, const float* V,
                                                                      float* O, int n) {
  constexpr int P = D + 1;
  constexpr int T = D / 32;
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  const int r0 = blockIdx.x * Br;

  const int rows = min(Br, n - r0);
  for (int idx = threadIdx.x; idx < rows * D; idx += blockDim.x) Q_tile[idx] = Q[size_t(r0) * D + idx];

  float m[R], l[R], o[R][T];
  for (int i = 0; i < R; ++i) {
    m[i] = -INFINITY;
    l[i] = 0.0f;
    for (int t = 0; t < T; ++t) o[i][t] = 0.0f;
  }

  for (int j = 0; j < n; j += Bc) {
    const int bc = min(Bc, n - j);
    for (int idx = threadIdx.x; idx < bc * D; idx += blockDim.x) {
      K_tile[(idx / D) * P + idx % D] = K[size_t(j) * D + idx];
      V_tile[idx] = V[size_t(j) * D + idx];
    }
    __syncthreads();  // (the first time also covers Q_tile)

    for (int i = 0; i < R; ++i) {
      const int lr = warp * R + i;  // row within the block, the same for the whole warp
      if (r0 + lr >= n) continue;

      float s = -INFINITY;
      if (lane < bc) {
        float dot = 0.0f;
        for (int k = 0; k < D; ++k) dot += Q_tile[lr * D + k] * K_tile[lane * P + k];
        s = dot;
      }
      float tile_max = s;
      for (int off = 16; off > 0; off /= 2) tile_max = fmaxf(tile_max, __shfl_xor_sync(kFull, tile_max, off));

      const float m_new = fmaxf(m[i], tile_max);
      // Re-base what was accumulated against the old max onto the new one.
      const float alpha = expf(m_new - m[i]);
      const float p = lane < bc ? expf(s - m_new) : 0.0f;
      float p_sum = p;
      for (int off = 16; off > 0; off /= 2) p_sum += __shfl_xor_sync(kFull, p_sum, off);

      l[i] = l[i] * alpha + p_sum;
      for (int u = 0; u < T; ++u) {
        float pv = 0.0f;
        for (int c = 0; c < bc; ++c) pv += __shfl_sync(kFull, p, c) * V_tile[c * D + lane + 32 * u];
        o[i][u] = o[i][u] * alpha + pv;
      }
      m[i] = m_new;
    }
    __syncthreads();  // the next tile overwrites K_tile and V_tile
  }

  for (int i = 0; i < R; ++i) {
    const int r = r0 + warp * R + i;
    if (r < n)
      for (int u = 0; u < T; ++u) O[size_t(r) * D + lane + 32 * u] = o[i][u] / l[i];
  }
}

template <int D>
void launch(const float* Q, const float* K, const float* V, float* O, int n) {
  flash_attention_kernel<D><<<(n + Br - 1) / Br, kWarps * 32>>>(Q, K, V, O, n);
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
