// Lab 4, step 2: step 1 with K_j's and V_j's loads in flight during the tensor-core work
// (the lab's solution until the twenty-fourth session; now the step before it): 4 warps of
// 16 query rows, Bc = 64, fragments through wmma::load_matrix_sync.
#include <cuda_bf16.h>
#include <cuda_runtime.h>
#include <mma.h>

#include "wmma_steps.hpp"

namespace wmma_steps {
namespace {

using namespace nvcuda;
constexpr int Br = 64, Bc = 64, kWarps = Br / 16, kThreads = 32 * kWarps;
static_assert(Br == Bc, "the Q tile reuses the K tile's loader and space");
constexpr int PAD = 8;  // bf16 elements added to each shared row (16 bytes: no bank conflicts)
constexpr float kLog2e = 1.4426950408889634f;

// Where element x[i] (i = 0..7) of lane `lane` sits in a 16 x 16 accumulator tile, and
// in a matrix_a tile too (notes §6.8 draw the layout).
__device__ __forceinline__ int acc_row(int lane, int i) {
  return lane / 4 + 8 * (i / 2 % 2);
}
__device__ __forceinline__ int acc_col(int lane, int i) { return 2 * (lane % 4) + i % 2 + 8 * (i / 4); }

// A Bc x D tile of K or V in flight: each thread's 16-byte pieces, loaded from global
// memory into registers by fetch (rows past n as zeros) and stored to shared memory (rows
// of D + PAD) by put, so that the loads overlap the tensor-core work between the two.
template <int D>
struct tile_regs {
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
  __device__ void put(__nv_bfloat16* M_s) const {
#pragma unroll
    for (int t = 0; t < N; ++t) {
      const int idx = threadIdx.x + t * kThreads, r = idx / (D / 8), c = idx % (D / 8) * 8;
      *reinterpret_cast<uint4*>(&M_s[r * (D + PAD) + c]) = piece[t];
    }
  }
};

// Shared memory: K_j, then V_j (the Q tile and the output tile pass through K_j's space).
template <int D>
constexpr size_t shared_bytes() {
  return 2 * Bc * (D + PAD) * sizeof(__nv_bfloat16);
}

// d = 64 keeps fewer registers, so 3 blocks fit on an SM; d = 128 needs all of them.
template <int D>
__global__ void __launch_bounds__(kThreads, D == 64 ? 3 : 1)
    flash_wmma_kernel(const __nv_bfloat16* __restrict__ Q, const __nv_bfloat16* __restrict__ K,
                      const __nv_bfloat16* __restrict__ V, __nv_bfloat16* __restrict__ O, int n) {
  constexpr int LDK = D + PAD, F = D / 16;  // F: fragments across d
  extern __shared__ __align__(128) unsigned char smem[];
  __nv_bfloat16* K_s = reinterpret_cast<__nv_bfloat16*>(smem);
  __nv_bfloat16* V_s = K_s + Bc * LDK;
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  const size_t head = static_cast<size_t>(blockIdx.y) * n * D;
  Q += head, K += head, V += head, O += head;
  const int r0 = blockIdx.x * Br;

  // Q_w's fragments through shared memory (a partial last tile reads zeros past n), then
  // K_0 in its place.
  wmma::fragment<wmma::matrix_a, 16, 16, 16, __nv_bfloat16, wmma::row_major> q[F];
  {
    tile_regs<D> q_tile;
    q_tile.fetch(Q, r0, n);
    q_tile.put(K_s);
  }
  __syncthreads();
  for (int f = 0; f < F; ++f) wmma::load_matrix_sync(q[f], K_s + warp * 16 * LDK + f * 16, LDK);
  __syncthreads();
  {
    tile_regs<D> k_tile;
    k_tile.fetch(K, 0, n);
    k_tile.put(K_s);
  }
  __syncthreads();

  wmma::fragment<wmma::accumulator, 16, 16, 16, float> o[F];
  for (int f = 0; f < F; ++f) wmma::fill_fragment(o[f], 0.0f);
  // This lane's two rows (h = 0: acc_row 0..7, h = 1: 8..15): running max and sum, base 2.
  float m[2] = {-INFINITY, -INFINITY}, l[2] = {0.0f, 0.0f};

  for (int j0 = 0; j0 < n; j0 += Bc) {
    tile_regs<D> v_tile;
    v_tile.fetch(V, j0, n);

    // 1. S = Q_w K_j^T: s[c] holds keys j0 + 16 c ..; d/16 products each.
    wmma::fragment<wmma::accumulator, 16, 16, 16, float> s[Bc / 16];
    for (int c = 0; c < Bc / 16; ++c) wmma::fill_fragment(s[c], 0.0f);
    for (int f = 0; f < F; ++f)
      for (int c = 0; c < Bc / 16; ++c) {
        // K_j^T's 16 x 16 block (f, c): rows f * 16.. of K_j^T are columns of K_j.
        wmma::fragment<wmma::matrix_b, 16, 16, 16, __nv_bfloat16, wmma::col_major> kt;
        wmma::load_matrix_sync(kt, K_s + c * 16 * LDK + f * 16, LDK);
        wmma::mma_sync(s[c], q[f], kt, s[c]);
      }

    // 2. The online softmax in registers: each row's max over its 4 lanes, keys past n out.
    float mx[2] = {-INFINITY, -INFINITY};
    for (int c = 0; c < Bc / 16; ++c)
      for (int i = 0; i < 8; ++i) {
        const int h = acc_row(lane, i) / 8;
        const float x = j0 + c * 16 + acc_col(lane, i) < n ? s[c].x[i] * kLog2e : -INFINITY;
        s[c].x[i] = x;
        mx[h] = fmaxf(mx[h], x);
      }
    float scale[2], p_sum[2] = {0.0f, 0.0f};
    for (int h = 0; h < 2; ++h) {
      mx[h] = fmaxf(mx[h], __shfl_xor_sync(0xffffffffu, mx[h], 1));
      mx[h] = fmaxf(mx[h], __shfl_xor_sync(0xffffffffu, mx[h], 2));
      const float m_new = fmaxf(m[h], mx[h]);
      scale[h] = exp2f(m[h] - m_new);
      m[h] = m_new;
    }
    // 3. P straight into matrix_a fragments: element i of a matrix_a tile sits where
    // element i of an accumulator tile does.
    wmma::fragment<wmma::matrix_a, 16, 16, 16, __nv_bfloat16, wmma::row_major> p[Bc / 16];
    for (int c = 0; c < Bc / 16; ++c)
      for (int i = 0; i < 8; ++i) {
        const int h = acc_row(lane, i) / 8;
        const float e = exp2f(s[c].x[i] - m[h]);
        p_sum[h] += e;
        p[c].x[i] = __float2bfloat16(e);
      }
    for (int h = 0; h < 2; ++h) {
      p_sum[h] += __shfl_xor_sync(0xffffffffu, p_sum[h], 1);
      p_sum[h] += __shfl_xor_sync(0xffffffffu, p_sum[h], 2);
      l[h] = l[h] * scale[h] + p_sum[h];
    }
    for (int f = 0; f < F; ++f)
      for (int i = 0; i < 8; ++i) {
        o[f].x[i] = o[f].x[i] * scale[acc_row(lane, i) / 8];
      }
    v_tile.put(V_s);
    __syncthreads();  // V_j is in place, and every warp is done with K_j
    const bool more = j0 + Bc < n;
    tile_regs<D> k_tile;
    if (more) k_tile.fetch(K, j0 + Bc, n);

    // 4. O += P V_j, 16 keys at a time.
    for (int k = 0; k < Bc / 16; ++k)
      for (int f = 0; f < F; ++f) {
        wmma::fragment<wmma::matrix_b, 16, 16, 16, __nv_bfloat16, wmma::row_major> v;
        wmma::load_matrix_sync(v, V_s + k * 16 * LDK + f * 16, LDK);
        wmma::mma_sync(o[f], p[k], v, o[f]);
      }
    if (more) k_tile.put(K_s);
    __syncthreads();  // K_{j+1} is in place, and every warp is done with V_j
  }

  // Normalise once, then O in bf16 through the warp's 16 rows of K_s (free now), out in
  // 16-byte rows.
  __nv_bfloat16* O_s = K_s + warp * 16 * LDK;
  for (int f = 0; f < F; ++f)
    for (int i = 0; i < 8; ++i)
      O_s[acc_row(lane, i) * LDK + f * 16 + acc_col(lane, i)] =
          __float2bfloat16(o[f].x[i] / l[acc_row(lane, i) / 8]);
  __syncwarp();
  for (int idx = lane; idx < 16 * D / 8; idx += 32) {
    const int r = idx / (D / 8), c = idx % (D / 8) * 8;
    if (r0 + warp * 16 + r < n)
      *reinterpret_cast<uint4*>(&O[static_cast<size_t>(r0 + warp * 16 + r) * D + c]) =
          *reinterpret_cast<const uint4*>(&O_s[r * LDK + c]);
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

bool wmma_step2_loads(const __nv_bfloat16* Q, const __nv_bfloat16* K, const __nv_bfloat16* V,
                      __nv_bfloat16* O, int heads, int n, int d) {
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

}  // namespace wmma_steps
