// Lab 3 where the partial last key tile is "padded with zeros": lanes past the last
// key get score 0 instead of -infinity, and every lane's exp(s - m) goes into the
// running sum. When n is a multiple of 32 there is no padding and the results are
// right; otherwise each missing key adds exp(0 - m) to l, and the row no longer
// sums to one.
#include <cuda_runtime.h>

#include "flash_attention_lab.hpp"

namespace lesson13 {
namespace {

constexpr int kBr = kFlashBr, kBc = kFlashBc, kDmax = 128;

__shared__ float sQ[kBr * kDmax];
__shared__ float sK[kBc * (kDmax + 1)];
__shared__ float sV[kBc * kDmax];

__device__ float warp_reduce_max(float x) {
  for (int s = 16; s > 0; s >>= 1) x = fmaxf(x, __shfl_xor_sync(0xffffffffu, x, s));
  return x;
}
__device__ float warp_reduce_sum(float x) {
  for (int s = 16; s > 0; s >>= 1) x += __shfl_xor_sync(0xffffffffu, x, s);
  return x;
}

template <int D>
__global__ void __launch_bounds__(kBr * 32) fa_zero_pad(const float* Q, const float* K, const float* V, float* O,
                                                        int n) {
  const int lane = threadIdx.x % 32, w = threadIdx.x / 32;
  const int r0 = blockIdx.x * kBr, r = r0 + w;
  for (int i = threadIdx.x; i < min(kBr, n - r0) * D; i += blockDim.x) sQ[i] = Q[r0 * D + i];
  float o[D / 32] = {};
  float m = -INFINITY, l = 0.0f;
  for (int j = 0; j < n; j += kBc) {
    const int bc = min(kBc, n - j);
    for (int i = threadIdx.x; i < bc * D; i += blockDim.x) {
      sK[(i / D) * (D + 1) + i % D] = K[j * D + i];
      sV[i] = V[j * D + i];
    }
    __syncthreads();
    if (r < n) {
      float s = 0.0f;  // BUG: padding keys score 0, not -inf
      if (lane < bc)
        for (int k = 0; k < D; ++k) s += sQ[w * D + k] * sK[lane * (D + 1) + k];
      const float m_new = fmaxf(m, warp_reduce_max(s));
      const float alpha = expf(m - m_new);
      const float p = expf(s - m_new);  // BUG: no lane < bc test
      l = l * alpha + warp_reduce_sum(p);
      for (int u = 0; u < D / 32; ++u) {
        float pv = 0.0f;
        for (int c = 0; c < bc; ++c) pv += __shfl_sync(0xffffffffu, p, c) * sV[c * D + lane + 32 * u];
        o[u] = o[u] * alpha + pv;
      }
      m = m_new;
    }
    __syncthreads();
  }
  if (r < n)
    for (int u = 0; u < D / 32; ++u) O[r * D + lane + 32 * u] = o[u] / l;
}

}  // namespace

bool flash_attention_forward(const float* Q, const float* K, const float* V, float* O, int n, int d) {
  const int grid = (n + kBr - 1) / kBr;
  switch (d) {
    case 32: fa_zero_pad<32><<<grid, kBr * 32>>>(Q, K, V, O, n); return true;
    case 64: fa_zero_pad<64><<<grid, kBr * 32>>>(Q, K, V, O, n); return true;
    case 128: fa_zero_pad<128><<<grid, kBr * 32>>>(Q, K, V, O, n); return true;
    default: return false;
  }
}

}  // namespace lesson13
