// Lesson 13 lab 3: FlashAttention's forward pass as a CUDA kernel (fp32).
//
// My layout: 16 query rows per block, 4 warps (128 threads), four rows per warp,
// one row per group of 8 lanes. Key tiles of 32 rows: lane g of a group scores keys
// g, g + 8, g + 16, g + 24 of the tile for its row, and keeps output columns
// g, g + 8, ... The row of q is read from Q_tile (rows padded to d + 1 floats).
// For each key tile the block stages K and V, computes the scores and the running
// max and sum, and then stages the V tile again before the weighted sum.
// API: lessons/lesson13/include/flash_attention_lab.hpp.
#include <cuda_runtime.h>

#include "flash_attention_lab.hpp"

namespace lesson13 {
namespace {

constexpr int kRows = kFlashBr;  // 16 query rows per block
constexpr int kThreads = 128;    // 4 warps x 4 rows
constexpr int kKeys = kFlashBc;  // 32 keys per tile, 4 per lane
constexpr int kG = 8;            // lanes per row
constexpr int kMaxD = 128;
constexpr unsigned kFull = 0xffffffffu;

__shared__ float Q_tile[kRows * (kMaxD + 1)];
__shared__ float K_tile[kKeys * (kMaxD + 1)];
__shared__ float V_tile[kKeys * kMaxD];

template <int D>
__device__ void stage_v(const float* V, int j, int bc) {
  for (int idx = threadIdx.x; idx < bc * D; idx += blockDim.x) V_tile[idx] = V[size_t(j) * D + idx];
}

template <int D>
__global__ void __launch_bounds__(kThreads) flash_attention_kernel(const float* Q, const float* K, const float* V,
                                                                   float* O, int n) {
  constexpr int P = D + 1;
  constexpr int T = D / kG;  // output columns per lane
  const int lane = threadIdx.x % 32, grp = lane / kG, g = lane % kG;
  const int local = (threadIdx.x / 32) * 4 + grp;
  const int r0 = blockIdx.x * kRows, r = r0 + local;
  const bool active = r < n;

  const int rows = min(kRows, n - r0);
  for (int idx = threadIdx.x; idx < rows * D; idx += blockDim.x)
    Q_tile[(idx / D) * P + idx % D] = Q[size_t(r0) * D + idx];

  float o[T];
  for (int t = 0; t < T; ++t) o[t] = 0.0f;
  float m_i = -INFINITY, l_i = 0.0f;

  for (int j = 0; j < n; j += kKeys) {
    const int bc = min(kKeys, n - j);
    for (int idx = threadIdx.x; idx < bc * D; idx += blockDim.x) K_tile[(idx / D) * P + idx % D] = K[size_t(j) * D + idx];
    stage_v<D>(V, j, bc);
    __syncthreads();

    float s[4], p[4];
    float block_max = -INFINITY;
    for (int i = 0; i < 4; ++i) {
      const int c = g + kG * i;
      s[i] = -INFINITY;
      if (active && c < bc) {
        float dot = 0.0f;
        for (int k = 0; k < D; ++k) dot += Q_tile[local * P + k] * K_tile[c * P + k];
        s[i] = dot;
      }
      block_max = fmaxf(block_max, s[i]);
    }
    for (int off = kG / 2; off > 0; off /= 2) block_max = fmaxf(block_max, __shfl_xor_sync(kFull, block_max, off));
    const float m_new = fmaxf(m_i, block_max);
    float p_sum = 0.0f;
    for (int i = 0; i < 4; ++i) {
      p[i] = (active && g + kG * i < bc) ? expf(s[i] - m_new) : 0.0f;
      p_sum += p[i];
    }
    for (int off = kG / 2; off > 0; off /= 2) p_sum += __shfl_xor_sync(kFull, p_sum, off);
    const float scale = active ? expf(m_i - m_new) : 0.0f;

    // Stage V again for the weighted sum (the copy above is not reused).
    __syncthreads();
    stage_v<D>(V, j, bc);
    __syncthreads();

    for (int u = 0; u < T; ++u) {
      float pv = 0.0f;
      for (int c = 0; c < bc; ++c)
        pv += __shfl_sync(kFull, p[c / kG], grp * kG + c % kG) * V_tile[c * D + g + kG * u];
      if (active) o[u] = o[u] * scale + pv;
    }
    if (active) {
      l_i = l_i * scale + p_sum;
      m_i = m_new;
    }
    __syncthreads();  // the next tile overwrites K_tile and V_tile
  }

  if (active)
    for (int u = 0; u < T; ++u) O[size_t(r) * D + g + kG * u] = o[u] / l_i;
}

template <int D>
void launch(const float* Q, const float* K, const float* V, float* O, int n) {
  flash_attention_kernel<D><<<(n + kRows - 1) / kRows, kThreads>>>(Q, K, V, O, n);
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
