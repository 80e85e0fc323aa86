// Lesson 13 lab 3: FlashAttention's forward pass as a CUDA kernel (fp32).
// Fill in the BLANKs, then grade with: grader lesson13 --unit lab_flash
//
// FlashAttention-2's loop written the way a tiled matmul is: a block of 256 threads
// owns a tile of 16 query rows and walks the key tiles (32 keys each). Per key tile
//   1. all threads copy K_j (rows padded to d + 1) and V_j into shared memory;
//   2. all threads compute the 16 x 32 score tile S = Q_i K_j^T into shared memory,
//      two entries each (-inf past the end of a partial tile);
//   3. thread r < 16 runs the online-softmax update for row r: tile max, new
//      running max, scale = exp(m_old - m_new), P = exp(S - m_new) in place,
//      running sum l = l * scale + rowsum(P); it publishes scale for its row;
//   4. all threads update the 16 x d output tile, held in registers, d/16 columns
//      each: o = o * scale[row] + P V_j.
// Barriers separate the steps. O = o / l is written once, after the last tile. The
// largest buffer of scores is the 16 x 32 tile.
// API: lessons/lesson13/include/flash_attention_lab.hpp.
#include <cuda_runtime.h>

#include "course/blank.hpp"
#include "flash_attention_lab.hpp"

namespace lesson13 {
namespace {

constexpr int kBr = 16;        // query rows per block
constexpr int kBc = 32;        // keys per tile
constexpr int kThreads = 256;  // 16 threads per query row in the output update
constexpr int kMaxD = 128;
constexpr int kSStride = kBc + 1;

// Sized for the largest d, outside the kernel template (as in the given file).
__shared__ float sQ[kBr * kMaxD];
__shared__ float sK[kBc * (kMaxD + 1)];
__shared__ float sV[kBc * kMaxD];
__shared__ float sS[kBr * kSStride];  // scores, then probabilities, of one tile
__shared__ float sM[kBr];             // running max per row
__shared__ float sL[kBr];             // running sum per row
__shared__ float sScale[kBr];         // this tile's rescaling factor per row

template <int D>
__global__ void __launch_bounds__(kThreads) flash_tile_kernel(const float* Q, const float* K, const float* V, float* O, int n) {
  constexpr int KP = D + 1;             // padded K row
  constexpr int kColsPerThread = D / 16;
  const int tid = threadIdx.x;
  const int q0 = blockIdx.x * kBr;
  const int q_rows = min(kBr, n - q0);

  // Q tile, zero rows past the end of Q; running statistics.
  for (int e = tid; e < kBr * D; e += kThreads) sQ[e] = e < q_rows * D ? Q[size_t(q0) * D + e] : 0.0f;
  if (tid < kBr) {
    sM[tid] = -INFINITY;
    sL[tid] = 0.0f;
  }

  // Thread tid owns output row my_row of the tile, columns my_col0 + 16 * u.
  const int my_row = tid / 16;
  const int my_col0 = tid % 16;
  float acc[kColsPerThread];
  for (int u = 0; u < kColsPerThread; ++u) acc[u] = 0.0f;

  for (int k0 = 0; k0 < n; k0 += kBc) {
    const int bc = min(kBc, n - k0);

    // 1. Stage K_j and V_j.
    for (int e = tid; e < bc * D; e += kThreads) {
      sK[(e / D) * KP + e % D] = K[size_t(k0) * D + e];
      sV[e] = V[size_t(k0) * D + e];
    }
    __syncthreads();

    // 2. Score tile: entry (i, c) by thread e % 256; a warp covers one row i, keys 0..31.
    for (int e = tid; e < kBr * kBc; e += kThreads) {
      const int i = e / kBc, c = e % kBc;
      float s = -INFINITY;
      if (c < bc) {
        s = 0.0f;
        for (int k = 0; k < D; ++k) s += sQ[i * D + k] * sK[c * KP + k];
      }
      sS[i * kSStride + c] = s;
    }
    __syncthreads();

    // 3. Online-softmax statistics, one thread per query row.
    if (tid < kBr) {
      float* srow = sS + tid * kSStride;
      float tile_max = -INFINITY;
      for (int c = 0; c < bc; ++c) tile_max = fmaxf(tile_max, srow[c]);
      const float m_old = sM[tid];
      const float m_new = fmaxf(m_old, tile_max);
      const float scale = expf(m_old - m_new);
      float tile_sum = 0.0f;
      for (int c = 0; c < bc; ++c) {
        const float p = expf(srow[c] - m_new);
        srow[c] = p;
        tile_sum += p;
      }
      sL[tid] = sL[tid] * scale + tile_sum;
      sM[tid] = m_new;
      sScale[tid] = scale;
    }
    __syncthreads();

    // 4. Output tile: o = o * scale + P V_j.
    {
      const float scale = sScale[my_row];
      const float* prow = sS + my_row * kSStride;
      for (int u = 0; u < kColsPerThread; ++u) {
        const int col = my_col0 + 16 * u;
        float pv = 0.0f;
        for (int c = 0; c < bc; ++c) pv += prow[c] * sV[c * D + col];
        acc[u] = acc[u] * scale + pv;
      }
    }
    __syncthreads();  // the next tile overwrites sK, sV, sS and sScale
  }

  if (my_row < q_rows) {
    const float l = sL[my_row];
    for (int u = 0; u < kColsPerThread; ++u) O[size_t(q0 + my_row) * D + my_col0 + 16 * u] = acc[u] / l;
  }
}

template <int D>
void launch(const float* Q, const float* K, const float* V, float* O, int n) {
  flash_tile_kernel<D><<<(n + kBr - 1) / kBr, kThreads>>>(Q, K, V, O, n);
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
