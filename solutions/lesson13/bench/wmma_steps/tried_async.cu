// Tried on top of tried-lean-8w (timed by wmma_steps.cu; GPU only: the course's emulator has
// no cp.async): K_j copied into shared memory by cp.async, untouched, so no registers hold
// it on the way and no thread stores it. The permutation that makes each of K's B
// fragments one 16-byte shared load moves from K_j's columns to Q's: S = Q K^T sums over d
// in any order that Q's and K's fragments share, so Q's A fragments take d in the order of
// tried_permuted.hpp's perm(), loaded once, straight from global memory. V_j^T is still
// stored by the threads (the transpose), and its loads are in flight during P V_j.

#include "tried_permuted.hpp"
#include "wmma_steps.hpp"

namespace wmma_steps {
namespace async {
using namespace nvcuda;
using permuted::Bc;
using permuted::LDV;
using permuted::PAD;
using permuted2::a_t;
using permuted2::acc_t;
using permuted2::NB;
constexpr int W = 8, kThreads = 32 * W, Br = 16 * W;

// The warp's Q rows `first` .. + 15 as A fragments with d permuted (see the top): lane
// (g, t) reads 16 bytes at column 32 cc + 8 t of rows g and g + 8 for fragments 2 cc and
// 2 cc + 1 (the layout that permuted::load_pair gives B).
template <int D>
__device__ __forceinline__ void load_q(a_t (&q)[D / 16], const __nv_bfloat16* Q, int first, int n,
                                       int g, int t) {
#pragma unroll
  for (int cc = 0; cc < D / 32; ++cc) {
    const uint4 z = make_uint4(0, 0, 0, 0);
    const uint4 x = first + g < n ? *reinterpret_cast<const uint4*>(&Q[size_t(first + g) * D + 32 * cc + 8 * t]) : z;
    const uint4 y = first + g + 8 < n
                        ? *reinterpret_cast<const uint4*>(&Q[size_t(first + g + 8) * D + 32 * cc + 8 * t])
                        : z;
    uint32_t* f0 = reinterpret_cast<uint32_t*>(&q[2 * cc].x[0]);
    uint32_t* f1 = reinterpret_cast<uint32_t*>(&q[2 * cc + 1].x[0]);
    f0[0] = x.x, f0[1] = y.x, f0[2] = x.y, f0[3] = y.y;
    f1[0] = x.z, f1[1] = y.z, f1[2] = x.w, f1[3] = y.w;
  }
}

template <int D>
__global__ void __launch_bounds__(kThreads, 1)
    kernel(const __nv_bfloat16* __restrict__ Q, const __nv_bfloat16* __restrict__ K,
           const __nv_bfloat16* __restrict__ V, __nv_bfloat16* __restrict__ O, int n) {
  constexpr int LDK = D + PAD, F = D / 16;
  constexpr int BUF = Bc * LDK + D * LDV;  // one K_j and one V_j^T
  extern __shared__ __align__(128) unsigned char smem[];
  __nv_bfloat16* base = reinterpret_cast<__nv_bfloat16*>(smem);
  auto K_s = [&](int b) { return base + b * BUF; };
  auto Vt_s = [&](int b) { return base + b * BUF + Bc * LDK; };
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32, g = lane / 4, t = lane % 4;
  const size_t head = static_cast<size_t>(blockIdx.y) * n * D;
  Q += head, K += head, V += head, O += head;
  const int r0 = blockIdx.x * Br;

  permuted2::copy_rows<D, Bc, kThreads>(K_s(0), K, 0, n);
  permuted2::v_tile_w<D, W> v_regs;
  v_regs.fetch(V, 0, n);
  a_t q[F];
  load_q<D>(q, Q, r0 + warp * 16, n, g, t);
  __pipeline_wait_prior(0);
  __syncthreads();

  acc_t o[F];
  for (int f = 0; f < F; ++f) wmma::fill_fragment(o[f], 0.0f);
  float m[2] = {-INFINITY, -INFINITY}, l[2] = {0.0f, 0.0f}, scale[2];
  // Tile j: K_{j+1} copies into buffer b ^ 1 (last read by S_{j-1}, before the previous
  // barrier) while S_j reads b; V_j^T is stored into b (last read by P V_{j-2}).
  for (int j0 = 0, b = 0; j0 < n; j0 += Bc, b ^= 1) {
    if (j0 + Bc < n) permuted2::copy_rows<D, Bc, kThreads>(K_s(b ^ 1), K, j0 + Bc, n);
    acc_t s[NB];
    permuted2::scores<D, false>(s, q, K_s(b), g, t);
    if (j0 + Bc > n) permuted2::mask(s, n - j0, lane);
    a_t p[NB];
    permuted2::softmax(s, p, m, l, scale, lane);
#pragma unroll
    for (int f = 0; f < F; ++f)
#pragma unroll
      for (int i = 0; i < 8; ++i) o[f].x[i] *= scale[i / 2 % 2];
    v_regs.put(Vt_s(b));
    __pipeline_wait_prior(0);
    __syncthreads();
    if (j0 + Bc < n) v_regs.fetch(V, j0 + Bc, n);
    permuted2::add_pv<D>(o, p, Vt_s(b), g, t);
  }
  __syncthreads();  // every warp is done with the buffers before O passes through them
  permuted::write_out<D>(o, l, base + warp * 16 * LDK, O, r0 + warp * 16, n, lane);
}

template <int D>
bool launch(const __nv_bfloat16* Q, const __nv_bfloat16* K, const __nv_bfloat16* V,
            __nv_bfloat16* O, int heads, int n) {
  constexpr size_t elems = 2 * (Bc * (D + PAD) + D * LDV);
  static_assert(elems >= size_t(Br) * (D + PAD), "O passes through the buffers");
  constexpr size_t bytes = elems * sizeof(__nv_bfloat16);
  if (cudaFuncSetAttribute(kernel<D>, cudaFuncAttributeMaxDynamicSharedMemorySize,
                           static_cast<int>(bytes)) != cudaSuccess)
    return false;
  kernel<D><<<dim3((n + Br - 1) / Br, heads), kThreads, bytes>>>(Q, K, V, O, n);
  return true;
}
}  // namespace async

bool wmma_tried_async_k(const __nv_bfloat16* Q, const __nv_bfloat16* K, const __nv_bfloat16* V,
                        __nv_bfloat16* O, int heads, int n, int d) {
  if (n < 1 || heads < 1) return false;
  if (d == 64) return async::launch<64>(Q, K, V, O, heads, n);
  if (d == 128) return async::launch<128>(Q, K, V, O, heads, n);
  return false;
}

}  // namespace wmma_steps
