// Tried on top of lab 4's step 2 (timed by wmma_steps.cu), with the permuted layouts of
// tried_permuted.hpp:
// permuted2 with 8 warps, K_j and V_j^T double-buffered in shared memory and one barrier a
// key tile: V_{j+1} and K_{j+2} load into registers during P V_j and S_{j+1}, and both are
// stored before the barrier. V_j's units are spread over all 256 threads (4 dimensions each).
#include "tried_permuted.hpp"
#include "wmma_steps.hpp"

namespace wmma_steps {
namespace permuted3 {
using namespace nvcuda;
using permuted::acc_col;
using permuted::acc_row;
using permuted::Bc;
using permuted::kLog2e;
using permuted::LDV;
using permuted::PAD;
constexpr int W = 8, kThreads = 32 * W, Br = 16 * W;

template <int D>
constexpr size_t buffer_elems() {
  return Bc * (D + PAD) + D * LDV;  // one K_j and one V_j^T
}

template <int D>
__global__ void __launch_bounds__(kThreads, 1)
    kernel(const __nv_bfloat16* __restrict__ Q, const __nv_bfloat16* __restrict__ K,
           const __nv_bfloat16* __restrict__ V, __nv_bfloat16* __restrict__ O, int n) {
  constexpr int LDK = D + PAD, F = D / 16;
  extern __shared__ __align__(128) unsigned char smem[];
  __nv_bfloat16* base = reinterpret_cast<__nv_bfloat16*>(smem);
  constexpr int BUF = Bc * LDK + D * LDV;  // buffer_elems<D>()
  auto K_s = [&](int b) { return base + b * BUF; };
  auto Vt_s = [&](int b) { return base + b * BUF + Bc * LDK; };
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32, g = lane / 4, t = lane % 4;
  const size_t head = static_cast<size_t>(blockIdx.y) * n * D;
  Q += head, K += head, V += head, O += head;
  const int r0 = blockIdx.x * Br;

  wmma::fragment<wmma::matrix_a, 16, 16, 16, __nv_bfloat16, wmma::row_major> q[F];
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

  wmma::fragment<wmma::accumulator, 16, 16, 16, float> o[F];
  for (int f = 0; f < F; ++f) wmma::fill_fragment(o[f], 0.0f);
  float m[2] = {-INFINITY, -INFINITY}, l[2] = {0.0f, 0.0f};

  for (int j0 = 0, b = 0; j0 < n; j0 += Bc, b ^= 1) {
    const __nv_bfloat16* Kb = K_s(b);
    wmma::fragment<wmma::accumulator, 16, 16, 16, float> s[Bc / 16];
    for (int c = 0; c < Bc / 16; ++c) wmma::fill_fragment(s[c], 0.0f);
#pragma unroll
    for (int cc = 0; cc < D / 32; ++cc)
#pragma unroll
      for (int c = 0; c < Bc / 16; ++c) {
        wmma::fragment<wmma::matrix_b, 16, 16, 16, __nv_bfloat16, wmma::col_major> k0, k1;
        const int col = 32 * cc + 8 * (t ^ (cc & 3));
        permuted::load_pair(k0, k1, Kb + (16 * c + g) * LDK + col, Kb + (16 * c + g + 8) * LDK + col);
        wmma::mma_sync(s[c], q[2 * cc], k0, s[c]);
        wmma::mma_sync(s[c], q[2 * cc + 1], k1, s[c]);
      }

    float scale[2];
    permuted::scale_step(s, m, scale, j0, n, lane);
    wmma::fragment<wmma::matrix_a, 16, 16, 16, __nv_bfloat16, wmma::row_major> p[Bc / 16];
    permuted::p_step(s, p, o, m, l, scale, lane);
    // V_j^T into this tile's buffer (last read by P V_{j-2}), K_{j+1} into the other (last
    // read by S_{j-1}): every warp passed the previous barrier after both.
    v_regs.put(Vt_s(b));
    if (j0 + Bc < n) k_regs.put(K_s(b ^ 1));
    __syncthreads();
    if (j0 + Bc < n) v_regs.fetch(V, j0 + Bc, n);
    if (j0 + 2 * Bc < n) k_regs.fetch(K, j0 + 2 * Bc, n);

    const __nv_bfloat16* Vb = Vt_s(b);
#pragma unroll
    for (int kk = 0; kk < Bc / 32; ++kk)
#pragma unroll
      for (int f = 0; f < F; ++f) {
        wmma::fragment<wmma::matrix_b, 16, 16, 16, __nv_bfloat16, wmma::row_major> v0, v1;
        permuted::load_pair(v0, v1, Vb + (16 * f + g) * LDV + 32 * kk + 8 * t,
                            Vb + (16 * f + g + 8) * LDV + 32 * kk + 8 * t);
        wmma::mma_sync(o[f], p[2 * kk], v0, o[f]);
        wmma::mma_sync(o[f], p[2 * kk + 1], v1, o[f]);
      }
  }

  __syncthreads();  // every warp is done with the buffers before O passes through them
  permuted::write_out<D>(o, l, base + warp * 16 * (D + PAD), O, r0 + warp * 16, n, lane);
}

template <int D>
bool launch(const __nv_bfloat16* Q, const __nv_bfloat16* K, const __nv_bfloat16* V,
            __nv_bfloat16* O, int heads, int n) {
  constexpr size_t bytes = 2 * buffer_elems<D>() * sizeof(__nv_bfloat16);
  static_assert(2 * buffer_elems<D>() >= size_t(Br) * (D + PAD), "Q passes through the buffers");
  if (cudaFuncSetAttribute(kernel<D>, cudaFuncAttributeMaxDynamicSharedMemorySize,
                           static_cast<int>(bytes)) != cudaSuccess)
    return false;
  kernel<D><<<dim3((n + Br - 1) / Br, heads), kThreads, bytes>>>(Q, K, V, O, n);
  return true;
}
}  // namespace permuted3

bool wmma_tried_permuted_double(const __nv_bfloat16* Q, const __nv_bfloat16* K,
                                const __nv_bfloat16* V, __nv_bfloat16* O, int heads, int n, int d) {
  if (n < 1 || heads < 1) return false;
  if (d == 64) return permuted3::launch<64>(Q, K, V, O, heads, n);
  if (d == 128) return permuted3::launch<128>(Q, K, V, O, heads, n);
  return false;
}

}  // namespace wmma_steps
