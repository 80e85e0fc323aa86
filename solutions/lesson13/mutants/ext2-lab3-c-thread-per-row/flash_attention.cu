// Lesson 13 lab 3: FlashAttention's forward pass as a CUDA kernel (fp32).
// Fill in the BLANKs, then grade with: grader lesson13 --unit lab_flash
//
// Written after flash-attention-minimal's forward kernel: one thread per query
// row, Br = Bc = 32, so a block is one warp and owns 32 query rows. The block
// stages its Q rows once (Qi), then streams K and V through shared memory one
// tile of 32 rows at a time (Kj, Vj). For each tile a thread computes its 32
// scores into a small S array, the tile's row max, the new running max m, and
// rescales its running sum l and its unnormalised output o by exp(m_old - m_new)
// before adding the tile. O is written once, at the end. Unlike the original,
// the tile copies put consecutive threads on consecutive floats, the last tile
// may be partial, there is no 1/sqrt(d) (the lab's softmax(QK^T)V), and idle
// threads of the last block still copy and reach every barrier.
// API: lessons/lesson13/include/flash_attention_lab.hpp.
#include <cuda_runtime.h>

#include "course/blank.hpp"
#include "flash_attention_lab.hpp"

namespace lesson13 {
namespace {

constexpr int Br = 32, Bc = 32, kMaxD = 128;

__shared__ float Qi[Br * kMaxD];
__shared__ float Kj[Bc * kMaxD];
__shared__ float Vj[Bc * kMaxD];

template <int d>
__global__ void forward_kernel(const float* Q, const float* K, const float* V, float* O, int N) {
  const int tx = threadIdx.x;
  const int row0 = blockIdx.x * Br;
  const int row = row0 + tx;
  const int rows = min(Br, N - row0);
  const int Tc = (N + Bc - 1) / Bc;

  // Load Qi to SRAM (the block's rows are contiguous in Q).
  for (int idx = tx; idx < rows * d; idx += Br) Qi[idx] = Q[size_t(row0) * d + idx];
  __syncthreads();

  float q[d], o[d];
  for (int x = 0; x < d; ++x) {
    q[x] = tx < rows ? Qi[tx * d + x] : 0.0f;
    o[x] = 0.0f;
  }
  float m = -INFINITY, l = 0.0f;

  for (int j = 0; j < Tc; ++j) {
    const int kv0 = j * Bc;
    const int bc = min(Bc, N - kv0);

    // Load Kj, Vj to SRAM.
    for (int idx = tx; idx < bc * d; idx += Br) {
      Kj[idx] = K[size_t(kv0) * d + idx];
      Vj[idx] = V[size_t(kv0) * d + idx];
    }
    __syncthreads();

    if (row < N) {
      // S = Q K^T for this row and tile, row_m = rowmax(S).
      float S[Bc];
      float row_m = -INFINITY;
      for (int y = 0; y < bc; ++y) {
        float sum = 0.0f;
        for (int x = 0; x < d; ++x) sum += q[x] * Kj[y * d + x];
        S[y] = sum;
        row_m = fmaxf(row_m, sum);
      }

      // New running max, and the factor that moves the old l and o onto it.
      const float m_new = fmaxf(m, row_m);
      const float alpha = expf(m - m_new);  // 0 on the first tile (m = -inf)

      // P = exp(S - m_new), row_l = rowsum(P).
      float row_l = 0.0f;
      for (int y = 0; y < bc; ++y) {
        S[y] = expf(S[y] - m_new);
        row_l += S[y];
      }

      // o = alpha * o + P V, l = alpha * l + row_l.
      for (int x = 0; x < d; ++x) {
        float pv = 0.0f;
        for (int y = 0; y < bc; ++y) pv += S[y] * Vj[y * d + x];
        o[x] = alpha * o[x] + pv;
      }
      l = alpha * l + row_l;
      m = m_new;
    }
    __syncthreads();  // the next tile overwrites Kj and Vj
  }

  if (row < N)
    for (int x = 0; x < d; ++x) O[size_t(row) * d + x] = o[x] / l;
}

template <int d>
void launch(const float* Q, const float* K, const float* V, float* O, int n) {
  const dim3 grid((n + Br - 1) / Br);
  const dim3 block(Br);
  forward_kernel<d><<<grid, block>>>(Q, K, V, O, n);
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
