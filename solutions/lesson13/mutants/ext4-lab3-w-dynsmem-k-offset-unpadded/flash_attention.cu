// Lesson 13 lab 3: FlashAttention's forward pass as a CUDA kernel (fp32).
// Fill in the BLANKs, then grade with: grader lesson13 --unit lab_flash
//
// One warp per query row, kFlashBr rows (warps) per block. The block stages its
// query rows and, one tile at a time, kFlashBc rows of K and V in shared memory.
// The tiles are sized for the actual d instead of the largest one: they are carved
// from one extern __shared__ buffer whose size is given at launch.
// API: lessons/lesson13/include/flash_attention_lab.hpp.
#include <cuda_runtime.h>

#include "course/blank.hpp"
#include "flash_attention_lab.hpp"

namespace lesson13 {
namespace {

constexpr int Br = kFlashBr, Bc = kFlashBc;
constexpr unsigned kFull = 0xffffffffu;

template <int D>
__global__ void __launch_bounds__(Br * 32) flash_attention_kernel(const float* Q, const float* K, const float* V,
                                                                  float* O, int n) {
  extern __shared__ float smem[];
  constexpr int P = D + 1;   // padded K row: lane c reading column k hits bank (c + k) % 32
  constexpr int T = D / 32;  // output columns per lane
  float* Q_tile = smem;               // Br rows of Q
  float* K_tile = Q_tile + Br * D;    // Bc rows of K
  float* V_tile = K_tile + Bc * D;    // Bc rows of V
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
      float s = -INFINITY;
      if (lane < bc) {
        float dot = 0.0f;
        for (int k = 0; k < D; ++k) dot += q[k] * K_tile[lane * P + k];
        s = dot;
      }
      float block_max = s;
      for (int off = 16; off > 0; off /= 2) block_max = fmaxf(block_max, __shfl_xor_sync(kFull, block_max, off));

      const float m_new = fmaxf(m_i, block_max);
      const float scale = expf(m_i - m_new);
      const float p = lane < bc ? expf(s - m_new) : 0.0f;
      float p_sum = p;
      for (int off = 16; off > 0; off /= 2) p_sum += __shfl_xor_sync(kFull, p_sum, off);
      const float l_new = l_i * scale + p_sum;

      for (int u = 0; u < T; ++u) {
        float pv = 0.0f;
        for (int c = 0; c < bc; ++c) pv += __shfl_sync(kFull, p, c) * V_tile[c * D + lane + 32 * u];
        o[u] = o[u] * scale + pv;
      }
      m_i = m_new;
      l_i = l_new;
    }
    __syncthreads();  // the next tile overwrites K_tile and V_tile
  }

  if (active)
    for (int u = 0; u < T; ++u) O[size_t(r) * D + lane + 32 * u] = o[u] / l_i;
}

template <int D>
void launch(const float* Q, const float* K, const float* V, float* O, int n) {
  const size_t bytes = size_t(Br * D + 2 * Bc * D) * sizeof(float);  // Q rows, K tile, V tile
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
