// Lesson 13 lab 3: FlashAttention's forward pass as a CUDA kernel (fp32).
//
// My layout: two query rows per warp, one per half-warp of 16 lanes. A block is 16
// warps (512 threads) and owns 32 query rows, so each K/V tile staged in shared
// memory serves 32 rows instead of 16. Key tiles are 16 rows: lane h of a half-warp
// scores key h for its row. q is not copied into registers: the dot product reads
// the row from Q_tile, whose rows are padded to d + 1 floats so that the two rows a
// warp reads lie in different banks. Lane h keeps output columns h, h + 16, ...
// API: lessons/lesson13/include/flash_attention_lab.hpp.
#include <cuda_runtime.h>

#include "flash_attention_lab.hpp"

namespace lesson13 {
namespace {

constexpr int kRows = 32;    // query rows per block
constexpr int kThreads = 512;  // 16 warps, two rows each
constexpr int kKeys = 16;    // keys per tile: one per lane of a half-warp
constexpr int kMaxD = 128;
constexpr unsigned kFull = 0xffffffffu;

// Outside the template, sized for the largest d: 16,512 + 8,256 + 8,192 bytes.
__shared__ float Q_tile[kRows * (kMaxD + 1)];
__shared__ float K_tile[kKeys * (kMaxD + 1)];
__shared__ float V_tile[kKeys * kMaxD];

template <int D>
__global__ void __launch_bounds__(kThreads) flash_attention_kernel(const float* Q, const float* K, const float* V,
                                                                   float* O, int n) {
  constexpr int P = D + 1;   // padded row, for Q_tile and K_tile
  constexpr int T = D / 16;  // output columns per lane
  const int lane = threadIdx.x % 32, half = lane / 16, h = lane % 16;
  const int local = (threadIdx.x / 32) * 2 + half;  // this half-warp's row in the block
  const int r0 = blockIdx.x * kRows, r = r0 + local;
  const bool active = r < n;  // the same for the 16 lanes of a half-warp

  const int rows = min(kRows, n - r0);
  for (int idx = threadIdx.x; idx < rows * D; idx += blockDim.x)
    Q_tile[(idx / D) * P + idx % D] = Q[size_t(r0) * D + idx];

  float o[T];
  for (int t = 0; t < T; ++t) o[t] = 0.0f;
  float m_i = -INFINITY, l_i = 0.0f;

  for (int j = 0; j < n; j += kKeys) {
    const int bc = min(kKeys, n - j);
    for (int idx = threadIdx.x; idx < bc * D; idx += blockDim.x) {
      K_tile[(idx / D) * P + idx % D] = K[size_t(j) * D + idx];
      V_tile[idx] = V[size_t(j) * D + idx];
    }
    __syncthreads();  // (the first time, Q_tile too)

    // Every lane takes part in the shuffles (an idle half-warp with s = -inf).
    float s = -INFINITY;
    if (active && h < bc) {
      float dot = 0.0f;
      for (int k = 0; k < D; ++k) dot += Q_tile[local * P + k] * K_tile[h * P + k];
      s = dot;
    }
    float block_max = s;  // max over the 16 lanes of this half-warp
    for (int off = 8; off > 0; off /= 2) block_max = fmaxf(block_max, __shfl_xor_sync(kFull, block_max, off));
    const float m_new = fmaxf(m_i, block_max);
    const float p = (active && h < bc) ? expf(s - m_new) : 0.0f;
    float p_sum = p;
    for (int off = 8; off > 0; off /= 2) p_sum += __shfl_xor_sync(kFull, p_sum, off);

    // pv on every lane (an idle row has p = 0), so that all 32 lanes run the same
    // shuffles; only an active row updates its state.
    const float scale = active ? expf(m_i - m_new) : 0.0f;
    for (int u = 0; u < T; ++u) {
      float pv = 0.0f;
      for (int c = 0; c < bc; ++c) pv += __shfl_sync(kFull, p, half * 16 + c) * V_tile[c * D + h + 16 * u];
      if (active) o[u] = o[u] * scale + pv;
    }
    if (active) {
      l_i = l_i * scale + p_sum;
      m_i = m_new;
    }
    __syncthreads();  // the next tile overwrites K_tile and V_tile
  }

  if (active)
    for (int u = 0; u < T; ++u) O[size_t(r) * D + h + 16 * u] = o[u] / l_i;
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
