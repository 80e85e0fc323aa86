// Lab 3 where the K/V tile is copied into shared memory and used straight away:
// no __syncthreads() between the copy and the reads ("each thread copies its own
// part first anyway"). But a warp scores keys and reads V rows that other warps of
// the block copy, so it can read them before they are written (a read-after-write
// race on shared memory). The barrier at the end of the tile is there.
#include <cuda_runtime.h>

#include "flash_attention_lab.hpp"

namespace lesson13 {
namespace {

constexpr int BR = kFlashBr, BC = kFlashBc, DMAX = 128;
constexpr unsigned FULL = 0xffffffffu;

__shared__ float k_tile[BC * (DMAX + 1)];
__shared__ float v_tile[BC * DMAX];

template <int D>
__global__ void __launch_bounds__(BR * 32) fa_nobarrier(const float* Q, const float* K, const float* V,
                                                        float* O, int n) {
  const int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
  const int row = blockIdx.x * BR + warp;
  const bool active = row < n;
  float q[D];
  for (int k = 0; k < D; ++k) q[k] = active ? Q[row * D + k] : 0.0f;  // a broadcast per k
  float o[D / 32];
  for (int u = 0; u < D / 32; ++u) o[u] = 0.0f;
  float m = -INFINITY, l = 0.0f;

  for (int j = 0; j < n; j += BC) {
    const int bc = min(BC, n - j);
    for (int i = threadIdx.x; i < bc * D; i += blockDim.x) {
      k_tile[(i / D) * (D + 1) + i % D] = K[j * D + i];
      v_tile[i] = V[j * D + i];
    }
    // (missing: __syncthreads() -- the tile is not complete yet for every warp)
    if (active) {
      float s = -INFINITY;
      if (lane < bc) {
        float dot = 0.0f;
        for (int k = 0; k < D; ++k) dot += q[k] * k_tile[lane * (D + 1) + k];
        s = dot;
      }
      float mx = s;
      for (int off = 16; off > 0; off /= 2) mx = fmaxf(mx, __shfl_xor_sync(FULL, mx, off));
      const float m_new = fmaxf(m, mx);
      const float scale = expf(m - m_new);
      const float p = lane < bc ? expf(s - m_new) : 0.0f;
      float sum = p;
      for (int off = 16; off > 0; off /= 2) sum += __shfl_xor_sync(FULL, sum, off);
      for (int u = 0; u < D / 32; ++u) {
        float pv = 0.0f;
        for (int c = 0; c < bc; ++c) pv += __shfl_sync(FULL, p, c) * v_tile[c * D + lane + 32 * u];
        o[u] = o[u] * scale + pv;
      }
      l = l * scale + sum;
      m = m_new;
    }
    __syncthreads();
  }
  if (active)
    for (int u = 0; u < D / 32; ++u) O[row * D + lane + 32 * u] = o[u] / l;
}

}  // namespace

bool flash_attention_forward(const float* Q, const float* K, const float* V, float* O, int n, int d) {
  const int blocks = (n + BR - 1) / BR;
  switch (d) {
    case 32: fa_nobarrier<32><<<blocks, BR * 32>>>(Q, K, V, O, n); return true;
    case 64: fa_nobarrier<64><<<blocks, BR * 32>>>(Q, K, V, O, n); return true;
    case 128: fa_nobarrier<128><<<blocks, BR * 32>>>(Q, K, V, O, n); return true;
    default: return false;
  }
}

}  // namespace lesson13
