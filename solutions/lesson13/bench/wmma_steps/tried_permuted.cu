// Lab 4 trials on the permuted layouts of tried_permuted.hpp, timed by wmma_steps.cu:
// tried-permuted and tried-permuted-late-v store K_j and V_j^T with 32-bit stores (V_j's loads
// in flight during S, or issued after it); tried-permuted-swizzled and -8w store them with
// 16-byte stores only, on 4 and on 8 warps.
#include "tried_permuted.hpp"
#include "wmma_steps.hpp"

namespace wmma_steps {
namespace permuted {
using namespace nvcuda;
// V_j: lane w of warp `warp` loads keys 2w and 2w + 1, 16 dimensions at a time (chunks
// warp, warp + 4, ...), and stores them transposed, a key pair to a 32-bit word.
template <int D>
struct v_tile {
  static constexpr int J = D / 64;  // 16-dimension chunks per warp
  uint4 lo[J][2], hi[J][2];
  __device__ void fetch(const __nv_bfloat16* V, int first, int n) {
    const int warp = threadIdx.x / 32, w = threadIdx.x % 32;
#pragma unroll
    for (int j = 0; j < J; ++j) {
      const int d0 = 16 * (warp + 4 * j);
#pragma unroll
      for (int half = 0; half < 2; ++half) {
        const int r0 = first + 2 * w, r1 = r0 + 1;
        lo[j][half] = r0 < n ? *reinterpret_cast<const uint4*>(&V[size_t(r0) * D + d0 + 8 * half])
                             : make_uint4(0, 0, 0, 0);
        hi[j][half] = r1 < n ? *reinterpret_cast<const uint4*>(&V[size_t(r1) * D + d0 + 8 * half])
                             : make_uint4(0, 0, 0, 0);
      }
    }
  }
  __device__ void put(__nv_bfloat16* Vt_s) const {
    const int warp = threadIdx.x / 32, w = threadIdx.x % 32, col = perm(2 * w);
#pragma unroll
    for (int j = 0; j < J; ++j) {
      const int d0 = 16 * (warp + 4 * j);
#pragma unroll
      for (int half = 0; half < 2; ++half) {
        const uint32_t a[4] = {lo[j][half].x, lo[j][half].y, lo[j][half].z, lo[j][half].w};
        const uint32_t b[4] = {hi[j][half].x, hi[j][half].y, hi[j][half].z, hi[j][half].w};
#pragma unroll
        for (int q = 0; q < 4; ++q) {
          const int e = d0 + 8 * half + 2 * q;
          *reinterpret_cast<uint32_t*>(&Vt_s[e * LDV + col]) = __byte_perm(a[q], b[q], 0x5410);
          *reinterpret_cast<uint32_t*>(&Vt_s[(e + 1) * LDV + col]) = __byte_perm(a[q], b[q], 0x7632);
        }
      }
    }
  }
};

// EARLY_V: V_j's loads issued before S = Q K_j^T (in flight during it, 32 more registers
// live there at d = 128), or after it, during the softmax.
template <int D, bool EARLY_V>
__global__ void __launch_bounds__(kThreads, D == 64 ? 3 : 1)
    kernel(const __nv_bfloat16* __restrict__ Q, const __nv_bfloat16* __restrict__ K,
           const __nv_bfloat16* __restrict__ V, __nv_bfloat16* __restrict__ O, int n) {
  constexpr int LDK = D + PAD, F = D / 16;
  extern __shared__ __align__(128) unsigned char smem[];
  __nv_bfloat16* K_s = reinterpret_cast<__nv_bfloat16*>(smem);
  __nv_bfloat16* Vt_s = K_s + Bc * LDK;
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32, g = lane / 4, t = lane % 4;
  const size_t head = static_cast<size_t>(blockIdx.y) * n * D;
  Q += head, K += head, V += head, O += head;
  const int r0 = blockIdx.x * Br;

  wmma::fragment<wmma::matrix_a, 16, 16, 16, __nv_bfloat16, wmma::row_major> q[F];
  {
    row_tile<D> q_tile;
    q_tile.fetch(Q, r0, n);
    q_tile.put_plain(K_s);
  }
  __syncthreads();
  for (int f = 0; f < F; ++f) wmma::load_matrix_sync(q[f], K_s + warp * 16 * LDK + f * 16, LDK);
  __syncthreads();
  {
    row_tile<D> k_tile;
    k_tile.fetch(K, 0, n);
    k_tile.put_permuted(K_s);
  }
  __syncthreads();

  wmma::fragment<wmma::accumulator, 16, 16, 16, float> o[F];
  for (int f = 0; f < F; ++f) wmma::fill_fragment(o[f], 0.0f);
  float m[2] = {-INFINITY, -INFINITY}, l[2] = {0.0f, 0.0f};

  for (int j0 = 0; j0 < n; j0 += Bc) {
    v_tile<D> v_next;
    if (EARLY_V) v_next.fetch(V, j0, n);

    wmma::fragment<wmma::accumulator, 16, 16, 16, float> s[Bc / 16];
    for (int c = 0; c < Bc / 16; ++c) wmma::fill_fragment(s[c], 0.0f);
#pragma unroll
    for (int cc = 0; cc < D / 32; ++cc)
#pragma unroll
      for (int c = 0; c < Bc / 16; ++c) {
        wmma::fragment<wmma::matrix_b, 16, 16, 16, __nv_bfloat16, wmma::col_major> k0, k1;
        load_pair(k0, k1, K_s + (16 * c + g) * LDK + 32 * cc + 8 * t,
                  K_s + (16 * c + g + 8) * LDK + 32 * cc + 8 * t);
        wmma::mma_sync(s[c], q[2 * cc], k0, s[c]);
        wmma::mma_sync(s[c], q[2 * cc + 1], k1, s[c]);
      }

    if (!EARLY_V) v_next.fetch(V, j0, n);
    float scale[2];
    permuted::scale_step(s, m, scale, j0, n, lane);
    wmma::fragment<wmma::matrix_a, 16, 16, 16, __nv_bfloat16, wmma::row_major> p[Bc / 16];
    permuted::p_step(s, p, o, m, l, scale, lane);
    v_next.put(Vt_s);
    __syncthreads();  // V_j^T is in place, and every warp is done with K_j
    const bool more = j0 + Bc < n;
    row_tile<D> k_next;
    if (more) k_next.fetch(K, j0 + Bc, n);

#pragma unroll
    for (int kk = 0; kk < Bc / 32; ++kk)
#pragma unroll
      for (int f = 0; f < F; ++f) {
        wmma::fragment<wmma::matrix_b, 16, 16, 16, __nv_bfloat16, wmma::row_major> v0, v1;
        load_pair(v0, v1, Vt_s + (16 * f + g) * LDV + 32 * kk + 8 * t,
                  Vt_s + (16 * f + g + 8) * LDV + 32 * kk + 8 * t);
        wmma::mma_sync(o[f], p[2 * kk], v0, o[f]);
        wmma::mma_sync(o[f], p[2 * kk + 1], v1, o[f]);
      }
    if (more) k_next.put_permuted(K_s);
    __syncthreads();
  }

  permuted::write_out<D>(o, l, K_s + warp * 16 * (D + PAD), O, r0 + warp * 16, n, lane);
}

template <int D, bool EARLY_V>
bool launch(const __nv_bfloat16* Q, const __nv_bfloat16* K, const __nv_bfloat16* V,
            __nv_bfloat16* O, int heads, int n) {
  constexpr size_t bytes = shared_bytes<D>();
  if (cudaFuncSetAttribute(kernel<D, EARLY_V>, cudaFuncAttributeMaxDynamicSharedMemorySize,
                           static_cast<int>(bytes)) != cudaSuccess)
    return false;
  kernel<D, EARLY_V><<<dim3((n + Br - 1) / Br, heads), kThreads, bytes>>>(Q, K, V, O, n);
  return true;
}
}  // namespace permuted

namespace permuted2 {
using namespace nvcuda;
using permuted::acc_col;
using permuted::acc_row;
using permuted::Bc;
using permuted::kLog2e;
using permuted::LDV;
using permuted::PAD;

// V_j: a thread owns keys 32c + {2t, 2t + 8, 2t + 16, 2t + 24} (and each + 1) at dimensions
// 8dg .. 8dg + 7; lane = t + 4 (c + 2 dg'), dg = dg' + 4 warp. At d = 64 half the warps idle.
template <int D>
struct v_tile {  // warps 4 and up (W = 8) idle here
  uint4 row[4][2];  // [pair j][key 2t + 8j or + 1]
  __device__ bool mine() const { return threadIdx.x / 32 * 4 + threadIdx.x % 32 / 8 < D / 8; }
  __device__ void fetch(const __nv_bfloat16* V, int first, int n) {
    const int lane = threadIdx.x % 32, t = lane % 4, c = lane / 4 % 2;
    const int dg = lane / 8 + 4 * (threadIdx.x / 32);
    if (!mine()) return;
#pragma unroll
    for (int j = 0; j < 4; ++j)
#pragma unroll
      for (int b = 0; b < 2; ++b) {
        const int key = first + 32 * c + 2 * t + 8 * j + b;
        row[j][b] = key < n ? *reinterpret_cast<const uint4*>(&V[size_t(key) * D + 8 * dg])
                            : make_uint4(0, 0, 0, 0);
      }
  }
  __device__ void put(__nv_bfloat16* Vt_s) const {
    const int lane = threadIdx.x % 32, t = lane % 4, c = lane / 4 % 2;
    const int dg = lane / 8 + 4 * (threadIdx.x / 32);
    if (!mine()) return;
#pragma unroll
    for (int e = 0; e < 8; ++e) {
      uint32_t w[4];
#pragma unroll
      for (int j = 0; j < 4; ++j) {
        const uint32_t a = e / 2 == 0 ? row[j][0].x : e / 2 == 1 ? row[j][0].y : e / 2 == 2 ? row[j][0].z : row[j][0].w;
        const uint32_t b = e / 2 == 0 ? row[j][1].x : e / 2 == 1 ? row[j][1].y : e / 2 == 2 ? row[j][1].z : row[j][1].w;
        w[j] = __byte_perm(a, b, e % 2 ? 0x7632 : 0x5410);
      }
      *reinterpret_cast<uint4*>(&Vt_s[(8 * dg + e) * LDV + 32 * c + 8 * t]) = make_uint4(w[0], w[1], w[2], w[3]);
    }
  }
};

// W warps: Br = 16 W query rows a block (W = 8: each K_j and V_j tile serves twice the rows).
template <int D, int W>
__global__ void __launch_bounds__(32 * W, W == 4 && D == 64 ? 3 : 1)
    kernel(const __nv_bfloat16* __restrict__ Q, const __nv_bfloat16* __restrict__ K,
           const __nv_bfloat16* __restrict__ V, __nv_bfloat16* __restrict__ O, int n) {
  constexpr int LDK = D + PAD, F = D / 16, Br = 16 * W;
  extern __shared__ __align__(128) unsigned char smem[];
  __nv_bfloat16* K_s = reinterpret_cast<__nv_bfloat16*>(smem);
  __nv_bfloat16* Vt_s = K_s + Bc * LDK;
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32, g = lane / 4, t = lane % 4;
  const size_t head = static_cast<size_t>(blockIdx.y) * n * D;
  Q += head, K += head, V += head, O += head;
  const int r0 = blockIdx.x * Br;

  wmma::fragment<wmma::matrix_a, 16, 16, 16, __nv_bfloat16, wmma::row_major> q[F];
  {
    // Br rows of Q through K_j's and V_j^T's space (enough for 128 rows).
    for (int part = 0; part < Br / Bc; ++part) {
      permuted::row_tile<D> q_tile;
      if (threadIdx.x < 128) {
        q_tile.fetch(Q, r0 + part * Bc, n);
        q_tile.put_plain(K_s + part * Bc * LDK);
      }
    }
  }
  __syncthreads();
  for (int f = 0; f < F; ++f) wmma::load_matrix_sync(q[f], K_s + warp * 16 * LDK + f * 16, LDK);
  __syncthreads();
  {
    k_tile<D, W> k_first;
    k_first.fetch(K, 0, n);
    k_first.put(K_s);
  }
  __syncthreads();

  wmma::fragment<wmma::accumulator, 16, 16, 16, float> o[F];
  for (int f = 0; f < F; ++f) wmma::fill_fragment(o[f], 0.0f);
  float m[2] = {-INFINITY, -INFINITY}, l[2] = {0.0f, 0.0f};

  for (int j0 = 0; j0 < n; j0 += Bc) {
    wmma::fragment<wmma::accumulator, 16, 16, 16, float> s[Bc / 16];
    for (int c = 0; c < Bc / 16; ++c) wmma::fill_fragment(s[c], 0.0f);
#pragma unroll
    for (int cc = 0; cc < D / 32; ++cc)
#pragma unroll
      for (int c = 0; c < Bc / 16; ++c) {
        wmma::fragment<wmma::matrix_b, 16, 16, 16, __nv_bfloat16, wmma::col_major> k0, k1;
        const int col = 32 * cc + 8 * (t ^ (cc & 3));
        permuted::load_pair(k0, k1, K_s + (16 * c + g) * LDK + col, K_s + (16 * c + g + 8) * LDK + col);
        wmma::mma_sync(s[c], q[2 * cc], k0, s[c]);
        wmma::mma_sync(s[c], q[2 * cc + 1], k1, s[c]);
      }
    v_tile<D> v_next;
    v_next.fetch(V, j0, n);

    float scale[2];
    permuted::scale_step(s, m, scale, j0, n, lane);
    wmma::fragment<wmma::matrix_a, 16, 16, 16, __nv_bfloat16, wmma::row_major> p[Bc / 16];
    permuted::p_step(s, p, o, m, l, scale, lane);
    v_next.put(Vt_s);
    __syncthreads();
    const bool more = j0 + Bc < n;
    k_tile<D, W> k_next;
    if (more) k_next.fetch(K, j0 + Bc, n);

#pragma unroll
    for (int kk = 0; kk < Bc / 32; ++kk)
#pragma unroll
      for (int f = 0; f < F; ++f) {
        wmma::fragment<wmma::matrix_b, 16, 16, 16, __nv_bfloat16, wmma::row_major> v0, v1;
        permuted::load_pair(v0, v1, Vt_s + (16 * f + g) * LDV + 32 * kk + 8 * t,
                            Vt_s + (16 * f + g + 8) * LDV + 32 * kk + 8 * t);
        wmma::mma_sync(o[f], p[2 * kk], v0, o[f]);
        wmma::mma_sync(o[f], p[2 * kk + 1], v1, o[f]);
      }
    if (more) k_next.put(K_s);
    __syncthreads();
  }

  permuted::write_out<D>(o, l, K_s + warp * 16 * (D + PAD), O, r0 + warp * 16, n, lane);
}

template <int D, int W>
bool launch(const __nv_bfloat16* Q, const __nv_bfloat16* K, const __nv_bfloat16* V,
            __nv_bfloat16* O, int heads, int n) {
  constexpr int Br = 16 * W;
  constexpr size_t tiles = permuted::shared_bytes<D>(), q = size_t(Br) * (D + PAD) * 2;
  constexpr size_t bytes = tiles > q ? tiles : q;
  if (cudaFuncSetAttribute(kernel<D, W>, cudaFuncAttributeMaxDynamicSharedMemorySize,
                           static_cast<int>(bytes)) != cudaSuccess)
    return false;
  kernel<D, W><<<dim3((n + Br - 1) / Br, heads), 32 * W, bytes>>>(Q, K, V, O, n);
  return true;
}
}  // namespace permuted2


bool wmma_tried_permuted(const __nv_bfloat16* Q, const __nv_bfloat16* K, const __nv_bfloat16* V,
                         __nv_bfloat16* O, int heads, int n, int d) {
  if (n < 1 || heads < 1) return false;
  if (d == 64) return permuted::launch<64, true>(Q, K, V, O, heads, n);
  if (d == 128) return permuted::launch<128, true>(Q, K, V, O, heads, n);
  return false;
}
bool wmma_tried_permuted_late_v(const __nv_bfloat16* Q, const __nv_bfloat16* K,
                                const __nv_bfloat16* V, __nv_bfloat16* O, int heads, int n, int d) {
  if (n < 1 || heads < 1) return false;
  if (d == 64) return permuted::launch<64, false>(Q, K, V, O, heads, n);
  if (d == 128) return permuted::launch<128, false>(Q, K, V, O, heads, n);
  return false;
}

bool wmma_tried_permuted_swizzled(const __nv_bfloat16* Q, const __nv_bfloat16* K,
                                  const __nv_bfloat16* V, __nv_bfloat16* O, int heads, int n,
                                  int d) {
  if (n < 1 || heads < 1) return false;
  if (d == 64) return permuted2::launch<64, 4>(Q, K, V, O, heads, n);
  if (d == 128) return permuted2::launch<128, 4>(Q, K, V, O, heads, n);
  return false;
}
bool wmma_tried_permuted_swizzled_8w(const __nv_bfloat16* Q, const __nv_bfloat16* K,
                                     const __nv_bfloat16* V, __nv_bfloat16* O, int heads, int n,
                                     int d) {
  if (n < 1 || heads < 1) return false;
  if (d == 64) return permuted2::launch<64, 8>(Q, K, V, O, heads, n);
  if (d == 128) return permuted2::launch<128, 8>(Q, K, V, O, heads, n);
  return false;
}

}  // namespace wmma_steps
