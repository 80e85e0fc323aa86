// Lab 3 in the style of the small "flash attention in one CUDA file" repos: one
// warp per query row, but the lanes split the head dimension instead of the keys.
// Lane t holds q and o at columns t, t + 32, ... For each key, the lanes' partial
// dot products are summed with a butterfly of __shfl_xor_sync, and the row's
// running max m and sum l are updated one key at a time (the streaming softmax).
// K and V come through shared memory a tile of kFlashBc keys at a time.
#include <cuda_runtime.h>

#include "flash_attention_lab.hpp"

namespace lesson13 {
namespace {

constexpr int kWarps = kFlashBr;  // query rows per block
constexpr int kTileKeys = kFlashBc;
constexpr unsigned kAll = 0xffffffffu;

__device__ __forceinline__ float warp_sum(float v) {
  for (int off = 16; off >= 1; off >>= 1) v += __shfl_xor_sync(kAll, v, off);
  return v;
}

template <int D>
__global__ void __launch_bounds__(kWarps * 32) fa_split_d(const float* Q, const float* K, const float* V,
                                                          float* O, int n) {
  constexpr int PER = D / 32;
  __shared__ float Ks[kTileKeys * D];
  __shared__ float Vs[kTileKeys * D];
  const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
  const int row = blockIdx.x * kWarps + warp;
  const bool mine = row < n;

  float q[PER], o[PER];
  for (int u = 0; u < PER; ++u) {
    q[u] = mine ? Q[row * D + lane + 32 * u] : 0.0f;
    o[u] = 0.0f;
  }
  float m = -INFINITY, l = 0.0f;

  for (int j0 = 0; j0 < n; j0 += kTileKeys) {
    const int cnt = min(kTileKeys, n - j0);
    for (int e = threadIdx.x; e < cnt * D; e += blockDim.x) {
      Ks[e] = K[j0 * D + e];
      Vs[e] = V[j0 * D + e];
    }
    __syncthreads();
    if (mine) {
      for (int c = 0; c < cnt; ++c) {
        float part = 0.0f;
        for (int u = 0; u < PER; ++u) part += q[u] * Ks[c * D + lane + 32 * u];
        const float s = warp_sum(part);  // the full score, on every lane
        const float m_new = fmaxf(m, s);
        const float corr = expf(m - m_new);
        const float p = expf(s - m_new);
        l = l * corr + p;
        for (int u = 0; u < PER; ++u) o[u] = o[u] * corr + p * Vs[c * D + lane + 32 * u];
        m = m_new;
      }
    }
    __syncthreads();
  }
  if (mine)
    for (int u = 0; u < PER; ++u) O[row * D + lane + 32 * u] = o[u] / l;
}

}  // namespace

bool flash_attention_forward(const float* Q, const float* K, const float* V, float* O, int n, int d) {
  const int grid = (n + kWarps - 1) / kWarps;
  switch (d) {
    case 32: fa_split_d<32><<<grid, kWarps * 32>>>(Q, K, V, O, n); break;
    case 64: fa_split_d<64><<<grid, kWarps * 32>>>(Q, K, V, O, n); break;
    case 128: fa_split_d<128><<<grid, kWarps * 32>>>(Q, K, V, O, n); break;
    default: return false;
  }
  return true;
}

}  // namespace lesson13
