// Lab 3, my version: FlashAttention-1's Algorithm 1 per query row. One warp per row,
// lane c scores key c of the tile, lane t owns output columns t, t + 32, ...; the
// output kept in registers is normalised after every tile (the paper's
// O_i <- diag(l_new)^-1 (diag(l) e^(m - m_new) O_i + e^(m~ - m_new) P~ V_j)), so
// nothing is left to divide at the end.
#include <cuda_runtime.h>

#include "flash_attention_lab.hpp"

namespace lesson13 {
namespace {

constexpr unsigned kAll = 0xffffffffu;
constexpr int kRows = kFlashBr;   // query rows (warps) per block
constexpr int kKeys = kFlashBc;   // keys per tile, one per lane

struct RowStat {
  float m;  // running max of the row's scores
  float l;  // running softmax denominator, relative to m
};

__device__ __forceinline__ float warp_max(float v) {
  // butterfly: every lane ends with the result
  for (int off = 16; off > 0; off >>= 1) v = fmaxf(v, __shfl_xor_sync(kAll, v, off));
  return v;
}

__device__ __forceinline__ float warp_sum(float v) {
  for (int off = 16; off > 0; off >>= 1) v += __shfl_xor_sync(kAll, v, off);
  return v;
}

template <int D>
__global__ void __launch_bounds__(kRows * 32) fa1_forward(const float* __restrict__ Q, const float* __restrict__ K,
                                                          const float* __restrict__ V, float* __restrict__ O, int n) {
  __shared__ float Qs[kRows][D];
  __shared__ float Ks[kKeys][D + 1];  // +1: lane c reading row c hits bank (c * (D + 1) + k) % 32
  __shared__ float Vs[kKeys][D];
  constexpr int kCols = D / 32;

  const int warp = threadIdx.x >> 5, lane = threadIdx.x & 31;
  const int first_row = blockIdx.x * kRows;
  const int row = first_row + warp;
  const bool has_row = row < n;
  const int nrows = min(kRows, n - first_row);

  for (int i = threadIdx.x; i < nrows * D; i += blockDim.x) Qs[i / D][i % D] = Q[size_t(first_row) * D + i];

  RowStat st{-INFINITY, 0.0f};
  float acc[kCols];
#pragma unroll
  for (int u = 0; u < kCols; ++u) acc[u] = 0.0f;

  for (int kv0 = 0; kv0 < n; kv0 += kKeys) {
    const int bc = min(kKeys, n - kv0);
    __syncthreads();  // Qs is staged / everyone is done with the previous tile
    for (int i = threadIdx.x; i < bc * D; i += blockDim.x) {
      Ks[i / D][i % D] = K[size_t(kv0) * D + i];
      Vs[i / D][i % D] = V[size_t(kv0) * D + i];
    }
    __syncthreads();

    if (has_row) {
      // Only the lanes holding a key take part in the tile's reductions.
      const unsigned live = __ballot_sync(kAll, lane < bc);
      float s = -INFINITY, p = 0.0f, tile_max = -INFINITY, tile_sum = 0.0f;
      if (lane < bc) {
        float dot = 0.0f;
        for (int k = 0; k < D; ++k) dot += Qs[warp][k] * Ks[lane][k];
        s = dot;
        tile_max = s;
        for (int off = 16; off > 0; off >>= 1) {
          const float other = __shfl_down_sync(live, tile_max, off);
          if (lane + off < bc) tile_max = fmaxf(tile_max, other);  // partner holds a key
        }
      }
      tile_max = __shfl_sync(kAll, tile_max, 0);  // lane 0 holds the reduction; broadcast it to the whole warp
      const float m_new = fmaxf(st.m, tile_max);
      if (lane < bc) {
        p = __expf(s - m_new);
        tile_sum = p;
        for (int off = 16; off > 0; off >>= 1) {
          const float other = __shfl_down_sync(live, tile_sum, off);
          if (lane + off < bc) tile_sum += other;
        }
      }
      tile_sum = __shfl_sync(kAll, tile_sum, 0);
      const float carry = __expf(st.m - m_new) * st.l;  // old weights, re-based on m_new
      const float l_new = carry + tile_sum;
      const float inv_l = 1.0f / l_new;
#pragma unroll
      for (int u = 0; u < kCols; ++u) {
        float pv = 0.0f;
        for (int c = 0; c < bc; ++c) pv += __shfl_sync(kAll, p, c) * Vs[c][lane + 32 * u];
        acc[u] = (carry * acc[u] + pv) * inv_l;  // stays normalised
      }
      st = RowStat{m_new, l_new};
    }
  }

  if (has_row) {
#pragma unroll
    for (int u = 0; u < kCols; ++u) O[size_t(row) * D + lane + 32 * u] = acc[u];
  }
}

template <int D>
void run(const float* Q, const float* K, const float* V, float* O, int n) {
  const int blocks = (n + kRows - 1) / kRows;
  fa1_forward<D><<<blocks, kRows * 32>>>(Q, K, V, O, n);
}

}  // namespace

bool flash_attention_forward(const float* Q, const float* K, const float* V, float* O, int n, int d) {
  if (d == 32) return run<32>(Q, K, V, O, n), true;
  if (d == 64) return run<64>(Q, K, V, O, n), true;
  if (d == 128) return run<128>(Q, K, V, O, n), true;
  return false;
}

}  // namespace lesson13
