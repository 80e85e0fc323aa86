// Lab 3 in FlashAttention-1's loop order (the lab3-variant-fa1-order mutant), with its
// K and V tiles sized for d up to 256 instead of d: 2 x 32 KiB of static __shared__,
// over sm_90's 48 KiB per block. Right results on the emulator's CPU if it ran, but
// ptxas refuses to build it for an H200, so the emulator's build refuses it too.
#include <cuda_runtime.h>

#include "flash_attention_lab.hpp"

namespace lesson13 {
namespace {

constexpr int kRows = 32;  // query rows per block, one warp each
constexpr int kKeys = kFlashBc;
constexpr unsigned kFull = 0xffffffffu;

template <int D>
__global__ void __launch_bounds__(kRows * 32)
    fa1_key_tile(const float* Q, const float* K, const float* V, float* O, float2* ML, int n, int j0) {
  constexpr int PER = D / 32;
  __shared__ float Kj[kKeys * 256];  // room for d up to 256: 32 KiB
  __shared__ float Vj[kKeys * 256];  // room for d up to 256: 32 KiB
  const int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
  const int row = blockIdx.x * kRows + warp;
  const int cnt = min(kKeys, n - j0);
  for (int e = threadIdx.x; e < cnt * D; e += blockDim.x) {
    Kj[e] = K[j0 * D + e];
    Vj[e] = V[j0 * D + e];
  }
  __syncthreads();
  if (row >= n) return;  // after the block's only barrier

  float q[PER];
  for (int u = 0; u < PER; ++u) q[u] = Q[row * D + lane + 32 * u];

  // Lane c scores key j0 + c (the lanes split d, then a butterfly sums the parts).
  float s_mine = -INFINITY;
  for (int c = 0; c < cnt; ++c) {
    float part = 0.0f;
    for (int u = 0; u < PER; ++u) part += q[u] * Kj[c * D + lane + 32 * u];
    for (int off = 16; off > 0; off >>= 1) part += __shfl_xor_sync(kFull, part, off);
    if (lane == c) s_mine = part;
  }
  float m_tile = s_mine;
  for (int off = 16; off > 0; off >>= 1) m_tile = fmaxf(m_tile, __shfl_xor_sync(kFull, m_tile, off));
  const float p_mine = lane < cnt ? expf(s_mine - m_tile) : 0.0f;
  float l_tile = p_mine;
  for (int off = 16; off > 0; off >>= 1) l_tile += __shfl_xor_sync(kFull, l_tile, off);
  float pv[PER];
  for (int u = 0; u < PER; ++u) pv[u] = 0.0f;
  for (int c = 0; c < cnt; ++c) {
    const float p = __shfl_sync(kFull, p_mine, c);
    for (int u = 0; u < PER; ++u) pv[u] += p * Vj[c * D + lane + 32 * u];
  }

  // Read back what the earlier key tiles left (nothing before the first one).
  float m_old = -INFINITY, l_old = 0.0f;
  if (j0 > 0) {
    float2 ml = make_float2(0.0f, 0.0f);
    if (lane == 0) ml = ML[row];
    m_old = __shfl_sync(kFull, ml.x, 0);
    l_old = __shfl_sync(kFull, ml.y, 0);
  }
  const float m_new = fmaxf(m_old, m_tile);
  const float a_old = expf(m_old - m_new), a_tile = expf(m_tile - m_new);
  const float l_new = a_old * l_old + a_tile * l_tile;
  for (int u = 0; u < PER; ++u) {
    const int col = row * D + lane + 32 * u;
    const float o_old = j0 > 0 ? O[col] : 0.0f;  // O is kept normalised, as in FA-1
    O[col] = (l_old * a_old * o_old + a_tile * pv[u]) / l_new;
  }
  if (lane == 0) ML[row] = make_float2(m_new, l_new);
}

template <int D>
void forward(const float* Q, const float* K, const float* V, float* O, int n) {
  float2* ML = nullptr;
  cudaMalloc(&ML, sizeof(float2) * n);
  const int grid = (n + kRows - 1) / kRows;
  for (int j0 = 0; j0 < n; j0 += kKeys)  // outer loop: key/value tiles
    fa1_key_tile<D><<<grid, kRows * 32>>>(Q, K, V, O, ML, n, j0);
  cudaFree(ML);
}

}  // namespace

bool flash_attention_forward(const float* Q, const float* K, const float* V, float* O, int n, int d) {
  switch (d) {
    case 32: forward<32>(Q, K, V, O, n); return true;
    case 64: forward<64>(Q, K, V, O, n); return true;
    case 128: forward<128>(Q, K, V, O, n); return true;
  }
  return false;
}

}  // namespace lesson13
