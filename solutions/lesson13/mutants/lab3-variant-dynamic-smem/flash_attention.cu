// Lab 3 with bigger key tiles in dynamic shared memory: 64 keys per tile, so each
// lane of a row's warp scores two keys (lane and lane + 32). The Q rows, the padded
// K tile and the V tile share one extern __shared__ buffer; at d = 128 that is
// 18,496 floats (72 KiB), more than the default 48 KiB, so the host raises the
// kernel's limit with cudaFuncSetAttribute before launching.
#include <cuda_runtime.h>

#include "flash_attention_lab.hpp"

namespace lesson13 {
namespace {

constexpr int ROWS = kFlashBr;  // one warp per query row
constexpr int KEYS = 64;        // two keys per lane
constexpr unsigned FULL = 0xffffffffu;

template <int D>
constexpr size_t smem_floats() {
  return ROWS * D + KEYS * (D + 1) + KEYS * D;
}

__device__ float warp_max(float v) {
  for (int o = 16; o > 0; o /= 2) v = fmaxf(v, __shfl_xor_sync(FULL, v, o));
  return v;
}
__device__ float warp_add(float v) {
  for (int o = 16; o > 0; o /= 2) v += __shfl_xor_sync(FULL, v, o);
  return v;
}

template <int D>
__global__ void fa_dyn(const float* Q, const float* K, const float* V, float* O, int n) {
  extern __shared__ float buf[];
  float* qs = buf;                        // [ROWS][D]
  float* ks = qs + ROWS * D;              // [KEYS][D + 1]
  float* vs = ks + KEYS * (D + 1);        // [KEYS][D]
  const int lane = threadIdx.x % 32, wid = threadIdx.x / 32;
  const int base = blockIdx.x * ROWS, row = base + wid;
  const bool valid = row < n;

  for (int i = threadIdx.x; i < min(ROWS, n - base) * D; i += blockDim.x) qs[i] = Q[base * D + i];

  float o[D / 32];
  for (int t = 0; t < D / 32; ++t) o[t] = 0.0f;
  float m = -INFINITY, l = 0.0f;

  for (int kb = 0; kb < n; kb += KEYS) {
    const int cnt = min(KEYS, n - kb);
    __syncthreads();  // Q staged (first pass) / previous tile fully used
    for (int i = threadIdx.x; i < cnt * D; i += blockDim.x) {
      ks[(i / D) * (D + 1) + i % D] = K[kb * D + i];
      vs[i] = V[kb * D + i];
    }
    __syncthreads();
    if (!valid) continue;  // whole warps only: `valid` is the same on all 32 lanes
    float s0 = -INFINITY, s1 = -INFINITY;
    if (lane < cnt) {
      float a = 0.0f;
      for (int k = 0; k < D; ++k) a += qs[wid * D + k] * ks[lane * (D + 1) + k];
      s0 = a;
    }
    if (lane + 32 < cnt) {
      float a = 0.0f;
      for (int k = 0; k < D; ++k) a += qs[wid * D + k] * ks[(lane + 32) * (D + 1) + k];
      s1 = a;
    }
    const float m_new = fmaxf(m, warp_max(fmaxf(s0, s1)));
    const float f = expf(m - m_new);
    const float p0 = lane < cnt ? expf(s0 - m_new) : 0.0f;
    const float p1 = lane + 32 < cnt ? expf(s1 - m_new) : 0.0f;
    l = l * f + warp_add(p0 + p1);
    for (int t = 0; t < D / 32; ++t) {
      float acc = 0.0f;
      for (int c = 0; c < cnt; ++c) {
        const float pc = __shfl_sync(FULL, c < 32 ? p0 : p1, c % 32);
        acc += pc * vs[c * D + lane + 32 * t];
      }
      o[t] = o[t] * f + acc;
    }
    m = m_new;
  }
  if (valid)
    for (int t = 0; t < D / 32; ++t) O[row * D + lane + 32 * t] = o[t] / l;
}

template <int D>
void launch(const float* Q, const float* K, const float* V, float* O, int n) {
  const int bytes = static_cast<int>(smem_floats<D>() * sizeof(float));
  cudaFuncSetAttribute(fa_dyn<D>, cudaFuncAttributeMaxDynamicSharedMemorySize, bytes);
  fa_dyn<D><<<(n + ROWS - 1) / ROWS, ROWS * 32, bytes>>>(Q, K, V, O, n);
}

}  // namespace

bool flash_attention_forward(const float* Q, const float* K, const float* V, float* O, int n, int d) {
  switch (d) {
    case 32: launch<32>(Q, K, V, O, n); break;
    case 64: launch<64>(Q, K, V, O, n); break;
    case 128: launch<128>(Q, K, V, O, n); break;
    default: return false;
  }
  return true;
}

}  // namespace lesson13
