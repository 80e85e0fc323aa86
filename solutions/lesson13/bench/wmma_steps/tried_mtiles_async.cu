// Tried on top of tried-async-k (timed by wmma_steps.cu; on the emulator through
// emulator_shim/): 32 query rows a warp, as FlashAttention-2's warps hold, so that each K and
// V fragment loaded from shared memory feeds two mma's and each warp has two independent
// chains of them. The registers that this costs (O is 128 a lane at d = 128) come from
// elsewhere: Q stays in shared memory (copied by cp.async, its fragments loaded at each
// key tile in tried-async-k's permuted order of d), and key tiles are 32 wide.
// 8 warps and 256 query rows a block, or 4 warps, 128 rows and two blocks an SM; and
// tried-mtiles-regs, the 8 warps with Q and K through registers instead of cp.async.

#include "tried_permuted.hpp"
#include "wmma_steps.hpp"

namespace wmma_steps {
namespace mtiles_async {
using namespace nvcuda;
using permuted::PAD;
using permuted2::a_t;
using permuted2::acc_t;
constexpr int M = 2, Bc = 32, NB = Bc / 16;
constexpr int LDV = Bc;  // V_j^T rows of 64 bytes: rows g and g + 1 fill the 32 banks once

// The same through registers (for the variant without cp.async): fetch, then put.
template <int D, int ROWS, int kThreads>
struct rows_regs {
  static constexpr int CPR = D / 8, N = ROWS * CPR / kThreads;
  uint4 piece[N];
  __device__ void fetch(const __nv_bfloat16* M, int first, int n) {
#pragma unroll
    for (int u = 0; u < N; ++u) {
      const int idx = threadIdx.x + u * kThreads, r = idx / CPR, c = idx % CPR * 8;
      piece[u] = first + r < n ? *reinterpret_cast<const uint4*>(&M[size_t(first + r) * D + c])
                               : make_uint4(0, 0, 0, 0);
    }
  }
  __device__ void put(__nv_bfloat16* M_s) const {
#pragma unroll
    for (int u = 0; u < N; ++u) {
      const int idx = threadIdx.x + u * kThreads, r = idx / CPR, c = idx % CPR * 8;
      *reinterpret_cast<uint4*>(&M_s[r * (D + PAD) + c]) = piece[u];
    }
  }
};

// V_j (Bc = 32 keys) stored transposed, keys permuted as tried_permuted.hpp's perm():
// lane (t, dq = lane / 4 + 8 warp) holds keys 2t + 8j (+ 1) at dimensions 4dq .. 4dq + 3.
template <int D>
struct v_tile {
  uint2 row[4][2];
  __device__ static int dq() { return threadIdx.x / 4; }
  __device__ static bool mine() { return dq() < D / 4; }
  __device__ void fetch(const __nv_bfloat16* V, int first, int n) {
    const int t = threadIdx.x % 4;
    if (!mine()) return;
#pragma unroll
    for (int j = 0; j < 4; ++j)
#pragma unroll
      for (int b = 0; b < 2; ++b) {
        const int key = first + 2 * t + 8 * j + b;
        row[j][b] = key < n ? *reinterpret_cast<const uint2*>(&V[size_t(key) * D + 4 * dq()])
                            : make_uint2(0, 0);
      }
  }
  __device__ void put(__nv_bfloat16* Vt_s) const {
    const int t = threadIdx.x % 4;
    if (!mine()) return;
#pragma unroll
    for (int e = 0; e < 4; ++e) {
      uint32_t w[4];
#pragma unroll
      for (int j = 0; j < 4; ++j)
        w[j] = __byte_perm(e / 2 ? row[j][0].y : row[j][0].x, e / 2 ? row[j][1].y : row[j][1].x,
                           e % 2 ? 0x7632 : 0x5410);
      *reinterpret_cast<uint4*>(&Vt_s[(4 * dq() + e) * LDV + 8 * t]) = make_uint4(w[0], w[1], w[2], w[3]);
    }
  }
};

// A fragments 2cc and 2cc + 1 of 16 rows from rows g and g + 8 (tried_async.cu's order of d).
__device__ __forceinline__ void load_a_pair(a_t& a0, a_t& a1, const __nv_bfloat16* row_g,
                                            const __nv_bfloat16* row_g8) {
  const uint4 x = *reinterpret_cast<const uint4*>(row_g);
  const uint4 y = *reinterpret_cast<const uint4*>(row_g8);
  uint32_t* f0 = reinterpret_cast<uint32_t*>(&a0.x[0]);
  uint32_t* f1 = reinterpret_cast<uint32_t*>(&a1.x[0]);
  f0[0] = x.x, f0[1] = y.x, f0[2] = x.y, f0[3] = y.y;
  f1[0] = x.z, f1[1] = y.z, f1[2] = x.w, f1[3] = y.w;
}

template <int D, int W, bool ASYNC>
__global__ void __launch_bounds__(32 * W, W == 4 ? 2 : 1)
    kernel(const __nv_bfloat16* __restrict__ Q, const __nv_bfloat16* __restrict__ K,
           const __nv_bfloat16* __restrict__ V, __nv_bfloat16* __restrict__ O, int n) {
  constexpr int LDK = D + PAD, F = D / 16, kThreads = 32 * W, Br = 16 * M * W;
  extern __shared__ __align__(128) unsigned char smem[];
  __nv_bfloat16* Q_s = reinterpret_cast<__nv_bfloat16*>(smem);  // Br x LDK, then O
  __nv_bfloat16* base = Q_s + Br * LDK;
  constexpr int BUF = Bc * LDK + D * LDV;  // one K_j and one V_j^T
  auto K_s = [&](int b) { return base + b * BUF; };
  auto Vt_s = [&](int b) { return base + b * BUF + Bc * LDK; };
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32, g = lane / 4, t = lane % 4;
  const size_t head = static_cast<size_t>(blockIdx.y) * n * D;
  Q += head, K += head, V += head, O += head;
  const int r0 = blockIdx.x * Br;
  const __nv_bfloat16* Qw = Q_s + warp * 32 * LDK;  // this warp's rows

  v_tile<D> v_regs;
  rows_regs<D, Bc, kThreads> k_regs;  // without cp.async: K_{j+2} during tile j
  if constexpr (ASYNC) {
    permuted2::copy_rows<D, Br, kThreads>(Q_s, Q, r0, n);
    permuted2::copy_rows<D, Bc, kThreads>(K_s(0), K, 0, n);
  } else {
    for (int part = 0; part < Br / Bc; ++part) {
      k_regs.fetch(Q, r0 + part * Bc, n);
      k_regs.put(Q_s + part * Bc * LDK);
    }
    k_regs.fetch(K, 0, n);
    k_regs.put(K_s(0));
    if (Bc < n) k_regs.fetch(K, Bc, n);
  }
  v_regs.fetch(V, 0, n);
  __pipeline_wait_prior(0);
  __syncthreads();

  acc_t o[M][F];
#pragma unroll
  for (int i = 0; i < M; ++i)
#pragma unroll
    for (int f = 0; f < F; ++f) wmma::fill_fragment(o[i][f], 0.0f);
  float m[M][2], l[M][2];
#pragma unroll
  for (int i = 0; i < M; ++i) m[i][0] = m[i][1] = -INFINITY, l[i][0] = l[i][1] = 0.0f;
  // Tile j: K_{j+1} copies into buffer b ^ 1 (last read by S_{j-1}, before the previous
  // barrier) while S_j reads b; V_j^T is stored into b (last read by P V_{j-2}).
  for (int j0 = 0, b = 0; j0 < n; j0 += Bc, b ^= 1) {
    if (ASYNC && j0 + Bc < n) permuted2::copy_rows<D, Bc, kThreads>(K_s(b ^ 1), K, j0 + Bc, n);
    const __nv_bfloat16* Kb = K_s(b);
    acc_t s[M][NB];
#pragma unroll
    for (int i = 0; i < M; ++i)
#pragma unroll
      for (int c = 0; c < NB; ++c) wmma::fill_fragment(s[i][c], 0.0f);
#pragma unroll
    for (int cc = 0; cc < D / 32; ++cc) {
      a_t q[M][2];
#pragma unroll
      for (int i = 0; i < M; ++i)
        load_a_pair(q[i][0], q[i][1], Qw + (16 * i + g) * LDK + 32 * cc + 8 * t,
                    Qw + (16 * i + g + 8) * LDK + 32 * cc + 8 * t);
#pragma unroll
      for (int c = 0; c < NB; ++c) {
        wmma::fragment<wmma::matrix_b, 16, 16, 16, __nv_bfloat16, wmma::col_major> k0, k1;
        const int col = 32 * cc + 8 * t;
        permuted::load_pair(k0, k1, Kb + (16 * c + g) * LDK + col, Kb + (16 * c + g + 8) * LDK + col);
#pragma unroll
        for (int i = 0; i < M; ++i) {
          wmma::mma_sync(s[i][c], q[i][0], k0, s[i][c]);
          wmma::mma_sync(s[i][c], q[i][1], k1, s[i][c]);
        }
      }
    }
    a_t p[M][NB];
#pragma unroll
    for (int i = 0; i < M; ++i) {
      if (j0 + Bc > n) permuted2::mask(s[i], n - j0, lane);
      float scale[2];
      permuted2::softmax(s[i], p[i], m[i], l[i], scale, lane);
#pragma unroll
      for (int f = 0; f < F; ++f)
#pragma unroll
        for (int e = 0; e < 8; ++e) o[i][f].x[e] *= scale[e / 2 % 2];
    }
    v_regs.put(Vt_s(b));
    if (!ASYNC && j0 + Bc < n) k_regs.put(K_s(b ^ 1));
    __pipeline_wait_prior(0);
    __syncthreads();
    if (j0 + Bc < n) v_regs.fetch(V, j0 + Bc, n);
    if (!ASYNC && j0 + 2 * Bc < n) k_regs.fetch(K, j0 + 2 * Bc, n);
    const __nv_bfloat16* Vb = Vt_s(b);
#pragma unroll
    for (int f = 0; f < F; ++f) {
      wmma::fragment<wmma::matrix_b, 16, 16, 16, __nv_bfloat16, wmma::row_major> v0, v1;
      permuted::load_pair(v0, v1, Vb + (16 * f + g) * LDV + 8 * t, Vb + (16 * f + g + 8) * LDV + 8 * t);
#pragma unroll
      for (int i = 0; i < M; ++i) {
        wmma::mma_sync(o[i][f], p[i][0], v0, o[i][f]);
        wmma::mma_sync(o[i][f], p[i][1], v1, o[i][f]);
      }
    }
  }
  // O through this warp's own rows of Q_s, which no other warp reads.
#pragma unroll
  for (int i = 0; i < M; ++i)
    permuted::write_out<D>(o[i], l[i], Q_s + (warp * 32 + 16 * i) * LDK, O, r0 + warp * 32 + 16 * i,
                           n, lane);
}

template <int D, int W, bool ASYNC>
bool launch(const __nv_bfloat16* Q, const __nv_bfloat16* K, const __nv_bfloat16* V,
            __nv_bfloat16* O, int heads, int n) {
  constexpr int Br = 16 * M * W;
  constexpr size_t bytes = (Br * (D + PAD) + 2 * (Bc * (D + PAD) + D * LDV)) * sizeof(__nv_bfloat16);
  if (cudaFuncSetAttribute(kernel<D, W, ASYNC>, cudaFuncAttributeMaxDynamicSharedMemorySize,
                           static_cast<int>(bytes)) != cudaSuccess)
    return false;
  kernel<D, W, ASYNC><<<dim3((n + Br - 1) / Br, heads), 32 * W, bytes>>>(Q, K, V, O, n);
  return true;
}
}  // namespace mtiles_async

namespace mtiles_async {
template <int W, bool ASYNC = true>
bool forward(const __nv_bfloat16* Q, const __nv_bfloat16* K, const __nv_bfloat16* V,
             __nv_bfloat16* O, int heads, int n, int d) {
  if (n < 1 || heads < 1) return false;
  if (d == 64) return launch<64, W, ASYNC>(Q, K, V, O, heads, n);
  if (d == 128) return launch<128, W, ASYNC>(Q, K, V, O, heads, n);
  return false;
}
}  // namespace mtiles_async

bool wmma_tried_mtiles_async(const __nv_bfloat16* Q, const __nv_bfloat16* K, const __nv_bfloat16* V,
                             __nv_bfloat16* O, int heads, int n, int d) {
  return mtiles_async::forward<8>(Q, K, V, O, heads, n, d);
}
bool wmma_tried_mtiles_async_4w(const __nv_bfloat16* Q, const __nv_bfloat16* K,
                                const __nv_bfloat16* V, __nv_bfloat16* O, int heads, int n,
                                int d) {
  return mtiles_async::forward<4>(Q, K, V, O, heads, n, d);
}
bool wmma_tried_mtiles_regs(const __nv_bfloat16* Q, const __nv_bfloat16* K, const __nv_bfloat16* V,
                            __nv_bfloat16* O, int heads, int n, int d) {
  return mtiles_async::forward<8, false>(Q, K, V, O, heads, n, d);
}

}  // namespace wmma_steps
