// Lab 3, "block computes the score tile, then the warps do the softmax":
// for each key tile the whole block first fills a kFlashBr x kFlashBc tile of scores
// S_ij in shared memory (thread t computes row t % 16, key t / 16), waits, and then
// warp w takes row w of that tile for the online-softmax update of its own m, l and
// output columns. Only one Br x Bc tile of scores exists at a time.
#include <cuda_runtime.h>

#include "flash_attention_lab.hpp"

namespace lesson13 {
namespace {

constexpr int BR = kFlashBr, BC = kFlashBc, MAXD = 128;
constexpr unsigned ALL = 0xffffffffu;

__shared__ float Qt[BR * (MAXD + 1)];  // query rows, padded
__shared__ float Kt[BC * MAXD];
__shared__ float Vt[BC * MAXD];
__shared__ float St[BR * BC];         // this tile's scores

template <int D>
__global__ void __launch_bounds__(BR * 32) attn_tiles(const float* Q, const float* K, const float* V, float* O,
                                                      int n) {
  const int tid = threadIdx.x, lane = tid & 31, warp = tid >> 5;
  const int q0 = blockIdx.x * BR;
  const int nq = min(BR, n - q0);
  for (int i = tid; i < nq * D; i += blockDim.x) Qt[(i / D) * (D + 1) + i % D] = Q[q0 * D + i];

  float acc[D / 32];
  for (int u = 0; u < D / 32; ++u) acc[u] = 0.0f;
  float row_max = -INFINITY, row_sum = 0.0f;

  const int sr = tid % BR, sc = tid / BR;  // the score this thread computes
  for (int k0 = 0; k0 < n; k0 += BC) {
    const int nk = min(BC, n - k0);
    for (int i = tid; i < nk * D; i += blockDim.x) {
      Kt[i] = K[k0 * D + i];
      Vt[i] = V[k0 * D + i];
    }
    __syncthreads();
    // Phase 1: the block computes the BR x BC score tile.
    if (sr < nq && sc < nk) {
      float dot = 0.0f;
      for (int k = 0; k < D; ++k) dot += Qt[sr * (D + 1) + k] * Kt[sc * D + k];
      St[sr * BC + sc] = dot;
    }
    __syncthreads();
    // Phase 2: warp `warp` updates query row q0 + warp from row `warp` of the tile.
    if (warp < nq) {
      const float s = lane < nk ? St[warp * BC + lane] : -INFINITY;
      float mx = s;
      for (int off = 16; off > 0; off >>= 1) mx = fmaxf(mx, __shfl_xor_sync(ALL, mx, off));
      const float new_max = fmaxf(row_max, mx);
      const float shrink = expf(row_max - new_max);
      const float p = lane < nk ? expf(s - new_max) : 0.0f;
      float ps = p;
      for (int off = 16; off > 0; off >>= 1) ps += __shfl_xor_sync(ALL, ps, off);
      row_sum = row_sum * shrink + ps;
      for (int u = 0; u < D / 32; ++u) {
        float pv = 0.0f;
        for (int c = 0; c < nk; ++c) pv += __shfl_sync(ALL, p, c) * Vt[c * D + lane + 32 * u];
        acc[u] = acc[u] * shrink + pv;
      }
      row_max = new_max;
    }
    __syncthreads();  // K, V and S are overwritten by the next tile
  }
  if (warp < nq)
    for (int u = 0; u < D / 32; ++u) O[(q0 + warp) * D + lane + 32 * u] = acc[u] / row_sum;
}

}  // namespace

bool flash_attention_forward(const float* Q, const float* K, const float* V, float* O, int n, int d) {
  const int grid = (n + BR - 1) / BR;
  if (d == 32) {
    attn_tiles<32><<<grid, BR * 32>>>(Q, K, V, O, n);
    return true;
  }
  if (d == 64) {
    attn_tiles<64><<<grid, BR * 32>>>(Q, K, V, O, n);
    return true;
  }
  if (d == 128) {
    attn_tiles<128><<<grid, BR * 32>>>(Q, K, V, O, n);
    return true;
  }
  return false;
}

}  // namespace lesson13
