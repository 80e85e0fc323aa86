// The permuted layouts that lab 4's trials in tried_permuted.cu and tried_permuted_double.cu
// share (timed by wmma_steps.cu): on top of step 2, K's and V's fragments filled by
// hand with one 16-byte shared load per fragment, as ldmatrix gives the mma.sync reference,
// where nvcc's wmma::load_matrix_sync makes generic loads and in-register transposes.
//   K_j is stored with each row's columns permuted within every 32: column 16h + 8u + 2t + v
//       goes to 8t + 4h + 2u + v, so the four elements lane t holds of a B fragment (rows
//       2t, 2t + 1, 2t + 8, 2t + 9 of its 16-column chunk), for two chunks, are 16 bytes in
//       a row;
//   V_j is stored transposed (a row per dimension, keys permuted the same way), packed two
//       keys to a 32-bit store, so P V_j's fragments load alike.
// Rows are padded by 32 bf16 (64 bytes): the two rows a quarter-warp reads sit in opposite
// halves of the banks. Q's fragments and the output pass through K_j's space unpermuted.
#pragma once

#include <cuda_bf16.h>
#include <cuda_pipeline.h>  // on the emulator: emulator_shim/
#include <cuda_runtime.h>
#include <mma.h>

#include <cstdint>

namespace wmma_steps {
namespace permuted {
using namespace nvcuda;
constexpr int Br = 64, Bc = 64, kThreads = 128, PAD = 32;
constexpr int LDV = Bc + PAD;  // V_j^T: a row per dimension
constexpr float kLog2e = 1.4426950408889634f;

__device__ __forceinline__ int acc_row(int lane, int i) { return lane / 4 + 8 * (i / 2 % 2); }
__device__ __forceinline__ int acc_col(int lane, int i) { return 2 * (lane % 4) + i % 2 + 8 * (i / 4); }

// Where column k of a row is stored (see the top).
__device__ __forceinline__ int perm(int k) {
  const int r = k & 31, h = r >> 4, u = (r >> 3) & 1, t = (r >> 1) & 3, v = r & 1;
  return (k & ~31) + 8 * t + 4 * h + 2 * u + v;
}

// K_j (or Q): Bc x D in 16-byte pieces, thread by thread along rows.
template <int D>
struct row_tile {
  static constexpr int N = Bc * D / 8 / kThreads;
  uint4 piece[N];
  __device__ void fetch(const __nv_bfloat16* M, int first, int n) {
#pragma unroll
    for (int t = 0; t < N; ++t) {
      const int idx = threadIdx.x + t * kThreads, r = idx / (D / 8), c = idx % (D / 8) * 8;
      piece[t] = first + r < n
                     ? *reinterpret_cast<const uint4*>(&M[static_cast<size_t>(first + r) * D + c])
                     : make_uint4(0, 0, 0, 0);
    }
  }
  __device__ void put_plain(__nv_bfloat16* M_s) const {
#pragma unroll
    for (int t = 0; t < N; ++t) {
      const int idx = threadIdx.x + t * kThreads, r = idx / (D / 8), c = idx % (D / 8) * 8;
      *reinterpret_cast<uint4*>(&M_s[r * (D + PAD) + c]) = piece[t];
    }
  }
  __device__ void put_permuted(__nv_bfloat16* M_s) const {
#pragma unroll
    for (int t = 0; t < N; ++t) {
      const int idx = threadIdx.x + t * kThreads, r = idx / (D / 8), c = idx % (D / 8) * 8;
      const uint32_t w[4] = {piece[t].x, piece[t].y, piece[t].z, piece[t].w};
#pragma unroll
      for (int q = 0; q < 4; ++q)
        *reinterpret_cast<uint32_t*>(&M_s[r * (D + PAD) + perm(c + 2 * q)]) = w[q];
    }
  }
};

template <int D>
constexpr size_t shared_bytes() {
  return (Bc * (D + PAD) + D * LDV) * sizeof(__nv_bfloat16);
}

// Two B fragments from one row pair: chunks 2cc and 2cc + 1 of rows `row` and `row` + 8.
// A B fragment's elements sit in the same registers whichever layout it was declared with
// (the course's probe, grader/emulator/tests/wmma/), so V^T's rows fill V's row_major B.
template <class Layout>
__device__ __forceinline__ void load_pair(
    wmma::fragment<wmma::matrix_b, 16, 16, 16, __nv_bfloat16, Layout>& b0,
    wmma::fragment<wmma::matrix_b, 16, 16, 16, __nv_bfloat16, Layout>& b1,
    const __nv_bfloat16* row_g, const __nv_bfloat16* row_g8) {
  const uint4 x = *reinterpret_cast<const uint4*>(row_g);
  const uint4 y = *reinterpret_cast<const uint4*>(row_g8);
  uint32_t* f0 = reinterpret_cast<uint32_t*>(&b0.x[0]);
  uint32_t* f1 = reinterpret_cast<uint32_t*>(&b1.x[0]);
  f0[0] = x.x, f0[1] = x.y, f0[2] = y.x, f0[3] = y.y;
  f1[0] = x.z, f1[1] = x.w, f1[2] = y.z, f1[3] = y.w;
}


// Step 2's online softmax on S_j's accumulators, which every trial keeps as it is, in two
// halves around the declaration of P_j (where step 2 declares it: register allocation
// follows). scale_step: keys past n out, each row's max over its 4 lanes, m updated, the
// rows' scales out; m and l are the lane's two rows, base 2.
__device__ __forceinline__ void scale_step(
    wmma::fragment<wmma::accumulator, 16, 16, 16, float> (&s)[Bc / 16], float (&m)[2],
    float (&scale)[2], int j0, int n, int lane) {
  float mx[2] = {-INFINITY, -INFINITY};
  for (int c = 0; c < Bc / 16; ++c)
    for (int i = 0; i < 8; ++i) {
      const int h = acc_row(lane, i) / 8;
      const float x = j0 + c * 16 + acc_col(lane, i) < n ? s[c].x[i] * kLog2e : -INFINITY;
      s[c].x[i] = x;
      mx[h] = fmaxf(mx[h], x);
    }
  for (int h = 0; h < 2; ++h) {
    mx[h] = fmaxf(mx[h], __shfl_xor_sync(0xffffffffu, mx[h], 1));
    mx[h] = fmaxf(mx[h], __shfl_xor_sync(0xffffffffu, mx[h], 2));
    const float m_new = fmaxf(m[h], mx[h]);
    scale[h] = exp2f(m[h] - m_new);
    m[h] = m_new;
  }
}

// p_step: P_j into matrix_a fragments (the accumulator's layout), l updated, O re-based.
template <int F>
__device__ __forceinline__ void p_step(
    const wmma::fragment<wmma::accumulator, 16, 16, 16, float> (&s)[Bc / 16],
    wmma::fragment<wmma::matrix_a, 16, 16, 16, __nv_bfloat16, wmma::row_major> (&p)[Bc / 16],
    wmma::fragment<wmma::accumulator, 16, 16, 16, float> (&o)[F], const float (&m)[2],
    float (&l)[2], const float (&scale)[2], int lane) {
  float p_sum[2] = {0.0f, 0.0f};
  for (int c = 0; c < Bc / 16; ++c)
    for (int i = 0; i < 8; ++i) {
      const float e = exp2f(s[c].x[i] - m[acc_row(lane, i) / 8]);
      p_sum[acc_row(lane, i) / 8] += e;
      p[c].x[i] = __float2bfloat16(e);
    }
  for (int h = 0; h < 2; ++h) {
    p_sum[h] += __shfl_xor_sync(0xffffffffu, p_sum[h], 1);
    p_sum[h] += __shfl_xor_sync(0xffffffffu, p_sum[h], 2);
    l[h] = l[h] * scale[h] + p_sum[h];
  }
  for (int f = 0; f < F; ++f)
    for (int i = 0; i < 8; ++i) o[f].x[i] *= scale[acc_row(lane, i) / 8];
}

// The warp's 16 rows of O, normalised once, in bf16 through its rows of shared memory O_s
// (rows of D + PAD, unpermuted), out in 16-byte rows from row `first` on.
template <int D, int F>
__device__ __forceinline__ void write_out(
    wmma::fragment<wmma::accumulator, 16, 16, 16, float> (&o)[F], float (&l)[2],
    __nv_bfloat16* O_s, __nv_bfloat16* O, int first, int n, int lane) {
  constexpr int LDK = D + PAD;
  for (int f = 0; f < F; ++f)
    for (int i = 0; i < 8; ++i)
      O_s[acc_row(lane, i) * LDK + f * 16 + acc_col(lane, i)] =
          __float2bfloat16(o[f].x[i] / l[acc_row(lane, i) / 8]);
  __syncwarp();
  for (int idx = lane; idx < 16 * D / 8; idx += 32) {
    const int r = idx / (D / 8), c = idx % (D / 8) * 8;
    if (first + r < n)
      *reinterpret_cast<uint4*>(&O[static_cast<size_t>(first + r) * D + c]) =
          *reinterpret_cast<const uint4*>(&O_s[r * LDK + c]);
  }
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

template <int D, int W>
struct k_tile {
  static constexpr int kThreads = 32 * W, CPR = D / 32, UNITS = Bc * CPR;
  static constexpr int NU = (UNITS + kThreads - 1) / kThreads;  // d = 64, W = 8: half idle
  uint4 piece[NU][4];
  __device__ void fetch(const __nv_bfloat16* K, int first, int n) {
#pragma unroll
    for (int u = 0; u < NU; ++u) {
      const int unit = threadIdx.x + u * kThreads, r = unit / CPR, cc = unit % CPR;
      if (unit >= UNITS) break;
#pragma unroll
      for (int m = 0; m < 4; ++m)
        piece[u][m] = first + r < n ? *reinterpret_cast<const uint4*>(
                                          &K[size_t(first + r) * D + 32 * cc + 8 * m])
                                    : make_uint4(0, 0, 0, 0);
    }
  }
  // Physical chunk t of a 32-column chunk holds word t of each 16-byte piece m = 0..3.
  __device__ void put(__nv_bfloat16* K_s) const {
#pragma unroll
    for (int u = 0; u < NU; ++u) {
      const int unit = threadIdx.x + u * kThreads, r = unit / CPR, cc = unit % CPR;
      if (unit >= UNITS) break;
      __nv_bfloat16* row = K_s + r * (D + PAD) + 32 * cc;
      const uint4* p = piece[u];
      *reinterpret_cast<uint4*>(row + 8 * (0 ^ (cc & 3))) = make_uint4(p[0].x, p[1].x, p[2].x, p[3].x);
      *reinterpret_cast<uint4*>(row + 8 * (1 ^ (cc & 3))) = make_uint4(p[0].y, p[1].y, p[2].y, p[3].y);
      *reinterpret_cast<uint4*>(row + 8 * (2 ^ (cc & 3))) = make_uint4(p[0].z, p[1].z, p[2].z, p[3].z);
      *reinterpret_cast<uint4*>(row + 8 * (3 ^ (cc & 3))) = make_uint4(p[0].w, p[1].w, p[2].w, p[3].w);
    }
  }
};

// V_j, stored transposed (as tried-permuted-double's, for any number of warps): keys 32c + {2t, 2t + 8,
// 2t + 16, 2t + 24} (+ 1) at dimensions 4dq .. 4dq + 3, dq = lane / 8 + 4 warp + 4W rep.
template <int D, int W>
struct v_tile_w {
  static constexpr int REP = (D / 4 + 4 * W - 1) / (4 * W);
  uint2 row[REP][4][2];
  __device__ static int dq(int rep) { return threadIdx.x % 32 / 8 + 4 * (threadIdx.x / 32) + 4 * W * rep; }
  __device__ void fetch(const __nv_bfloat16* V, int first, int n) {
    const int lane = threadIdx.x % 32, t = lane % 4, c = lane / 4 % 2;
#pragma unroll
    for (int rep = 0; rep < REP; ++rep) {
      if (dq(rep) >= D / 4) break;
#pragma unroll
      for (int j = 0; j < 4; ++j)
#pragma unroll
        for (int b = 0; b < 2; ++b) {
          const int key = first + 32 * c + 2 * t + 8 * j + b;
          row[rep][j][b] = key < n ? *reinterpret_cast<const uint2*>(&V[size_t(key) * D + 4 * dq(rep)])
                                   : make_uint2(0, 0);
        }
    }
  }
  __device__ void put(__nv_bfloat16* Vt_s) const {
    const int lane = threadIdx.x % 32, t = lane % 4, c = lane / 4 % 2;
#pragma unroll
    for (int rep = 0; rep < REP; ++rep) {
      if (dq(rep) >= D / 4) break;
#pragma unroll
      for (int e = 0; e < 4; ++e) {
        uint32_t w[4];
#pragma unroll
        for (int j = 0; j < 4; ++j)
          w[j] = __byte_perm(e / 2 ? row[rep][j][0].y : row[rep][j][0].x,
                             e / 2 ? row[rep][j][1].y : row[rep][j][1].x, e % 2 ? 0x7632 : 0x5410);
        *reinterpret_cast<uint4*>(&Vt_s[(4 * dq(rep) + e) * LDV + 32 * c + 8 * t]) =
            make_uint4(w[0], w[1], w[2], w[3]);
      }
    }
  }
};

using acc_t = wmma::fragment<wmma::accumulator, 16, 16, 16, float>;
using a_t = wmma::fragment<wmma::matrix_a, 16, 16, 16, __nv_bfloat16, wmma::row_major>;
constexpr int NB = Bc / 16;
using permuted::kLog2e;

// S_j = Q K_j^T from K_j's rows, each B fragment pair one 16-byte load a row (load_pair);
// SWIZZLED: K_j's 16-byte chunks XOR-swizzled (tried-permuted-double's layout), else as
// stored (tried-async-k's, with Q's fragments in the permuted order instead).
template <int D, bool SWIZZLED>
__device__ __forceinline__ void scores(acc_t (&s)[NB], const a_t (&q)[D / 16],
                                       const __nv_bfloat16* Kb, int g, int t) {
  constexpr int LDK = D + PAD;
#pragma unroll
  for (int c = 0; c < NB; ++c) wmma::fill_fragment(s[c], 0.0f);
#pragma unroll
  for (int cc = 0; cc < D / 32; ++cc)
#pragma unroll
    for (int c = 0; c < NB; ++c) {
      wmma::fragment<wmma::matrix_b, 16, 16, 16, __nv_bfloat16, wmma::col_major> k0, k1;
      const int col = 32 * cc + 8 * (SWIZZLED ? t ^ (cc & 3) : t);
      permuted::load_pair(k0, k1, Kb + (16 * c + g) * LDK + col, Kb + (16 * c + g + 8) * LDK + col);
      wmma::mma_sync(s[c], q[2 * cc], k0, s[c]);
      wmma::mma_sync(s[c], q[2 * cc + 1], k1, s[c]);
    }
}

// Rows first .. first + rows - 1 of a rows x D matrix into M_s (rows of D + PAD), zeros past
// n, 16 bytes a copy; one commit.
template <int D, int ROWS, int kThreads>
__device__ __forceinline__ void copy_rows(__nv_bfloat16* M_s, const __nv_bfloat16* M, int first, int n) {
  constexpr int CPR = D / 8;
#pragma unroll
  for (int u = 0; u < ROWS * CPR / kThreads; ++u) {
    const int idx = threadIdx.x + u * kThreads, r = idx / CPR, c = idx % CPR * 8;
    const bool in = first + r < n;
    __pipeline_memcpy_async(&M_s[r * (D + PAD) + c], in ? &M[size_t(first + r) * D + c] : M, 16,
                            in ? 0 : 16);
  }
  __pipeline_commit();
}

// O += P V from the transposed, permuted V tile.
template <int D, int NB>
__device__ __forceinline__ void add_pv(acc_t (&o)[D / 16], const a_t (&p)[NB],
                                       const __nv_bfloat16* Vb, int g, int t) {
#pragma unroll
  for (int kk = 0; kk < NB / 2; ++kk)
#pragma unroll
    for (int f = 0; f < D / 16; ++f) {
      wmma::fragment<wmma::matrix_b, 16, 16, 16, __nv_bfloat16, wmma::row_major> v0, v1;
      permuted::load_pair(v0, v1, Vb + (16 * f + g) * LDV + 32 * kk + 8 * t,
                          Vb + (16 * f + g + 8) * LDV + 32 * kk + 8 * t);
      wmma::mma_sync(o[f], p[2 * kk], v0, o[f]);
      wmma::mma_sync(o[f], p[2 * kk + 1], v1, o[f]);
    }
}

// Keys at or past `limit` (of this tile) out.
template <int NB>
__device__ __forceinline__ void mask(acc_t (&s)[NB], int limit, int lane) {
#pragma unroll
  for (int c = 0; c < NB; ++c)
#pragma unroll
    for (int i = 0; i < 8; ++i)
      if (c * 16 + permuted::acc_col(lane, i) >= limit) s[c].x[i] = -INFINITY;
}

// The online softmax of one tile: m in raw scores, P_j packed into bf16 pairs (elements i
// and i + 1 of an accumulator are one row's neighbours), l updated, the rows' scales out.
template <int NB>
__device__ __forceinline__ void softmax(const acc_t (&s)[NB], a_t (&p)[NB], float (&m)[2],
                                        float (&l)[2], float (&scale)[2], int lane) {
  float mx[2] = {m[0], m[1]};
#pragma unroll
  for (int c = 0; c < NB; ++c)
#pragma unroll
    for (int i = 0; i < 8; ++i) mx[i / 2 % 2] = fmaxf(mx[i / 2 % 2], s[c].x[i]);
  float mb[2], p_sum[2] = {0.0f, 0.0f};
#pragma unroll
  for (int h = 0; h < 2; ++h) {
    mx[h] = fmaxf(mx[h], __shfl_xor_sync(0xffffffffu, mx[h], 1));
    mx[h] = fmaxf(mx[h], __shfl_xor_sync(0xffffffffu, mx[h], 2));
    scale[h] = exp2f((m[h] - mx[h]) * kLog2e);  // m = -inf at first: 0
    m[h] = mx[h];
    mb[h] = mx[h] * kLog2e;
  }
#pragma unroll
  for (int c = 0; c < NB; ++c)
#pragma unroll
    for (int i = 0; i < 8; i += 2) {
      const int h = i / 2 % 2;
      const float e0 = exp2f(fmaf(s[c].x[i], kLog2e, -mb[h]));
      const float e1 = exp2f(fmaf(s[c].x[i + 1], kLog2e, -mb[h]));
      p_sum[h] += e0 + e1;
      *reinterpret_cast<__nv_bfloat162*>(&p[c].x[i]) = __floats2bfloat162_rn(e0, e1);
    }
#pragma unroll
  for (int h = 0; h < 2; ++h) {
    p_sum[h] += __shfl_xor_sync(0xffffffffu, p_sum[h], 1);
    p_sum[h] += __shfl_xor_sync(0xffffffffu, p_sum[h], 2);
    l[h] = l[h] * scale[h] + p_sum[h];
  }
}

}  // namespace permuted2
}  // namespace wmma_steps
