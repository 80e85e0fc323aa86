// Lesson 13 lab 4: FlashAttention's forward pass in bf16 on tensor cores, through the
// portable WMMA API (nvcuda::wmma: 16 x 16 x 16 fragments, float accumulators). Fill in
// the BLANKs, then grade with: grader lesson13 --unit lab_tensor_cores
//
// A block of 8 warps owns Br = 256 query rows of one head, a warp 32 of them as two row
// tiles of 16 (each K or V fragment it loads feeds both); per key tile of Bc = 32 rows:
//   1. S = Q_w K_j^T on tensor cores, from shared memory: Q's tile stays there all along,
//      K_j is there as it is in memory (rows of keys);
//   2. the online softmax on S's accumulators in registers: a lane holds 2 rows of each
//      row tile (notes §6.8), and the 4 lanes of a row meet through shuffles;
//   3. P goes from S's accumulators into matrix_a fragments element by element (the two
//      layouts are the same), O is re-based by each row's scale; V_j^T and K_{j+1} are
//      stored to shared memory, into the halves that no warp reads during this tile;
//   4. one barrier, V_{j+1}'s and K_{j+2}'s loads start, then O += P V_j on tensor cores.
// Fragments are filled by hand, 16 bytes of shared memory per lane for two fragments,
// where load_matrix_sync makes a load per element pair (notes §6.8, "by hand"). Which lane
// holds which element is the GPU's sm_80+ layout (PTX's mma.m16n8k16), which CUDA calls
// unspecified for WMMA; the course's probe checks it on a GPU and the emulator uses the same.
// API: lessons/lesson13/include/flash_attention_wmma.hpp.
#include <cuda_bf16.h>
#include <cuda_runtime.h>
#include <mma.h>

#include <cstdint>

#include "course/blank.hpp"
#include "flash_attention_wmma.hpp"

namespace lesson13 {
namespace {

using namespace nvcuda;
constexpr int kWarps = 8, kThreads = 32 * kWarps;
constexpr int MT = 2, Br = 16 * MT * kWarps, Bc = 32;  // MT: row tiles of 16 a warp
// Q's and K_j's shared rows are padded by 32 bf16 (64 bytes), so that the two rows that a
// quarter-warp's 16-byte loads touch fall in opposite halves of the 32 banks; V_j^T's rows
// are Bc = 32 bf16 (64 bytes) long, which does the same with no padding.
constexpr int PAD = 32, LDV = Bc;
constexpr float kLog2e = 1.4426950408889634f;
using acc_frag = wmma::fragment<wmma::accumulator, 16, 16, 16, float>;
using a_frag = wmma::fragment<wmma::matrix_a, 16, 16, 16, __nv_bfloat16, wmma::row_major>;

// Where element x[i] (i = 0..7) of lane `lane` sits in a 16 x 16 accumulator tile, and
// in a matrix_a tile too (notes §6.8 draw the layout).
__device__ __forceinline__ int acc_row(int lane, int i) {
  return BLANK(acc_row);
}
__device__ __forceinline__ int acc_col(int lane, int i) { return 2 * (lane % 4) + i % 2 + 8 * (i / 4); }

// Two fragments from one 16-byte load each of rows g and g + 8 (lane = 4g + t reads
// elements 8t .. 8t + 7 of both, `ld` apart). A 32-bit register of a fragment holds a pair
// of neighbours along k (the sum's index): for an A, rows g and g + 8 at k = 2t, 2t + 1
// and at 2t + 8, 2t + 9; for a B, the same for its columns. The 8 elements a lane reads
// become k = 2t, 2t + 1, 2t + 8, 2t + 9 of fragment 0 and the same of fragment 1: an order
// of k that is not the memory's, which is right as long as both factors of a product use
// it, because a sum does not depend on the order of its terms (notes §6.8).
__device__ __forceinline__ void fill_a_pair(a_frag (&a)[2], const __nv_bfloat16* row_g, int ld) {
  const uint4 x = *reinterpret_cast<const uint4*>(row_g);
  const uint4 y = *reinterpret_cast<const uint4*>(row_g + 8 * ld);
  uint32_t* a0 = reinterpret_cast<uint32_t*>(&a[0].x[0]);
  uint32_t* a1 = reinterpret_cast<uint32_t*>(&a[1].x[0]);
  a0[0] = x.x, a0[1] = y.x, a0[2] = x.y, a0[3] = y.y;
  a1[0] = x.z, a1[1] = y.z, a1[2] = x.w, a1[3] = y.w;
}
// A B fragment's registers are the same whichever layout it is declared with (the probe).
template <class Layout>
__device__ __forceinline__ void fill_b_pair(
    wmma::fragment<wmma::matrix_b, 16, 16, 16, __nv_bfloat16, Layout> (&b)[2],
    const __nv_bfloat16* row_g, int ld) {
  const uint4 x = *reinterpret_cast<const uint4*>(row_g);
  const uint4 y = *reinterpret_cast<const uint4*>(row_g + 8 * ld);
  uint32_t* b0 = reinterpret_cast<uint32_t*>(&b[0].x[0]);
  uint32_t* b1 = reinterpret_cast<uint32_t*>(&b[1].x[0]);
  b0[0] = x.x, b0[1] = x.y, b0[2] = y.x, b0[3] = y.y;
  b1[0] = x.z, b1[1] = x.w, b1[2] = y.z, b1[3] = y.w;
}

// A Bc x D tile of Q or K in flight: each thread's 16-byte pieces, loaded from global
// memory into registers by fetch (rows past n as zeros) and stored to shared memory (rows
// of D + PAD) by put, so that the loads overlap the tensor-core work between the two.
template <int D>
struct tile_regs {
  static constexpr int N = Bc * D / 8 / kThreads;
  uint4 piece[N];
  __device__ void fetch(const __nv_bfloat16* M, int first, int n) {
#pragma unroll
    for (int u = 0; u < N; ++u) {
      const int idx = threadIdx.x + u * kThreads, r = idx / (D / 8), c = idx % (D / 8) * 8;
      piece[u] = first + r < n
                     ? *reinterpret_cast<const uint4*>(&M[static_cast<size_t>(first + r) * D + c])
                     : make_uint4(0, 0, 0, 0);
    }
  }
  __device__ void put(__nv_bfloat16* M_s) const {
#pragma unroll
    for (int u = 0; u < N; ++u) {
      const int idx = threadIdx.x + u * kThreads, r = idx / (D / 8), c = idx % (D / 8) * 8;
      *reinterpret_cast<uint4*>(&M_s[r * (D + PAD) + c]) = piece[u];
    }
  }
};

// V_j in flight, stored transposed (V_j^T: a row of Bc keys per dimension), so that P V_j's
// B fragments fill like K_j's. P's k order is fixed by S's accumulators (lane t holds keys
// 2t, 2t + 1, 2t + 8, 2t + 9 of each 16), so the keys that one 16-byte load must bring are
// stored together: key 16h + 8u + 2t + v of the tile at 8t + 4h + 2u + v. Thread (t, e4)
// loads keys 2t + 8j and 2t + 8j + 1 (j = 0..3) at dimensions 4 e4 .. 4 e4 + 3 and stores
// dimension e's 8 keys as one 16-byte row piece.
template <int D>
struct vt_regs {
  static constexpr int REP = (D + kThreads - 1) / kThreads;  // D units of (t, e4)
  uint2 key[REP][4][2];
  __device__ void fetch(const __nv_bfloat16* V, int first, int n) {
#pragma unroll
    for (int r = 0; r < REP; ++r) {
      const int u = threadIdx.x + r * kThreads, t = u % 4, e4 = u / 4;
      if (u >= D) break;
#pragma unroll
      for (int j = 0; j < 4; ++j)
#pragma unroll
        for (int v = 0; v < 2; ++v) {
          const int row = first + 2 * t + 8 * j + v;
          key[r][j][v] = row < n ? *reinterpret_cast<const uint2*>(&V[static_cast<size_t>(row) * D + 4 * e4])
                                 : make_uint2(0, 0);
        }
    }
  }
  __device__ void put(__nv_bfloat16* Vt_s) const {
#pragma unroll
    for (int r = 0; r < REP; ++r) {
      const int u = threadIdx.x + r * kThreads, t = u % 4, e4 = u / 4;
      if (u >= D) break;
#pragma unroll
      for (int e = 0; e < 4; ++e) {
        uint32_t w[4];  // keys 2t + 8j and 2t + 8j + 1 at dimension 4 e4 + e, as a pair
#pragma unroll
        for (int j = 0; j < 4; ++j)
          w[j] = __byte_perm(e / 2 ? key[r][j][0].y : key[r][j][0].x,
                             e / 2 ? key[r][j][1].y : key[r][j][1].x, e % 2 ? 0x7632 : 0x5410);
        *reinterpret_cast<uint4*>(&Vt_s[(4 * e4 + e) * LDV + 8 * t]) = make_uint4(w[0], w[1], w[2], w[3]);
      }
    }
  }
};

// The online softmax of one row tile (16 rows) on S_j's accumulators: keys past n out,
// each row's max over its 4 lanes, P_j into matrix_a fragments, l updated, O re-based.
// m and l are this lane's two rows (h = 0: acc_row 0..7, h = 1: 8..15), in base 2: m is
// the max of s log2(e), so p = 2^(s log2(e) - m) = e^(s - max), one FFMA and one exp2.
template <int F>
__device__ __forceinline__ void softmax_tile(acc_frag (&s)[Bc / 16], a_frag (&p)[Bc / 16],
                                             acc_frag (&o)[F], float (&m)[2], float (&l)[2],
                                             int j0, int n, int lane) {
  if (j0 + Bc > n) {  // the last tile: keys past n out
#pragma unroll
    for (int c = 0; c < Bc / 16; ++c)
#pragma unroll
      for (int i = 0; i < 8; ++i)
        if (j0 + c * 16 + acc_col(lane, i) >= n) s[c].x[i] = -INFINITY;
  }
  float mx[2] = {-INFINITY, -INFINITY};
#pragma unroll
  for (int c = 0; c < Bc / 16; ++c)
#pragma unroll
    for (int i = 0; i < 8; ++i) mx[acc_row(lane, i) / 8] = fmaxf(mx[acc_row(lane, i) / 8], s[c].x[i]);
  float scale[2], p_sum[2] = {0.0f, 0.0f};
#pragma unroll
  for (int h = 0; h < 2; ++h) {
    mx[h] = fmaxf(mx[h], __shfl_xor_sync(0xffffffffu, mx[h], 1));
    mx[h] = fmaxf(mx[h], __shfl_xor_sync(0xffffffffu, mx[h], 2));
    const float m_new = fmaxf(m[h], mx[h] * kLog2e);
    scale[h] = exp2f(m[h] - m_new);
    m[h] = m_new;
  }
  // P straight into matrix_a fragments: element i of a matrix_a tile sits where element i
  // of an accumulator tile does.
#pragma unroll
  for (int c = 0; c < Bc / 16; ++c)
#pragma unroll
    for (int i = 0; i < 8; ++i) {
      const int h = acc_row(lane, i) / 8;
      const float e = BLANK(p);  // this score's p, against its row's new max
      p_sum[h] += e;
      p[c].x[i] = __float2bfloat16(e);
    }
#pragma unroll
  for (int h = 0; h < 2; ++h) {
    p_sum[h] += __shfl_xor_sync(0xffffffffu, p_sum[h], 1);
    p_sum[h] += __shfl_xor_sync(0xffffffffu, p_sum[h], 2);
    l[h] = BLANK(l_new);
  }
#pragma unroll
  for (int f = 0; f < F; ++f)
#pragma unroll
    for (int i = 0; i < 8; ++i) {
      o[f].x[i] = BLANK(O_rescale);  // scale[h]: the scale of this lane's row h
    }
}

// Shared memory: Q's tile (Br rows; O passes through it at the end), two K_j (Bc rows),
// two V_j^T (D rows of Bc): tile j reads one of each pair while the other is stored.
template <int D>
constexpr size_t shared_bytes() {
  return (static_cast<size_t>(Br + 2 * Bc) * (D + PAD) + 2 * D * LDV) * sizeof(__nv_bfloat16);
}

template <int D>
__global__ void __launch_bounds__(kThreads, 1)
    flash_wmma_kernel(const __nv_bfloat16* __restrict__ Q, const __nv_bfloat16* __restrict__ K,
                      const __nv_bfloat16* __restrict__ V, __nv_bfloat16* __restrict__ O, int n) {
  constexpr int LDK = D + PAD, F = D / 16;  // F: fragments across d
  extern __shared__ __align__(128) unsigned char smem[];
  __nv_bfloat16* Q_s = reinterpret_cast<__nv_bfloat16*>(smem);
  __nv_bfloat16* K_s = Q_s + Br * LDK;      // K_s + b * Bc * LDK: buffer b
  __nv_bfloat16* Vt_s = K_s + 2 * Bc * LDK;  // Vt_s + b * D * LDV: buffer b
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32, g = lane / 4, t = lane % 4;
  const size_t head = static_cast<size_t>(blockIdx.y) * n * D;
  Q += head, K += head, V += head, O += head;
  const int r0 = blockIdx.x * Br;
  const __nv_bfloat16* Q_w = Q_s + warp * 16 * MT * LDK;  // this warp's rows

  // Q's tile and K_0 through registers (a partial tile reads zeros past n); V_0 and K_1
  // stay in flight.
  tile_regs<D> k_tile;
  for (int part = 0; part < Br / Bc; ++part) {
    k_tile.fetch(Q, r0 + part * Bc, n);
    k_tile.put(Q_s + part * Bc * LDK);
  }
  k_tile.fetch(K, 0, n);
  k_tile.put(K_s);
  vt_regs<D> v_tile;
  v_tile.fetch(V, 0, n);
  if (Bc < n) k_tile.fetch(K, Bc, n);
  __syncthreads();

  acc_frag o[MT][F];
  // This lane's two rows of each row tile: running max and sum, base 2.
  float m[MT][2], l[MT][2];
#pragma unroll
  for (int mt = 0; mt < MT; ++mt) {
#pragma unroll
    for (int f = 0; f < F; ++f) wmma::fill_fragment(o[mt][f], 0.0f);
    m[mt][0] = m[mt][1] = -INFINITY;
    l[mt][0] = l[mt][1] = 0.0f;
  }

  for (int j0 = 0, b = 0; j0 < n; j0 += Bc, b ^= 1) {
    const __nv_bfloat16* K_j = K_s + b * Bc * LDK;
    // 1. S = Q_w K_j^T: s[mt][c] holds row tile mt's scores of keys j0 + 16 c ..; for each
    // 32 columns cc of d, each row tile's two Q fragments and K_j^T's two per 16 keys.
    acc_frag s[MT][Bc / 16];
#pragma unroll
    for (int mt = 0; mt < MT; ++mt)
#pragma unroll
      for (int c = 0; c < Bc / 16; ++c) wmma::fill_fragment(s[mt][c], 0.0f);
#pragma unroll
    for (int cc = 0; cc < D / 32; ++cc) {
      a_frag q[MT][2];
#pragma unroll
      for (int mt = 0; mt < MT; ++mt) fill_a_pair(q[mt], Q_w + (mt * 16 + g) * LDK + cc * 32 + t * 8, LDK);
#pragma unroll
      for (int c = 0; c < Bc / 16; ++c) {
        // K_j^T's columns are K_j's rows: a column-major B over keys 16c .. 16c + 15.
        wmma::fragment<wmma::matrix_b, 16, 16, 16, __nv_bfloat16, wmma::col_major> kt[2];
        fill_b_pair(kt, BLANK(K_pair), LDK);  // where lane (g, t)'s 16 bytes of row g start
#pragma unroll
        for (int mt = 0; mt < MT; ++mt)
#pragma unroll
          for (int h = 0; h < 2; ++h) {
            BLANK_STMT(S_mma);  // s[mt][c] += row tile mt's fragment h times kt[h]
          }
      }
    }

    // 2-3. The online softmax in registers, P_j, O re-based: one row tile at a time.
    a_frag p[MT][Bc / 16];
#pragma unroll
    for (int mt = 0; mt < MT; ++mt) softmax_tile<F>(s[mt], p[mt], o[mt], m[mt], l[mt], j0, n, lane);
    // V_j^T into buffer b (last read by P V_{j-2}) and K_{j+1} into b ^ 1 (last read by
    // S_{j-1}): every warp passed the previous barrier after both.
    v_tile.put(Vt_s + b * D * LDV);
    if (j0 + Bc < n) k_tile.put(K_s + (b ^ 1) * Bc * LDK);
    __syncthreads();  // V_j^T and K_{j+1} are in place
    if (j0 + Bc < n) v_tile.fetch(V, j0 + Bc, n);
    if (j0 + 2 * Bc < n) k_tile.fetch(K, j0 + 2 * Bc, n);

    // 4. O += P V_j: for each 16 columns f of O, V_j^T's two fragments (keys 0..15 and
    // 16..31, in P's order) from dimensions 16 f + g and 16 f + g + 8.
    const __nv_bfloat16* Vt_j = Vt_s + b * D * LDV;
#pragma unroll
    for (int f = 0; f < F; ++f) {
      wmma::fragment<wmma::matrix_b, 16, 16, 16, __nv_bfloat16, wmma::row_major> v[2];
      fill_b_pair(v, BLANK(V_pair), LDV);  // where lane (g, t)'s 16 bytes of V_j^T start
#pragma unroll
      for (int mt = 0; mt < MT; ++mt)
#pragma unroll
        for (int h = 0; h < 2; ++h) {
          BLANK_STMT(PV_mma);  // O's fragment f of row tile mt += P's block h times v[h]
        }
    }
  }

  // Normalise once, then O in bf16 through the warp's own rows of Q_s (no other warp
  // reads them), out in 16-byte rows.
#pragma unroll
  for (int mt = 0; mt < MT; ++mt) {
    __nv_bfloat16* O_s = Q_s + (warp * MT + mt) * 16 * LDK;
    const int first = r0 + (warp * MT + mt) * 16;
#pragma unroll
    for (int f = 0; f < F; ++f)
#pragma unroll
      for (int i = 0; i < 8; ++i)
        O_s[acc_row(lane, i) * LDK + f * 16 + acc_col(lane, i)] =
            __float2bfloat16(o[mt][f].x[i] / l[mt][acc_row(lane, i) / 8]);
    __syncwarp();
    for (int idx = lane; idx < 16 * D / 8; idx += 32) {
      const int r = idx / (D / 8), c = idx % (D / 8) * 8;
      if (first + r < n)
        *reinterpret_cast<uint4*>(&O[static_cast<size_t>(first + r) * D + c]) =
            *reinterpret_cast<const uint4*>(&O_s[r * LDK + c]);
    }
  }
}

template <int D>
bool launch(const __nv_bfloat16* Q, const __nv_bfloat16* K, const __nv_bfloat16* V,
            __nv_bfloat16* O, int heads, int n) {
  constexpr size_t bytes = shared_bytes<D>();
  if (cudaFuncSetAttribute(flash_wmma_kernel<D>, cudaFuncAttributeMaxDynamicSharedMemorySize,
                           static_cast<int>(bytes)) != cudaSuccess)
    return false;
  flash_wmma_kernel<D><<<dim3((n + Br - 1) / Br, heads), kThreads, bytes>>>(Q, K, V, O, n);
  return true;
}

}  // namespace

bool flash_attention_wmma_forward(const __nv_bfloat16* Q, const __nv_bfloat16* K,
                                  const __nv_bfloat16* V, __nv_bfloat16* O, int heads, int n,
                                  int d) {
  if (n < 1 || heads < 1) return false;
  switch (d) {
    case 64:
      return launch<64>(Q, K, V, O, heads, n);
    case 128:
      return launch<128>(Q, K, V, O, heads, n);
    default:
      return false;
  }
}

}  // namespace lesson13
