// Correct variant of lab 4 (mutant ext8-lab4-c-q-global-quad-rows), a student's rewrite:
// the bf16 FlashAttention forward on tensor cores (nvcuda::wmma, 16 x 16 x 16 bf16
// fragments, float accumulators) in this style:
//   - a full query tile loads its Q fragments straight from global memory with
//     load_matrix_sync (ldm = d); only a partial last tile goes through shared memory, so
//     that rows past n read zeros instead of the next head or past the buffer;
//   - the softmax of a row is done by the 4 lanes of a quad, the same 4 lanes that hold
//     that row in the accumulator (rows g and g + 8 for lane 4 g + t), 16 scores each,
//     keys t, t + 4, ...; so m, l and the re-basing factors stay in registers and O is
//     re-based and normalised with no shared-memory round trip for the row statistics;
//   - O leaves through the scores' scratch, 16 columns at a time, one 16-byte store a lane.
// Block: 4 warps, 64 query rows of one head; key tiles of 64 rows, padded by 8 bf16.
#include <cuda_bf16.h>
#include <cuda_runtime.h>
#include <mma.h>

#include "flash_attention_wmma.hpp"

namespace lesson13 {
namespace {

using namespace nvcuda;
using bf16 = __nv_bfloat16;

constexpr int kRows = 64;            // query rows a block
constexpr int kKeys = 64;            // keys a tile
constexpr int kWarpCount = kRows / 16;
constexpr int kBlock = 32 * kWarpCount;
constexpr int kSkew = 8;             // bf16 added to each staged row
constexpr int kScoreLd = kKeys + 8;  // floats a score row (288 bytes)
constexpr int kProbLd = kKeys + 16;  // bf16 a probability row (160 bytes)
constexpr float kLog2e = 1.4426950408889634f;

using FragQ = wmma::fragment<wmma::matrix_a, 16, 16, 16, bf16, wmma::row_major>;
using FragKt = wmma::fragment<wmma::matrix_b, 16, 16, 16, bf16, wmma::col_major>;
using FragV = wmma::fragment<wmma::matrix_b, 16, 16, 16, bf16, wmma::row_major>;
using FragAcc = wmma::fragment<wmma::accumulator, 16, 16, 16, float>;

template <int D>
constexpr size_t smem_bytes() {
  return 2 * kKeys * (D + kSkew) * sizeof(bf16) +
         kWarpCount * 16 * (kScoreLd * sizeof(float) + kProbLd * sizeof(bf16));
}

__device__ __forceinline__ unsigned pack2(float lo, float hi) {
  return unsigned(__bfloat16_as_ushort(__float2bfloat16(lo))) |
         (unsigned(__bfloat16_as_ushort(__float2bfloat16(hi))) << 16);
}

template <int D>
__global__ void __launch_bounds__(kBlock)
    attention_tc(const bf16* __restrict__ Q, const bf16* __restrict__ K,
                 const bf16* __restrict__ V, bf16* __restrict__ O, int n) {
  constexpr int ldk = D + kSkew, nf = D / 16;
  extern __shared__ __align__(128) unsigned char smem[];
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  bf16* Ks = reinterpret_cast<bf16*>(smem);
  bf16* Vs = Ks + kKeys * ldk;
  float* score_base = reinterpret_cast<float*>(Vs + kKeys * ldk);
  float* scores = score_base + warp * 16 * kScoreLd;
  bf16* probs = reinterpret_cast<bf16*>(score_base + kWarpCount * 16 * kScoreLd) + warp * 16 * kProbLd;

  const size_t off = static_cast<size_t>(blockIdx.y) * n * D;
  const bf16* Qh = Q + off;
  const bf16* Kh = K + off;
  const bf16* Vh = V + off;
  bf16* Oh = O + off;
  const int q0 = blockIdx.x * kRows;
  const int wrow = q0 + warp * 16;  // the warp's first query row

  // Rows [first, first + 64) of src into dst, zeros past n, 8 bf16 (16 bytes) a thread.
  auto copy_tile = [&](const bf16* src, bf16* dst, int first) {
    constexpr int per_row = D / 8;
    for (int v = threadIdx.x; v < kKeys * per_row; v += kBlock) {
      const int r = v / per_row, c = (v % per_row) * 8;
      uint4 w = make_uint4(0u, 0u, 0u, 0u);
      if (first + r < n) w = *reinterpret_cast<const uint4*>(src + static_cast<size_t>(first + r) * D + c);
      *reinterpret_cast<uint4*>(dst + r * ldk + c) = w;
    }
  };

  FragQ qf[nf];
  if (q0 + kRows <= n) {
    for (int f = 0; f < nf; ++f)
      wmma::load_matrix_sync(qf[f], Qh + static_cast<size_t>(wrow) * D + f * 16, D);
  } else {  // the whole block takes this branch: the barriers are uniform
    copy_tile(Qh, Ks, q0);
    __syncthreads();
    for (int f = 0; f < nf; ++f) wmma::load_matrix_sync(qf[f], Ks + warp * 16 * ldk + f * 16, ldk);
    __syncthreads();
  }

  FragAcc acc[nf];
  for (int f = 0; f < nf; ++f) wmma::fill_fragment(acc[f], 0.0f);

  // Lane 4 g + t: rows g and g + 8 of the warp's 16, keys t, t + 4, ... of each tile.
  const int g = lane / 4, t = lane % 4;
  float run_max[2] = {-INFINITY, -INFINITY}, run_sum[2] = {0.0f, 0.0f};

  for (int j0 = 0; j0 < n; j0 += kKeys) {
    copy_tile(Kh, Ks, j0);
    copy_tile(Vh, Vs, j0);
    __syncthreads();

    for (int c = 0; c < kKeys / 16; ++c) {
      FragAcc s;
      wmma::fill_fragment(s, 0.0f);
      for (int f = 0; f < nf; ++f) {
        FragKt kt;  // K_j rows 16 c.., columns 16 f..: read column-major it is K_j^T's block
        wmma::load_matrix_sync(kt, Ks + c * 16 * ldk + f * 16, ldk);
        wmma::mma_sync(s, qf[f], kt, s);
      }
      wmma::store_matrix_sync(scores + c * 16, s, kScoreLd, wmma::mem_row_major);
    }
    __syncwarp();

    const int live = min(kKeys, n - j0);
    float rebase[2];
    for (int h = 0; h < 2; ++h) {
      const int r = g + 8 * h;
      float x[16];
      float top = -INFINITY;
      for (int c = 0; c < 16; ++c) {
        const int key = t + 4 * c;
        x[c] = key < live ? scores[r * kScoreLd + key] * kLog2e : -INFINITY;
        top = fmaxf(top, x[c]);
      }
      top = fmaxf(top, __shfl_xor_sync(0xffffffffu, top, 1));
      top = fmaxf(top, __shfl_xor_sync(0xffffffffu, top, 2));
      const float m_new = fmaxf(run_max[h], top);  // finite: key 0 is always live
      rebase[h] = exp2f(run_max[h] - m_new);
      float part = 0.0f;
      for (int c = 0; c < 16; ++c) {
        const float p = exp2f(x[c] - m_new);
        part += p;
        probs[r * kProbLd + t + 4 * c] = __float2bfloat16(p);
      }
      part += __shfl_xor_sync(0xffffffffu, part, 1);
      part += __shfl_xor_sync(0xffffffffu, part, 2);
      run_sum[h] = run_sum[h] * rebase[h] + part;
      run_max[h] = m_new;
    }
    __syncwarp();

    // Element i of an accumulator sits on row g + 8 (i / 2 % 2): this lane's own rows.
    for (int f = 0; f < nf; ++f)
      for (int i = 0; i < acc[f].num_elements; ++i) acc[f].x[i] *= rebase[(i >> 1) & 1];
    for (int k = 0; k < kKeys / 16; ++k) {
      FragQ pf;
      wmma::load_matrix_sync(pf, probs + k * 16, kProbLd);
      for (int f = 0; f < nf; ++f) {
        FragV vf;
        wmma::load_matrix_sync(vf, Vs + k * 16 * ldk + f * 16, ldk);
        wmma::mma_sync(acc[f], pf, vf, acc[f]);
      }
    }
    __syncthreads();
  }

  const float inv[2] = {1.0f / run_sum[0], 1.0f / run_sum[1]};
  const int orow = lane / 2, ocol = (lane % 2) * 8;
  for (int f = 0; f < nf; ++f) {
    for (int i = 0; i < acc[f].num_elements; ++i) acc[f].x[i] *= inv[(i >> 1) & 1];
    wmma::store_matrix_sync(scores, acc[f], kScoreLd, wmma::mem_row_major);
    __syncwarp();
    if (wrow + orow < n) {
      const float* src = scores + orow * kScoreLd + ocol;
      *reinterpret_cast<uint4*>(Oh + static_cast<size_t>(wrow + orow) * D + f * 16 + ocol) =
          make_uint4(pack2(src[0], src[1]), pack2(src[2], src[3]), pack2(src[4], src[5]),
                     pack2(src[6], src[7]));
    }
    __syncwarp();
  }
}

template <int D>
bool run(const bf16* Q, const bf16* K, const bf16* V, bf16* O, int heads, int n) {
  constexpr size_t bytes = smem_bytes<D>();
  if (cudaFuncSetAttribute(attention_tc<D>, cudaFuncAttributeMaxDynamicSharedMemorySize,
                           static_cast<int>(bytes)) != cudaSuccess)
    return false;
  attention_tc<D><<<dim3((n + kRows - 1) / kRows, heads), kBlock, bytes>>>(Q, K, V, O, n);
  return true;
}

}  // namespace

bool flash_attention_wmma_forward(const __nv_bfloat16* Q, const __nv_bfloat16* K,
                                  const __nv_bfloat16* V, __nv_bfloat16* O, int heads, int n,
                                  int d) {
  if (n < 1 || heads < 1) return false;
  if (d == 64) return run<64>(Q, K, V, O, heads, n);
  if (d == 128) return run<128>(Q, K, V, O, heads, n);
  return false;
}

}  // namespace lesson13
