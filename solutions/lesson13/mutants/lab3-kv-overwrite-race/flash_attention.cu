// Lab 3 with one barrier per key tile: after the copy, before the reads. I removed
// the one at the end of the tile ("the next copy comes after a barrier anyway").
// Not so: the next copy comes BEFORE the next barrier, so a warp that finishes
// tile j early starts writing tile j + 1 into Ks/Vs while slower warps of the block
// are still reading tile j (a write-after-read race on shared memory).
// Lanes split the head dimension; keys are processed one at a time.
#include <cuda_runtime.h>

#include "flash_attention_lab.hpp"

namespace lesson13 {
namespace {

constexpr int kRowsPerBlock = kFlashBr, kKeysPerTile = kFlashBc;

template <int D>
__global__ void __launch_bounds__(kRowsPerBlock * 32) fa_one_barrier(const float* Q, const float* K,
                                                                     const float* V, float* O, int n) {
  extern __shared__ float shm[];
  float* Ks = shm;
  float* Vs = shm + kKeysPerTile * D;
  const int lane = threadIdx.x & 31;
  const int row = blockIdx.x * kRowsPerBlock + (threadIdx.x >> 5);
  const bool has_row = row < n;
  float q[D / 32], acc[D / 32];
  for (int u = 0; u < D / 32; ++u) {
    q[u] = has_row ? Q[row * D + 32 * u + lane] : 0.0f;
    acc[u] = 0.0f;
  }
  float mx = -INFINITY, den = 0.0f;
  for (int base = 0; base < n; base += kKeysPerTile) {
    const int cnt = min(kKeysPerTile, n - base);
    for (int e = threadIdx.x; e < cnt * D; e += blockDim.x) {
      Ks[e] = K[base * D + e];
      Vs[e] = V[base * D + e];
    }
    __syncthreads();
    if (has_row) {
      for (int c = 0; c < cnt; ++c) {
        float s = 0.0f;
        for (int u = 0; u < D / 32; ++u) s += q[u] * Ks[c * D + 32 * u + lane];
        for (int off = 16; off > 0; off /= 2) s += __shfl_xor_sync(0xffffffffu, s, off);
        const float nm = fmaxf(mx, s);
        const float r = expf(mx - nm), p = expf(s - nm);
        den = den * r + p;
        for (int u = 0; u < D / 32; ++u) acc[u] = acc[u] * r + p * Vs[c * D + 32 * u + lane];
        mx = nm;
      }
    }
    // (missing: __syncthreads() before the next tile's copy)
  }
  if (has_row)
    for (int u = 0; u < D / 32; ++u) O[row * D + 32 * u + lane] = acc[u] / den;
}

template <int D>
void go(const float* Q, const float* K, const float* V, float* O, int n) {
  fa_one_barrier<D><<<(n + kRowsPerBlock - 1) / kRowsPerBlock, kRowsPerBlock * 32,
                      2 * kKeysPerTile * D * sizeof(float)>>>(Q, K, V, O, n);
}

}  // namespace

bool flash_attention_forward(const float* Q, const float* K, const float* V, float* O, int n, int d) {
  if (d == 32) return go<32>(Q, K, V, O, n), true;
  if (d == 64) return go<64>(Q, K, V, O, n), true;
  if (d == 128) return go<128>(Q, K, V, O, n), true;
  return false;
}

}  // namespace lesson13
