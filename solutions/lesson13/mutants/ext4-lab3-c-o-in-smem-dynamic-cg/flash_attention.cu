// Lesson 13 lab 3: FlashAttention's forward pass as a CUDA kernel (fp32).
// Fill in the BLANKs, then grade with: grader lesson13 --unit lab_flash
//
// Variant: one warp per query row, kFlashBr rows per block, kFlashBc keys per tile,
// as in the lab, but the running (unnormalised) output of the block's rows lives
// in shared memory, O_s[Br][D], instead of registers: lane t of warp w owns
// O_s[w][t + 32u] and is the only thread that ever touches it. All four arrays
// (Q rows, K tile with rows padded to D + 1, V tile, O_s) are carved from one
// extern __shared__ buffer sized for D at launch (49,280 bytes at D = 128, so the
// launch first raises the kernel's dynamic shared-memory limit). Barriers are
// cooperative groups' this_thread_block().sync().
// API: lessons/lesson13/include/flash_attention_lab.hpp.
#include <cuda_runtime.h>

#include <cooperative_groups.h>

#include "course/blank.hpp"
#include "flash_attention_lab.hpp"

namespace cg = cooperative_groups;

namespace lesson13 {
namespace {

constexpr int Br = kFlashBr, Bc = kFlashBc;
constexpr unsigned kFull = 0xffffffffu;

template <int D>
constexpr int smem_floats() {
  return Br * D + Bc * (D + 1) + Bc * D + Br * D;  // Q_s, K_s (padded), V_s, O_s
}

template <int D>
__global__ void __launch_bounds__(Br * 32) flash_attention_kernel(const float* Q, const float* K, const float* V,
                                                                  float* O, int n) {
  extern __shared__ float smem[];
  constexpr int P = D + 1;   // padded K row
  constexpr int T = D / 32;  // output columns per lane
  float* Q_s = smem;          // Br x D
  float* K_s = Q_s + Br * D;  // Bc x P
  float* V_s = K_s + Bc * P;  // Bc x D
  float* O_s = V_s + Bc * D;  // Br x D

  auto block = cg::this_thread_block();
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  const int r0 = blockIdx.x * Br, r = r0 + warp;
  const bool active = r < n;
  float* o_row = O_s + warp * D;  // this warp's running output; lane t owns columns t + 32u

  const int rows = min(Br, n - r0);
  for (int idx = threadIdx.x; idx < rows * D; idx += blockDim.x) Q_s[idx] = Q[size_t(r0) * D + idx];
  for (int u = 0; u < T; ++u) o_row[lane + 32 * u] = 0.0f;
  block.sync();
  float q[D];
  if (active)
    for (int k = 0; k < D; ++k) q[k] = Q_s[warp * D + k];  // a broadcast per warp

  float m_i = -INFINITY, l_i = 0.0f;
  for (int j = 0; j < n; j += Bc) {
    const int bc = min(Bc, n - j);
    for (int idx = threadIdx.x; idx < bc * D; idx += blockDim.x) {
      K_s[(idx / D) * P + idx % D] = K[size_t(j) * D + idx];
      V_s[idx] = V[size_t(j) * D + idx];
    }
    block.sync();

    if (active) {  // the same for all 32 lanes of a warp: the shuffles see a full warp
      float s = -INFINITY;
      if (lane < bc) {
        float dot = 0.0f;
        for (int k = 0; k < D; ++k) dot += q[k] * K_s[lane * P + k];
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
        for (int c = 0; c < bc; ++c) pv += __shfl_sync(kFull, p, c) * V_s[c * D + lane + 32 * u];
        o_row[lane + 32 * u] = o_row[lane + 32 * u] * scale + pv;
      }
      m_i = m_new;
      l_i = l_new;
    }
    block.sync();  // the next tile overwrites K_s and V_s
  }

  if (active)
    for (int u = 0; u < T; ++u) O[size_t(r) * D + lane + 32 * u] = o_row[lane + 32 * u] / l_i;
}

template <int D>
void launch(const float* Q, const float* K, const float* V, float* O, int n) {
  const int bytes = smem_floats<D>() * int(sizeof(float));
  if (bytes > 48 * 1024)
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
