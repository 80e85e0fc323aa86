// Lab 3, one thread per query row (the "minimal flash attention" tutorials' way).
// A block of 64 threads owns 64 query rows; for each tile of 32 keys the block
// copies K_j and V_j into shared memory (dynamic, 2 * 32 * D floats), and every
// thread scores its own row against the 32 keys (all lanes read the same shared
// word: a broadcast), then does the online-softmax update of its m, l and o[D].
// O is written once, at the end. Nothing n x n exists: a thread keeps 32 scores.
#include <cuda_runtime.h>

#include "flash_attention_lab.hpp"

namespace lesson13 {
namespace {

constexpr int kRowsPerBlock = 64;
constexpr int kKeys = kFlashBc;  // keys per shared tile

template <int D>
__global__ void fa_row_per_thread(const float* Q, const float* K, const float* V, float* O, int n) {
  extern __shared__ float kv[];
  float* Ks = kv;               // [kKeys][D]
  float* Vs = kv + kKeys * D;   // [kKeys][D]
  const int row = blockIdx.x * blockDim.x + threadIdx.x;
  const bool live = row < n;

  float q[D], o[D];
  for (int k = 0; k < D; ++k) {
    q[k] = live ? Q[row * D + k] : 0.0f;
    o[k] = 0.0f;
  }
  float m = -INFINITY, l = 0.0f;

  for (int j0 = 0; j0 < n; j0 += kKeys) {
    const int cnt = min(kKeys, n - j0);
    for (int e = threadIdx.x; e < cnt * D; e += blockDim.x) {
      Ks[e] = K[j0 * D + e];
      Vs[e] = V[j0 * D + e];
    }
    __syncthreads();
    if (live) {
      float s[kKeys];
      float tile_max = -INFINITY;
      for (int c = 0; c < cnt; ++c) {
        float dot = 0.0f;
        for (int k = 0; k < D; ++k) dot += q[k] * Ks[c * D + k];
        s[c] = dot;
        tile_max = fmaxf(tile_max, dot);
      }
      const float m_new = fmaxf(m, tile_max);
      const float alpha = expf(m - m_new);  // 0 on the first tile (m = -inf)
      l *= alpha;
      for (int k = 0; k < D; ++k) o[k] *= alpha;
      for (int c = 0; c < cnt; ++c) {
        const float p = expf(s[c] - m_new);
        l += p;
        for (int k = 0; k < D; ++k) o[k] += p * Vs[c * D + k];
      }
      m = m_new;
    }
    __syncthreads();  // the next tile overwrites Ks and Vs
  }
  if (live)
    for (int k = 0; k < D; ++k) O[row * D + k] = o[k] / l;
}

template <int D>
void run(const float* Q, const float* K, const float* V, float* O, int n) {
  const int blocks = (n + kRowsPerBlock - 1) / kRowsPerBlock;
  const size_t smem = 2 * kKeys * D * sizeof(float);
  fa_row_per_thread<D><<<blocks, kRowsPerBlock, smem>>>(Q, K, V, O, n);
}

}  // namespace

bool flash_attention_forward(const float* Q, const float* K, const float* V, float* O, int n, int d) {
  if (d == 32) {
    run<32>(Q, K, V, O, n);
  } else if (d == 64) {
    run<64>(Q, K, V, O, n);
  } else if (d == 128) {
    run<128>(Q, K, V, O, n);
  } else {
    return false;
  }
  return true;
}

}  // namespace lesson13
