// Lesson 13 lab 3: FlashAttention's forward pass as a CUDA kernel (fp32).
// Fill in the BLANKs, then grade with: grader lesson13 --unit lab_flash
//
// One thread per query row, 64 rows per block (two warps). K and V stream through
// shared memory, 32 rows per tile. Each thread keeps a RowState (running max and
// running sum) and its unnormalised output row in registers. For every tile:
// scores against the tile's keys, the tile max, the new running max; the output
// accumulated so far is moved onto the new max with exp(m_old - m_new) and the
// tile's p V is added; the tile's probabilities are added to the running sum.
// O = o / l at the end.
// API: lessons/lesson13/include/flash_attention_lab.hpp.
#include <cuda_runtime.h>

#include "course/blank.hpp"
#include "flash_attention_lab.hpp"

namespace lesson13 {
namespace {

constexpr int kQueryRows = 64;  // threads per block, one query row each
constexpr int kTileKeys = 32;
constexpr int kMaxD = 128;

__shared__ float tileK[kTileKeys * kMaxD];
__shared__ float tileV[kTileKeys * kMaxD];

struct RowState {
  float max;  // largest score seen so far
  float sum;  // softmax denominator so far
};

template <int D>
__device__ float dot_with_key(const float (&q)[D], int key) {
  float acc = 0.0f;
  for (int k = 0; k < D; ++k) acc += q[k] * tileK[key * D + k];  // one address per warp
  return acc;
}

template <int D>
__global__ void attention_rows_kernel(const float* Q, const float* K, const float* V, float* O, int n) {
  const int r = blockIdx.x * kQueryRows + threadIdx.x;
  const bool mine = r < n;

  float q[D], out[D];
  for (int k = 0; k < D; ++k) {
    q[k] = mine ? Q[size_t(r) * D + k] : 0.0f;
    out[k] = 0.0f;
  }
  RowState st{-INFINITY, 0.0f};

  for (int t0 = 0; t0 < n; t0 += kTileKeys) {
    const int keys = min(kTileKeys, n - t0);
    for (int e = threadIdx.x; e < keys * D; e += blockDim.x) {
      tileK[e] = K[size_t(t0) * D + e];
      tileV[e] = V[size_t(t0) * D + e];
    }
    __syncthreads();

    if (mine) {
      float s[kTileKeys];
      float tile_max = -INFINITY;
      for (int c = 0; c < keys; ++c) {
        s[c] = dot_with_key<D>(q, c);
        tile_max = fmaxf(tile_max, s[c]);
      }
      const float new_max = fmaxf(st.max, tile_max);
      const float correction = expf(st.max - new_max);

      float tile_sum = 0.0f;
      for (int c = 0; c < keys; ++c) {
        s[c] = expf(s[c] - new_max);
        tile_sum += s[c];
      }
      for (int k = 0; k < D; ++k) {
        float pv = 0.0f;
        for (int c = 0; c < keys; ++c) pv += s[c] * tileV[c * D + k];
        out[k] = out[k] * correction + pv;  // old output moved onto the new max
      }
      st.sum += tile_sum;  // running denominator
      st.max = new_max;
    }
    __syncthreads();  // before the next tile is copied over this one
  }

  if (mine)
    for (int k = 0; k < D; ++k) O[size_t(r) * D + k] = out[k] / st.sum;
}

template <int D>
void launch(const float* Q, const float* K, const float* V, float* O, int n) {
  const dim3 grid((n + kQueryRows - 1) / kQueryRows);
  const dim3 block(kQueryRows);
  attention_rows_kernel<D><<<grid, block>>>(Q, K, V, O, n);
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
