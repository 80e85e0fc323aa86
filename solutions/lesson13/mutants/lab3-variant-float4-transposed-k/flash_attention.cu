// Lab 3 with vectorised staging. Q, K and V rows are copied to shared memory with
// float4 loads (d is a multiple of 4 and every tile starts at a multiple of 32
// rows, so each float4 is 16-byte aligned). K is stored transposed, Kt[k][c], so
// that lane c of a warp reading key c at column k hits bank c: no padding needed.
// The probabilities of a row go to a small per-warp shared array instead of being
// shuffled, and the P V product reads them back after a __syncwarp().
#include <cuda_runtime.h>

#include "flash_attention_lab.hpp"

namespace lesson13 {
namespace {

constexpr int Br = kFlashBr, Bc = kFlashBc, DMAX = 128;
constexpr unsigned kMask = 0xffffffffu;

__shared__ __align__(16) float sQ[Br * DMAX];
__shared__ __align__(16) float sKt[DMAX * Bc];  // [k][c]
__shared__ __align__(16) float sV[Bc * DMAX];
__shared__ float sP[Br * Bc];  // one row of probabilities per warp

template <int D>
__global__ void __launch_bounds__(Br * 32) fa_vec4(const float* Q, const float* K, const float* V, float* O,
                                                   int n) {
  constexpr int D4 = D / 4;
  const int lane = threadIdx.x % 32, w = threadIdx.x / 32;
  const int r0 = blockIdx.x * Br, r = r0 + w;
  const bool on = r < n;

  const int qrows = min(Br, n - r0);
  const float4* Q4 = reinterpret_cast<const float4*>(Q + r0 * D);
  for (int i = threadIdx.x; i < qrows * D4; i += blockDim.x) reinterpret_cast<float4*>(sQ)[i] = Q4[i];

  float o[D / 32];
  for (int t = 0; t < D / 32; ++t) o[t] = 0.0f;
  float m = -INFINITY, l = 0.0f;

  for (int j = 0; j < n; j += Bc) {
    const int bc = min(Bc, n - j);
    const float4* K4 = reinterpret_cast<const float4*>(K + j * D);
    const float4* V4 = reinterpret_cast<const float4*>(V + j * D);
    for (int i = threadIdx.x; i < bc * D4; i += blockDim.x) {
      const float4 kv = K4[i];
      const int c = i / D4, k = 4 * (i % D4);
      sKt[(k + 0) * Bc + c] = kv.x;
      sKt[(k + 1) * Bc + c] = kv.y;
      sKt[(k + 2) * Bc + c] = kv.z;
      sKt[(k + 3) * Bc + c] = kv.w;
      reinterpret_cast<float4*>(sV)[i] = V4[i];
    }
    __syncthreads();  // also covers the Q copy on the first tile
    if (on) {
      float s = -INFINITY;
      if (lane < bc) {
        float dot = 0.0f;
        for (int k = 0; k < D; ++k) dot += sQ[w * D + k] * sKt[k * Bc + lane];
        s = dot;
      }
      float mx = s;
      for (int off = 16; off; off >>= 1) mx = fmaxf(mx, __shfl_xor_sync(kMask, mx, off));
      const float m_new = fmaxf(m, mx);
      const float keep = expf(m - m_new);
      const float p = lane < bc ? expf(s - m_new) : 0.0f;
      float sum = p;
      for (int off = 16; off; off >>= 1) sum += __shfl_xor_sync(kMask, sum, off);
      sP[w * Bc + lane] = p;
      __syncwarp();  // the warp's probabilities are visible to all its lanes
      for (int t = 0; t < D / 32; ++t) {
        const int col = lane + 32 * t;
        float acc = 0.0f;
        for (int c = 0; c < bc; ++c) acc += sP[w * Bc + c] * sV[c * D + col];
        o[t] = o[t] * keep + acc;
      }
      l = l * keep + sum;
      m = m_new;
    }
    __syncthreads();  // sKt, sV and sP are rewritten by the next tile
  }
  if (on)
    for (int t = 0; t < D / 32; ++t) O[r * D + lane + 32 * t] = o[t] / l;
}

}  // namespace

bool flash_attention_forward(const float* Q, const float* K, const float* V, float* O, int n, int d) {
  const int blocks = (n + Br - 1) / Br;
  switch (d) {
    case 32: fa_vec4<32><<<blocks, Br * 32>>>(Q, K, V, O, n); return true;
    case 64: fa_vec4<64><<<blocks, Br * 32>>>(Q, K, V, O, n); return true;
    case 128: fa_vec4<128><<<blocks, Br * 32>>>(Q, K, V, O, n); return true;
    default: return false;
  }
}

}  // namespace lesson13
