// Lab 3 without shared memory: one warp per query row, lane c scores key j + c of
// each tile by reading K[j + c][*] straight from global memory, and lane t sums
// P V for its output columns reading V from global memory too. The online softmax
// is right, so O is right -- but every warp streams all of K and V on its own
// (K with 32 different rows per request), instead of once per block of query rows
// staged in shared memory: far more global traffic than the tiled algorithm's.
#include <cuda_runtime.h>

#include "flash_attention_lab.hpp"

namespace lesson13 {
namespace {

constexpr int kRows = 4;  // query rows (warps) per block
constexpr int kChunk = kFlashBc;
constexpr unsigned kAll = 0xffffffffu;

template <int D>
__global__ void fa_global_only(const float* __restrict__ Q, const float* __restrict__ K,
                               const float* __restrict__ V, float* __restrict__ O, int n) {
  const int lane = threadIdx.x & 31;
  const int row = blockIdx.x * kRows + (threadIdx.x >> 5);
  if (row >= n) return;  // whole warps; no block-level barrier in this kernel
  const float* qrow = Q + row * D;
  float o[D / 32];
  for (int u = 0; u < D / 32; ++u) o[u] = 0.0f;
  float m = -INFINITY, l = 0.0f;
  for (int j = 0; j < n; j += kChunk) {
    const int cnt = min(kChunk, n - j);
    float s = -INFINITY;
    if (lane < cnt) {
      const float* krow = K + (j + lane) * D;
      float dot = 0.0f;
      for (int k = 0; k < D; ++k) dot += qrow[k] * krow[k];
      s = dot;
    }
    float t = s;
    for (int off = 16; off > 0; off >>= 1) t = fmaxf(t, __shfl_xor_sync(kAll, t, off));
    const float m_new = fmaxf(m, t);
    const float scale = expf(m - m_new);
    const float p = lane < cnt ? expf(s - m_new) : 0.0f;
    float ps = p;
    for (int off = 16; off > 0; off >>= 1) ps += __shfl_xor_sync(kAll, ps, off);
    for (int u = 0; u < D / 32; ++u) {
      float acc = 0.0f;
      for (int c = 0; c < cnt; ++c) acc += __shfl_sync(kAll, p, c) * V[(j + c) * D + lane + 32 * u];
      o[u] = o[u] * scale + acc;
    }
    l = l * scale + ps;
    m = m_new;
  }
  for (int u = 0; u < D / 32; ++u) O[row * D + lane + 32 * u] = o[u] / l;
}

}  // namespace

bool flash_attention_forward(const float* Q, const float* K, const float* V, float* O, int n, int d) {
  const int grid = (n + kRows - 1) / kRows;
  switch (d) {
    case 32: fa_global_only<32><<<grid, kRows * 32>>>(Q, K, V, O, n); return true;
    case 64: fa_global_only<64><<<grid, kRows * 32>>>(Q, K, V, O, n); return true;
    case 128: fa_global_only<128><<<grid, kRows * 32>>>(Q, K, V, O, n); return true;
    default: return false;
  }
}

}  // namespace lesson13
