// Lesson 13 lab 3: FlashAttention's forward pass as a CUDA kernel (fp32).
// Fill in the BLANKs, then grade with: grader lesson13 --unit lab_flash
//
// Variant with Br != Bc and two query rows per warp: a block of 16 warps owns
// Br = 32 query rows, and K and V stream through shared memory in tiles of
// Bc = 16 keys. Each half warp (16 lanes) works on one query row: lane c of the
// half scores key c of the tile, the half combines its 16 scores with a 4-step
// __shfl_xor_sync butterfly (offsets 8, 4, 2, 1 never leave the half), and lane c
// keeps output columns c, c + 16, ... of its row. A half warp whose row lies past
// n skips the row's work (as the one-row-per-warp kernel does with `if (active)`)
// but still helps copy the tiles and reaches every barrier.
// API: lessons/lesson13/include/flash_attention_lab.hpp.
#include <cuda_runtime.h>

#include "course/blank.hpp"
#include "flash_attention_lab.hpp"

namespace lesson13 {
namespace {

constexpr int kWarps = 16;                      // 512 threads per block
constexpr int kRowsPerWarp = 2;                 // one row per half warp
constexpr int H = 32 / kRowsPerWarp;            // lanes per row: 16
constexpr int Br = kWarps * kRowsPerWarp;       // 32 query rows per block
constexpr int Bc = H;                           // 16 keys per tile, one per lane of a half
constexpr int kMaxD = 128;
constexpr unsigned kFull = 0xffffffffu;

// Tiles sized for the largest d, outside the template: 16 KiB + 8,256 B + 8 KiB.
__shared__ float Q_tile[Br * kMaxD];
__shared__ float K_tile[Bc * (kMaxD + 1)];  // rows padded by one float
__shared__ float V_tile[Bc * kMaxD];

template <int D>
__global__ void __launch_bounds__(kWarps * 32) flash_attention_kernel(const float* Q, const float* K, const float* V,
                                                                      float* O, int n) {
  constexpr int P = D + 1;  // padded K row
  constexpr int T = D / H;  // output columns per lane
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  const int half = lane / H, c = lane % H;
  const int r0 = blockIdx.x * Br;
  const int lr = warp * kRowsPerWarp + half;  // this half warp's row within the block
  const int r = r0 + lr;
  const bool active = r < n;

  const int rows = min(Br, n - r0);
  for (int idx = threadIdx.x; idx < rows * D; idx += blockDim.x) Q_tile[idx] = Q[size_t(r0) * D + idx];
  __syncthreads();
  float q[D];
  if (active)
    for (int k = 0; k < D; ++k) q[k] = Q_tile[lr * D + k];

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
      // Lane c of each half scores key j + c for its half's row; -inf past the tile.
      float s = -INFINITY;
      if (c < bc) {
        float dot = 0.0f;
        for (int k = 0; k < D; ++k) dot += q[k] * K_tile[c * P + k];
        s = dot;
      }
      float block_max = s;
      for (int off = H / 2; off > 0; off /= 2) block_max = fmaxf(block_max, __shfl_xor_sync(kFull, block_max, off));

      const float m_new = fmaxf(m_i, block_max);
      const float scale = expf(m_i - m_new);  // 0 on the first tile (m_i = -inf)
      const float p = c < bc ? expf(s - m_new) : 0.0f;
      float p_sum = p;
      for (int off = H / 2; off > 0; off /= 2) p_sum += __shfl_xor_sync(kFull, p_sum, off);
      const float l_new = l_i * scale + p_sum;

      for (int u = 0; u < T; ++u) {
        float pv = 0.0f;  // sum over this tile's keys cc of p_cc * V_j[cc][c + H u], p_cc from this half
        for (int cc = 0; cc < bc; ++cc) pv += __shfl_sync(kFull, p, half * H + cc) * V_tile[cc * D + c + H * u];
        o[u] = o[u] * scale + pv;
      }
      m_i = m_new;
      l_i = l_new;
    }
    __syncthreads();  // the next tile overwrites K_tile and V_tile
  }

  if (active)
    for (int u = 0; u < T; ++u) O[size_t(r) * D + c + H * u] = o[u] / l_i;
}

template <int D>
void launch(const float* Q, const float* K, const float* V, float* O, int n) {
  flash_attention_kernel<D><<<(n + Br - 1) / Br, kWarps * 32>>>(Q, K, V, O, n);
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
