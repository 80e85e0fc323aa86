// Lesson 13 lab 3: FlashAttention's forward pass as a CUDA kernel (fp32).
//
// Variant with key/value tiles of 64 rows: one warp per query row, 16 rows (warps)
// per block as in the lab, but each key tile holds 64 keys, so lane c scores keys
// c and c + 32. The tiles live in dynamic shared memory sized for the d launched:
// Q_tile 16 x d, K_tile 64 x (d + 1) (padded rows), V_tile 64 x d. At d = 128 that
// is 73,984 bytes, over the default 48 KiB, so the launch first raises the kernel's
// limit with cudaFuncSetAttribute. API: lessons/lesson13/include/flash_attention_lab.hpp.
#include <cuda_runtime.h>

#include "flash_attention_lab.hpp"

namespace lesson13 {
namespace {

constexpr int Br = kFlashBr;  // query rows per block, one warp each
constexpr int Bc = 64;        // keys per tile: two per lane
constexpr unsigned kFull = 0xffffffffu;

template <int D>
constexpr int smem_floats() {
  return Br * D + Bc * (D + 1) + Bc * D;
}

template <int D>
__global__ void __launch_bounds__(Br * 32) flash_attention_kernel(const float* Q, const float* K, const float* V,
                                                                  float* O, int n) {
  extern __shared__ float smem[];
  constexpr int P = D + 1;   // padded K row
  constexpr int T = D / 32;  // output columns per lane
  float* Q_tile = smem;
  float* K_tile = Q_tile + Br * D;
  float* V_tile = K_tile + Bc * P;

  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  const int r0 = blockIdx.x * Br, r = r0 + warp;
  const bool active = r < n;

  const int rows = min(Br, n - r0);
  for (int idx = threadIdx.x; idx < rows * D; idx += blockDim.x) Q_tile[idx] = Q[size_t(r0) * D + idx];
  __syncthreads();
  float q[D];
  for (int k = 0; k < D; ++k) q[k] = Q_tile[warp * D + k];

  float o[T];
  for (int t = 0; t < T; ++t) o[t] = 0.0f;
  float m_i = -INFINITY, l_i = 0.0f;

  for (int j = 0; j < n; j += Bc) {
    const int bc = min(Bc, n - j);
    for (int idx = threadIdx.x; idx < bc * D; idx += blockDim.x) {
      K_tile[(idx / D) * P + idx % D] = K[size_t(j) * D + idx];
      V_tile[idx] = V[size_t(j) * D + idx];
    }
    __syncthreads();

    if (active) {
      // Lane c scores keys c and c + 32 of the tile; missing keys score -inf.
      float s0 = -INFINITY, s1 = -INFINITY;
      if (lane < bc) {
        float dot = 0.0f;
        for (int k = 0; k < D; ++k) dot += q[k] * K_tile[lane * P + k];
        s0 = dot;
      }
      if (lane + 32 < bc) {
        float dot = 0.0f;
        for (int k = 0; k < D; ++k) dot += q[k] * K_tile[(lane + 32) * P + k];
        s1 = dot;
      }
      float block_max = fmaxf(s0, s1);
      for (int off = 16; off > 0; off /= 2) block_max = fmaxf(block_max, __shfl_xor_sync(kFull, block_max, off));

      const float m_new = fmaxf(m_i, block_max);
      const float scale = expf(m_i - m_new);
      const float p0 = lane < bc ? expf(s0 - m_new) : 0.0f;
      const float p1 = lane + 32 < bc ? expf(s1 - m_new) : 0.0f;
      float p_sum = p0 + p1;
      for (int off = 16; off > 0; off /= 2) p_sum += __shfl_xor_sync(kFull, p_sum, off);
      const float l_new = l_i * scale + p_sum;

      for (int u = 0; u < T; ++u) {
        float pv = 0.0f;
        const int col = lane + 32 * u;
        for (int c = 0; c < bc && c < 32; ++c) pv += __shfl_sync(kFull, p0, c) * V_tile[c * D + col];
        for (int c = 32; c < bc; ++c) pv += __shfl_sync(kFull, p1, c - 32) * V_tile[c * D + col];
        o[u] = o[u] * scale + pv;
      }
      m_i = m_new;
      l_i = l_new;
    }
    __syncthreads();
  }

  if (active)
    for (int u = 0; u < T; ++u) O[size_t(r) * D + lane + 32 * u] = o[u] / l_i;
}

template <int D>
void launch(const float* Q, const float* K, const float* V, float* O, int n) {
  constexpr int bytes = smem_floats<D>() * int(sizeof(float));
  cudaFuncSetAttribute(flash_attention_kernel<D>, cudaFuncAttributeMaxDynamicSharedMemorySize, bytes);
  flash_attention_kernel<D><<<(n + Br - 1) / Br, Br * 32, bytes>>>(Q, K, V, O, n);
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
