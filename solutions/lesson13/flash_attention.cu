// Lesson 13 lab 3: FlashAttention's forward pass as a CUDA kernel (fp32).
// Fill in the BLANKs, then grade with: grader lesson13 --unit lab_flash
//
// One warp per query row, kFlashBr rows (warps) per block. The block stages its
// query rows and, one tile at a time, kFlashBc rows of K and V in shared memory.
// For each tile, lane c scores key c; the warp combines the lanes' scores with
// shuffles into the tile's max and sum, and lane t keeps output columns
// t, t+32, ... of its row. Each warp keeps its row's running max m, running sum l
// and unnormalised output o, exactly as the C++ exercise (online_softmax.cpp)
// does, and writes O once at the end. No n x n matrix ever exists.
// API: lessons/lesson13/include/flash_attention_lab.hpp.
#include <cuda_runtime.h>

#include "course/blank.hpp"
#include "flash_attention_lab.hpp"

namespace lesson13 {
namespace {

constexpr int Br = kFlashBr, Bc = kFlashBc, kMaxD = 128;
constexpr unsigned kFull = 0xffffffffu;

// The tiles, sized for the largest d, outside the kernel template (a __shared__
// array inside a template is invisible to the emulator). K rows are padded by one
// float, so lane c reading row c, column k hits bank (c * (d + 1) + k) % 32: all
// different.
__shared__ float Q_tile[Br * kMaxD];
__shared__ float K_tile[Bc * (kMaxD + 1)];
__shared__ float V_tile[Bc * kMaxD];

// __launch_bounds__: 512 threads per block leave at most 128 registers per thread;
// without the bound, nvcc keeps all of q[128] in registers and the launch fails.
template <int D>
__global__ void __launch_bounds__(Br * 32) flash_attention_kernel(const float* Q, const float* K, const float* V,
                                                                  float* O, int n) {
  constexpr int P = D + 1;   // padded K row
  constexpr int T = D / 32;  // output columns per lane
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  const int r0 = blockIdx.x * Br, r = r0 + warp;  // this warp's query row
  const bool active = r < n;

  // Stage this block's query rows (consecutive threads copy consecutive floats).
  const int rows = min(Br, n - r0);
  for (int idx = threadIdx.x; idx < rows * D; idx += blockDim.x) Q_tile[idx] = Q[r0 * D + idx];
  __syncthreads();
  float q[D];
  for (int k = 0; k < D; ++k) q[k] = Q_tile[warp * D + k];  // one address per warp: a broadcast

  float o[T];
  for (int t = 0; t < T; ++t) o[t] = 0.0f;
  float m_i = -INFINITY, l_i = 0.0f;

  for (int j = 0; j < n; j += Bc) {
    const int bc = min(Bc, n - j);  // the last tile may be partial
    for (int idx = threadIdx.x; idx < bc * D; idx += blockDim.x) {
      K_tile[(idx / D) * P + idx % D] = K[j * D + idx];
      V_tile[idx] = V[j * D + idx];
    }
    __syncthreads();

    if (active) {
      // Lane c scores key j + c; lanes past a partial tile score -inf.
      float s = -INFINITY;
      if (lane < bc) {
        float dot = 0.0f;
        for (int k = 0; k < D; ++k) dot += q[k] * K_tile[lane * P + k];
        s = dot;
      }
      float block_max = s;  // the tile's largest score, on every lane
      for (int off = 16; off > 0; off /= 2) block_max = fmaxf(block_max, __shfl_xor_sync(kFull, block_max, off));

      // 1) New running max.
      // BEGIN SOLUTION
      const float m_new = fmaxf(m_i, block_max);
      // PROMPT const float m_new = BLANK(m_new);
      // END SOLUTION

      // 2) scale: the factor that puts l_i and o[], weighted relative to m_i, on m_new.
      // BEGIN SOLUTION
      const float scale = expf(m_i - m_new);
      // PROMPT const float scale = BLANK(scale);
      // END SOLUTION

      // 3) p and p_sum: this tile's weights against m_new, and their sum (given).
      const float p = lane < bc ? expf(s - m_new) : 0.0f;  // this lane's p_ij
      float p_sum = p;
      for (int off = 16; off > 0; off /= 2) p_sum += __shfl_xor_sync(kFull, p_sum, off);

      // 4) Running sum.
      // BEGIN SOLUTION
      const float l_new = l_i * scale + p_sum;
      // PROMPT const float l_new = BLANK(l_new);
      // END SOLUTION

      // 5) Running output: lane t owns columns t + 32 * u of the row. pv, the sum over
      //    this tile's keys, is given, so this blank is one expression.
      for (int u = 0; u < T; ++u) {
        float pv = 0.0f;  // sum over this tile's keys c of p_c * V_j[c][column]
        for (int c = 0; c < bc; ++c) pv += __shfl_sync(kFull, p, c) * V_tile[c * D + lane + 32 * u];
        // BEGIN SOLUTION
        o[u] = o[u] * scale + pv;
        // PROMPT o[u] = BLANK(O_update);  // column lane + 32u of the row's unnormalised output
        // END SOLUTION
      }
      m_i = m_new;
      l_i = l_new;
    }
    __syncthreads();  // the next tile overwrites K_tile and V_tile
  }

  if (active)
    for (int u = 0; u < T; ++u) {
      // Last step: normalise once, after every key tile.
      // BEGIN SOLUTION
      O[r * D + lane + 32 * u] = o[u] / l_i;
      // PROMPT O[r * D + lane + 32 * u] = BLANK(normalize);
      // END SOLUTION
    }
}

template <int D>
void launch(const float* Q, const float* K, const float* V, float* O, int n) {
  flash_attention_kernel<D><<<(n + Br - 1) / Br, Br * 32>>>(Q, K, V, O, n);
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
