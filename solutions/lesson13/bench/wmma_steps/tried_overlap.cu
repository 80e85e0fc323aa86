// Tried on top of tried-permuted-double (timed by wmma_steps.cu), with the permuted layouts of
// tried_permuted.hpp: the tensor cores kept busy during the softmax. Each key tile's loop
// issues S_{j+1} = Q K_{j+1}^T and O += P_j V_j, then runs the softmax of S_{j+1}, which
// depends on neither, so ptxas can interleave it with the mma's in flight (FlashAttention-3's
// intra-warp overlap, by program order). Also a leaner softmax: the row max in raw scores,
// one FFMA and one exp2 an element, keys past n masked on the last tile only, P packed two
// elements to a conversion. W warps of 16 query rows; W = 4 runs two blocks an SM.
#include "tried_permuted.hpp"
#include "wmma_steps.hpp"

namespace wmma_steps {
namespace overlap {
using namespace nvcuda;
using permuted::acc_row;
using permuted::Bc;
using permuted::kLog2e;
using permuted::LDV;
using permuted::PAD;
using permuted2::a_t;
using permuted2::acc_t;
using permuted2::add_pv;
using permuted2::mask;
using permuted2::NB;
using permuted2::softmax;

template <int D, int W, bool OVERLAP>
__global__ void __launch_bounds__(32 * W, W == 4 ? 2 : 1)
    kernel(const __nv_bfloat16* __restrict__ Q, const __nv_bfloat16* __restrict__ K,
           const __nv_bfloat16* __restrict__ V, __nv_bfloat16* __restrict__ O, int n) {
  constexpr int LDK = D + PAD, F = D / 16, Br = 16 * W;
  constexpr int BUF = Bc * LDK + D * LDV;  // one K_j and one V_j^T
  extern __shared__ __align__(128) unsigned char smem[];
  __nv_bfloat16* base = reinterpret_cast<__nv_bfloat16*>(smem);
  auto K_s = [&](int b) { return base + b * BUF; };
  auto Vt_s = [&](int b) { return base + b * BUF + Bc * LDK; };
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32, g = lane / 4, t = lane % 4;
  const size_t head = static_cast<size_t>(blockIdx.y) * n * D;
  Q += head, K += head, V += head, O += head;
  const int r0 = blockIdx.x * Br;

  a_t q[F];
  for (int part = 0; part < Br / Bc; ++part) {
    permuted::row_tile<D> q_tile;
    if (threadIdx.x < 128) {
      q_tile.fetch(Q, r0 + part * Bc, n);
      q_tile.put_plain(base + part * Bc * LDK);
    }
  }
  __syncthreads();
  for (int f = 0; f < F; ++f) wmma::load_matrix_sync(q[f], base + warp * 16 * LDK + f * 16, LDK);
  __syncthreads();
  permuted2::k_tile<D, W> k_regs;
  permuted2::v_tile_w<D, W> v_regs;
  k_regs.fetch(K, 0, n);
  k_regs.put(K_s(0));
  v_regs.fetch(V, 0, n);
  if (Bc < n) k_regs.fetch(K, Bc, n);
  __syncthreads();

  acc_t o[F];
  for (int f = 0; f < F; ++f) wmma::fill_fragment(o[f], 0.0f);
  float m[2] = {-INFINITY, -INFINITY}, l[2] = {0.0f, 0.0f}, scale[2];
  a_t p[NB];
  if constexpr (!OVERLAP) {
    // tried-permuted-double's order with the lean softmax: S_j, its softmax, the stores,
    // the barrier, then P_j V_j.
    for (int j0 = 0, b = 0; j0 < n; j0 += Bc, b ^= 1) {
      acc_t s[NB];
      permuted2::scores<D, true>(s, q, K_s(b), g, t);
      if (j0 + Bc > n) mask(s, n - j0, lane);
      softmax(s, p, m, l, scale, lane);
#pragma unroll
      for (int f = 0; f < F; ++f)
#pragma unroll
        for (int i = 0; i < 8; ++i) o[f].x[i] *= scale[i / 2 % 2];
      v_regs.put(Vt_s(b));
      if (j0 + Bc < n) k_regs.put(K_s(b ^ 1));
      __syncthreads();
      if (j0 + Bc < n) v_regs.fetch(V, j0 + Bc, n);
      if (j0 + 2 * Bc < n) k_regs.fetch(K, j0 + 2 * Bc, n);
      add_pv<D>(o, p, Vt_s(b), g, t);
    }
  } else {
    {
      acc_t s[NB];
      permuted2::scores<D, true>(s, q, K_s(0), g, t);
      if (Bc > n) mask(s, n, lane);
      softmax(s, p, m, l, scale, lane);  // O is zero: no scale to apply
    }
    v_regs.put(Vt_s(0));
    if (Bc < n) k_regs.put(K_s(1));
    __syncthreads();
    if (Bc < n) v_regs.fetch(V, Bc, n);
    if (2 * Bc < n) k_regs.fetch(K, 2 * Bc, n);

    // Tile j reads K_{j+1} from buffer b ^ 1 and V_j from b, and writes V_{j+1} into b ^ 1
    // (last read by P V_{j-1}) and K_{j+2} into b (last read by S_j): both readers passed
    // the previous barrier, and this tile's readers use the other two halves.
    for (int j0 = 0, b = 0; j0 < n; j0 += Bc, b ^= 1) {
      const bool more = j0 + Bc < n;
      acc_t s[NB];
      if (more) {
        permuted2::scores<D, true>(s, q, K_s(b ^ 1), g, t);
        if (j0 + 2 * Bc > n) mask(s, n - j0 - Bc, lane);
      }
      add_pv<D>(o, p, Vt_s(b), g, t);
      if (more) {
        softmax(s, p, m, l, scale, lane);
#pragma unroll
        for (int f = 0; f < F; ++f)
#pragma unroll
          for (int i = 0; i < 8; ++i) o[f].x[i] *= scale[i / 2 % 2];
        v_regs.put(Vt_s(b ^ 1));
        if (j0 + 2 * Bc < n) k_regs.put(K_s(b));
      }
      __syncthreads();
      if (j0 + 2 * Bc < n) v_regs.fetch(V, j0 + 2 * Bc, n);
      if (j0 + 3 * Bc < n) k_regs.fetch(K, j0 + 3 * Bc, n);
    }
  }

  if constexpr (!OVERLAP) __syncthreads();
  // Every warp passed the last barrier: O passes through the buffers.
  permuted::write_out<D>(o, l, base + warp * 16 * LDK, O, r0 + warp * 16, n, lane);
}

template <int D, int W, bool OVERLAP>
bool launch(const __nv_bfloat16* Q, const __nv_bfloat16* K, const __nv_bfloat16* V,
            __nv_bfloat16* O, int heads, int n) {
  constexpr int Br = 16 * W;
  constexpr size_t elems = 2 * (Bc * (D + PAD) + D * LDV);
  static_assert(elems >= size_t(Br) * (D + PAD), "Q and O pass through the buffers");
  constexpr size_t bytes = elems * sizeof(__nv_bfloat16);
  if (cudaFuncSetAttribute(kernel<D, W, OVERLAP>, cudaFuncAttributeMaxDynamicSharedMemorySize,
                           static_cast<int>(bytes)) != cudaSuccess)
    return false;
  kernel<D, W, OVERLAP><<<dim3((n + Br - 1) / Br, heads), 32 * W, bytes>>>(Q, K, V, O, n);
  return true;
}

template <int W, bool OVERLAP = true>
bool forward(const __nv_bfloat16* Q, const __nv_bfloat16* K, const __nv_bfloat16* V,
             __nv_bfloat16* O, int heads, int n, int d) {
  if (n < 1 || heads < 1) return false;
  if (d == 64) return launch<64, W, OVERLAP>(Q, K, V, O, heads, n);
  if (d == 128) return launch<128, W, OVERLAP>(Q, K, V, O, heads, n);
  return false;
}
}  // namespace overlap

bool wmma_tried_overlap_8w(const __nv_bfloat16* Q, const __nv_bfloat16* K, const __nv_bfloat16* V,
                           __nv_bfloat16* O, int heads, int n, int d) {
  return overlap::forward<8>(Q, K, V, O, heads, n, d);
}
bool wmma_tried_overlap_4w(const __nv_bfloat16* Q, const __nv_bfloat16* K, const __nv_bfloat16* V,
                           __nv_bfloat16* O, int heads, int n, int d) {
  return overlap::forward<4>(Q, K, V, O, heads, n, d);
}
bool wmma_tried_lean_8w(const __nv_bfloat16* Q, const __nv_bfloat16* K, const __nv_bfloat16* V,
                        __nv_bfloat16* O, int heads, int n, int d) {
  return overlap::forward<8, false>(Q, K, V, O, heads, n, d);
}

}  // namespace wmma_steps
