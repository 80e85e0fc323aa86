// Lab 3 with cooperative groups. The block is split into 32-thread tiles
// (cg::tiled_partition<32>), one per query row; within a key tile, lane c of a
// tile scores key c, and the row's tile max and probability sum are cg::reduce
// calls over the tile (cg::greater / cg::plus) instead of hand-written shuffles.
// The block's barriers are block.sync(). Q rows, the (padded) K tile and the V tile
// are staged in shared memory.
#include <cooperative_groups.h>
#include <cooperative_groups/reduce.h>
#include <cuda_runtime.h>

#include "flash_attention_lab.hpp"

namespace cg = cooperative_groups;

namespace lesson13 {
namespace {

constexpr int kBr = kFlashBr, kBc = kFlashBc;

template <int D>
__global__ void __launch_bounds__(kBr * 32) fa_cg(const float* Q, const float* K, const float* V, float* O,
                                                  int n) {
  constexpr int KP = D + 1;  // padded K row: lane c, column k -> bank (c * KP + k) % 32
  constexpr int PER = D / 32;
  __shared__ float q_s[kBr * D];
  __shared__ float k_s[kBc * KP];
  __shared__ float v_s[kBc * D];

  cg::thread_block block = cg::this_thread_block();
  cg::thread_block_tile<32> tile = cg::tiled_partition<32>(block);
  const int w = tile.meta_group_rank();
  const int lane = tile.thread_rank();
  const int first = blockIdx.x * kBr;
  const int row = first + w;
  const bool active = row < n;
  const int tid = static_cast<int>(block.thread_rank()), nthreads = static_cast<int>(block.size());

  const int rows_here = min(kBr, n - first);
  for (int i = tid; i < rows_here * D; i += nthreads) q_s[i] = Q[first * D + i];
  block.sync();

  float o[PER];
  for (int u = 0; u < PER; ++u) o[u] = 0.0f;
  float m = -INFINITY, l = 0.0f;

  for (int j = 0; j < n; j += kBc) {
    const int bc = min(kBc, n - j);
    for (int i = tid; i < bc * D; i += nthreads) {
      k_s[(i / D) * KP + i % D] = K[j * D + i];
      v_s[i] = V[j * D + i];
    }
    block.sync();
    if (active) {
      float s = -INFINITY;
      if (lane < bc) {
        float acc = 0.0f;
        for (int k = 0; k < D; ++k) acc += q_s[w * D + k] * k_s[lane * KP + k];
        s = acc;
      }
      const float tile_max = cg::reduce(tile, s, cg::greater<float>());
      const float m_new = fmaxf(m, tile_max);
      const float rescale = expf(m - m_new);
      const float p = lane < bc ? expf(s - m_new) : 0.0f;
      const float p_sum = cg::reduce(tile, p, cg::plus<float>());
      l = l * rescale + p_sum;
      for (int u = 0; u < PER; ++u) {
        float acc = 0.0f;
        for (int c = 0; c < bc; ++c) acc += tile.shfl(p, c) * v_s[c * D + lane + 32 * u];
        o[u] = o[u] * rescale + acc;
      }
      m = m_new;
    }
    block.sync();
  }
  if (active)
    for (int u = 0; u < PER; ++u) O[row * D + lane + 32 * u] = o[u] / l;
}

}  // namespace

bool flash_attention_forward(const float* Q, const float* K, const float* V, float* O, int n, int d) {
  const dim3 grid((n + kBr - 1) / kBr), block(kBr * 32);
  if (d == 32)
    fa_cg<32><<<grid, block>>>(Q, K, V, O, n);
  else if (d == 64)
    fa_cg<64><<<grid, block>>>(Q, K, V, O, n);
  else if (d == 128)
    fa_cg<128><<<grid, block>>>(Q, K, V, O, n);
  else
    return false;
  return true;
}

}  // namespace lesson13
