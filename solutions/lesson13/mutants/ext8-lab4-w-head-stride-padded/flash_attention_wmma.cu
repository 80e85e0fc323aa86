// Wrong submission for lab 4 (mutant ext8-lab4-w-head-stride-padded), a student's rewrite
// with Br = 128 query rows a block (8 warps), the softmax in natural base (__expf) and O
// divided by l on its way out of shared memory. The mistake: the student takes a head's
// stride from the grid, as if every head were padded to whole query tiles
// (gridDim.x * Br rows), instead of n rows. That is the same number whenever n is a
// multiple of 128 (or there is one head), and a different one otherwise: with several
// heads and n = 80 or 64, heads 1, 2, ... read and write the wrong rows, past the end of
// the buffers for the last ones.
#include <cuda_bf16.h>
#include <cuda_runtime.h>
#include <mma.h>

#include "flash_attention_wmma.hpp"

namespace lesson13 {
namespace {

using namespace nvcuda;

constexpr int BR = 128, BC = 64, WARPS = BR / 16, THREADS = WARPS * 32;
constexpr int SKEW = 16;       // bf16 a staged row gains (32 bytes)
constexpr int P_LD = BC + 16;  // bf16 a row of P

template <int D>
struct Layout {
  static constexpr int LD = D + SKEW;                    // Q, K, V rows in shared memory
  static constexpr int W = (D + 8 > BC + 8) ? D + 8 : BC + 8;  // floats a scratch row (S, then O)
  static constexpr size_t q_bytes = size_t(BR) * LD * 2;
  static constexpr size_t kv_bytes = size_t(BC) * LD * 2;
  static constexpr size_t scratch_bytes = size_t(WARPS) * 16 * W * 4;
  static constexpr size_t p_bytes = size_t(WARPS) * 16 * P_LD * 2;
  static constexpr size_t stat_bytes = size_t(WARPS) * 32 * 4;
  static constexpr size_t total = q_bytes + 2 * kv_bytes + scratch_bytes + p_bytes + stat_bytes;
};

template <int D>
__global__ void __launch_bounds__(THREADS)
    fa_forward_bf16(const __nv_bfloat16* __restrict__ Q, const __nv_bfloat16* __restrict__ K,
                    const __nv_bfloat16* __restrict__ V, __nv_bfloat16* __restrict__ O, int n) {
  using L = Layout<D>;
  constexpr int LD = L::LD, W = L::W, NF = D / 16;
  extern __shared__ __align__(128) unsigned char shm[];
  __nv_bfloat16* q_sh = reinterpret_cast<__nv_bfloat16*>(shm);
  __nv_bfloat16* k_sh = reinterpret_cast<__nv_bfloat16*>(shm + L::q_bytes);
  __nv_bfloat16* v_sh = reinterpret_cast<__nv_bfloat16*>(shm + L::q_bytes + L::kv_bytes);
  unsigned char* rest = shm + L::q_bytes + 2 * L::kv_bytes;
  const int wid = threadIdx.x >> 5, ln = threadIdx.x & 31;
  float* scr = reinterpret_cast<float*>(rest) + wid * 16 * W;
  __nv_bfloat16* p_sh = reinterpret_cast<__nv_bfloat16*>(rest + L::scratch_bytes) + wid * 16 * P_LD;
  float* alpha_sh = reinterpret_cast<float*>(rest + L::scratch_bytes + L::p_bytes) + wid * 32;
  float* l_sh = alpha_sh + 16;

  const size_t rows_per_head = size_t(gridDim.x) * BR;  // the head, padded to whole tiles
  const size_t head_off = size_t(blockIdx.y) * rows_per_head * D;
  const __nv_bfloat16* Qh = Q + head_off;
  const __nv_bfloat16* Kh = K + head_off;
  const __nv_bfloat16* Vh = V + head_off;
  __nv_bfloat16* Oh = O + head_off;
  const int row_base = blockIdx.x * BR;

  // rows rows of src starting at `from` into dst (ld LD), zero rows past n, 16 bytes a step
  auto load_rows = [&](const __nv_bfloat16* src, __nv_bfloat16* dst, int from, int rows) {
    for (int e = threadIdx.x; e < rows * (D / 8); e += THREADS) {
      const int r = e / (D / 8), c8 = (e % (D / 8)) * 8;
      uint4 val = make_uint4(0u, 0u, 0u, 0u);
      if (from + r < n) val = *reinterpret_cast<const uint4*>(src + size_t(from + r) * D + c8);
      *reinterpret_cast<uint4*>(dst + r * LD + c8) = val;
    }
  };

  load_rows(Qh, q_sh, row_base, BR);
  __syncthreads();
  wmma::fragment<wmma::matrix_a, 16, 16, 16, __nv_bfloat16, wmma::row_major> qa[NF];
  for (int f = 0; f < NF; ++f) wmma::load_matrix_sync(qa[f], q_sh + wid * 16 * LD + f * 16, LD);

  wmma::fragment<wmma::accumulator, 16, 16, 16, float> out[NF];
  for (int f = 0; f < NF; ++f) wmma::fill_fragment(out[f], 0.0f);

  const int my_row = ln >> 1, parity = ln & 1;  // keys parity, parity + 2, ... of my_row
  float m_run = -INFINITY, l_run = 0.0f;

  for (int kb = 0; kb < n; kb += BC) {
    load_rows(Kh, k_sh, kb, BC);
    load_rows(Vh, v_sh, kb, BC);
    __syncthreads();

    // S (16 x 64) = Q_w K_j^T, one 16-key column block at a time.
    for (int nb = 0; nb < BC / 16; ++nb) {
      wmma::fragment<wmma::accumulator, 16, 16, 16, float> sc;
      wmma::fill_fragment(sc, 0.0f);
      for (int f = 0; f < NF; ++f) {
        wmma::fragment<wmma::matrix_b, 16, 16, 16, __nv_bfloat16, wmma::col_major> kb_frag;
        wmma::load_matrix_sync(kb_frag, k_sh + nb * 16 * LD + f * 16, LD);
        wmma::mma_sync(sc, qa[f], kb_frag, sc);
      }
      wmma::store_matrix_sync(scr + nb * 16, sc, W, wmma::mem_row_major);
    }
    __syncwarp();

    const int n_keys = min(BC, n - kb);
    float s_loc[BC / 2];
    float local_max = -INFINITY;
    for (int u = 0; u < BC / 2; ++u) {
      const int key = 2 * u + parity;
      s_loc[u] = key < n_keys ? scr[my_row * W + key] : -INFINITY;
      local_max = fmaxf(local_max, s_loc[u]);
    }
    const float tile_max = fmaxf(local_max, __shfl_xor_sync(0xffffffffu, local_max, 1));
    const float m_next = fmaxf(m_run, tile_max);
    const float alpha = __expf(m_run - m_next);  // 0 on the first tile
    float local_sum = 0.0f;
    for (int u = 0; u < BC / 2; ++u) {
      const float w = __expf(s_loc[u] - m_next);
      local_sum += w;
      p_sh[my_row * P_LD + 2 * u + parity] = __float2bfloat16(w);
    }
    local_sum += __shfl_xor_sync(0xffffffffu, local_sum, 1);
    l_run = alpha * l_run + local_sum;
    m_run = m_next;
    if (parity == 0) alpha_sh[my_row] = alpha;
    __syncwarp();

    // Re-base O: element e of an accumulator belongs to row ln / 4 + 8 (e / 2 % 2).
    for (int f = 0; f < NF; ++f)
      for (int e = 0; e < out[f].num_elements; ++e) out[f].x[e] *= alpha_sh[(ln >> 2) + 8 * ((e >> 1) & 1)];

    for (int kk = 0; kk < BC / 16; ++kk) {
      wmma::fragment<wmma::matrix_a, 16, 16, 16, __nv_bfloat16, wmma::row_major> pa;
      wmma::load_matrix_sync(pa, p_sh + kk * 16, P_LD);
      for (int f = 0; f < NF; ++f) {
        wmma::fragment<wmma::matrix_b, 16, 16, 16, __nv_bfloat16, wmma::row_major> vb;
        wmma::load_matrix_sync(vb, v_sh + kk * 16 * LD + f * 16, LD);
        wmma::mma_sync(out[f], pa, vb, out[f]);
      }
    }
    __syncthreads();  // k_sh, v_sh and this warp's scratch are refilled next tile
  }

  // O through shared memory: raw accumulators in, divided by l on the way out.
  if (parity == 0) l_sh[my_row] = l_run;
  for (int f = 0; f < NF; ++f) wmma::store_matrix_sync(scr + f * 16, out[f], W, wmma::mem_row_major);
  __syncwarp();
  for (int r = 0; r < 16; ++r) {
    const int grow = row_base + wid * 16 + r;
    if (grow >= n) break;
    const float inv_l = 1.0f / l_sh[r];
    for (int c = 2 * ln; c < D; c += 64) {
      const unsigned lo = __bfloat16_as_ushort(__float2bfloat16(scr[r * W + c] * inv_l));
      const unsigned hi = __bfloat16_as_ushort(__float2bfloat16(scr[r * W + c + 1] * inv_l));
      *reinterpret_cast<unsigned*>(Oh + size_t(grow) * D + c) = lo | (hi << 16);
    }
  }
}

template <int D>
bool go(const __nv_bfloat16* Q, const __nv_bfloat16* K, const __nv_bfloat16* V,
        __nv_bfloat16* O, int heads, int n) {
  const int bytes = static_cast<int>(Layout<D>::total);
  if (cudaFuncSetAttribute(fa_forward_bf16<D>, cudaFuncAttributeMaxDynamicSharedMemorySize, bytes) !=
      cudaSuccess)
    return false;
  const dim3 grid((n + BR - 1) / BR, heads);
  fa_forward_bf16<D><<<grid, THREADS, bytes>>>(Q, K, V, O, n);
  return true;
}

}  // namespace

bool flash_attention_wmma_forward(const __nv_bfloat16* Q, const __nv_bfloat16* K,
                                  const __nv_bfloat16* V, __nv_bfloat16* O, int heads, int n,
                                  int d) {
  if (heads < 1 || n < 1) return false;
  switch (d) {
    case 64: return go<64>(Q, K, V, O, heads, n);
    case 128: return go<128>(Q, K, V, O, heads, n);
    default: return false;
  }
}

}  // namespace lesson13
