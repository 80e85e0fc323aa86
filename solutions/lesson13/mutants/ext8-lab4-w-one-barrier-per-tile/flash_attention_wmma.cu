// Wrong submission for lab 4 (mutant ext8-lab4-w-one-barrier-per-tile), a student's
// rewrite with 2 warps of 32 query rows, one lane per softmax row and O kept as floats in
// shared memory (loaded into accumulators, P V_j added with mma_sync, stored back). The
// student keeps a __syncthreads after the softmax (needed there: other lanes then read
// the rows of O each lane re-based) and, thinking that barrier also covers the next tile,
// drops the one at the end of the loop. But P V_j reads V_j after that barrier: a warp
// that finishes first restages K and V for the next tile while the other warp still loads
// V_j's fragments, a read/write race on v_tile whenever there are two key tiles or more.
#include <cuda_bf16.h>
#include <cuda_runtime.h>
#include <mma.h>

#include "flash_attention_wmma.hpp"

namespace lesson13 {
namespace {

namespace wm = nvcuda::wmma;

constexpr int kTileQ = 64, kTileK = 64, kWarpRows = 32;
constexpr int kNumWarps = kTileQ / kWarpRows, kThreadsPerBlock = 32 * kNumWarps;
constexpr int kSLd = kTileK + 4;  // floats a score row
constexpr int kPLd = kTileK + 8;  // bf16 a probability row
constexpr float kToBase2 = 1.4426950408889634f;

template <int D>
struct Smem {
  static constexpr int ld = D + 8;   // Q, K, V rows (bf16)
  static constexpr int old = D + 4;  // O rows (float)
  static constexpr size_t tile = size_t(kTileQ) * ld * 2;
  static constexpr size_t s_warp = size_t(kWarpRows) * kSLd * 4;
  static constexpr size_t p_warp = size_t(kWarpRows) * kPLd * 2;
  static constexpr size_t o_warp = size_t(kWarpRows) * old * 4;
  static constexpr size_t bytes = 3 * tile + kNumWarps * (s_warp + p_warp + o_warp);
};

template <int D>
__global__ void __launch_bounds__(kThreadsPerBlock)
    flash_two_warps(const __nv_bfloat16* __restrict__ Q, const __nv_bfloat16* __restrict__ K,
                    const __nv_bfloat16* __restrict__ V, __nv_bfloat16* __restrict__ O, int n) {
  using S = Smem<D>;
  constexpr int ld = S::ld, old = S::old, nf = D / 16;
  extern __shared__ __align__(128) unsigned char pool[];
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  __nv_bfloat16* q_tile = reinterpret_cast<__nv_bfloat16*>(pool);
  __nv_bfloat16* k_tile = reinterpret_cast<__nv_bfloat16*>(pool + S::tile);
  __nv_bfloat16* v_tile = reinterpret_cast<__nv_bfloat16*>(pool + 2 * S::tile);
  unsigned char* mine = pool + 3 * S::tile + warp * (S::s_warp + S::p_warp + S::o_warp);
  float* s_w = reinterpret_cast<float*>(mine);
  __nv_bfloat16* p_w = reinterpret_cast<__nv_bfloat16*>(mine + S::s_warp);
  float* o_w = reinterpret_cast<float*>(mine + S::s_warp + S::p_warp);

  const size_t base = static_cast<size_t>(blockIdx.y) * n * D;
  const int q_first = blockIdx.x * kTileQ;
  const int w_first = q_first + warp * kWarpRows;  // this warp's first query row

  auto fill = [&](const __nv_bfloat16* src, __nv_bfloat16* dst, int from) {
    for (int idx = threadIdx.x; idx < 64 * (D / 8); idx += kThreadsPerBlock) {
      const int r = idx / (D / 8), c = (idx % (D / 8)) * 8;
      uint4 chunk = make_uint4(0u, 0u, 0u, 0u);
      if (from + r < n) chunk = *reinterpret_cast<const uint4*>(src + base + static_cast<size_t>(from + r) * D + c);
      *reinterpret_cast<uint4*>(dst + r * ld + c) = chunk;
    }
  };

  fill(Q, q_tile, q_first);
  for (int c = 0; c < D; ++c) o_w[lane * old + c] = 0.0f;  // lane r owns row r of O
  float m_row = -INFINITY, l_row = 0.0f;
  const __nv_bfloat16* q_w = q_tile + warp * kWarpRows * ld;

  for (int k_first = 0; k_first < n; k_first += kTileK) {
    fill(K, k_tile, k_first);
    fill(V, v_tile, k_first);
    __syncthreads();

    // S (32 x 64) = Q_w K_j^T: two row fragments times four key fragments.
    for (int rf = 0; rf < 2; ++rf)
      for (int kc = 0; kc < kTileK / 16; ++kc) {
        wm::fragment<wm::accumulator, 16, 16, 16, float> sf;
        wm::fill_fragment(sf, 0.0f);
        for (int f = 0; f < nf; ++f) {
          wm::fragment<wm::matrix_a, 16, 16, 16, __nv_bfloat16, wm::row_major> qf;
          wm::fragment<wm::matrix_b, 16, 16, 16, __nv_bfloat16, wm::col_major> kf;
          wm::load_matrix_sync(qf, q_w + rf * 16 * ld + f * 16, ld);
          wm::load_matrix_sync(kf, k_tile + kc * 16 * ld + f * 16, ld);
          wm::mma_sync(sf, qf, kf, sf);
        }
        wm::store_matrix_sync(s_w + rf * 16 * kSLd + kc * 16, sf, kSLd, wm::mem_row_major);
      }
    __syncwarp();

    // Row `lane`: its max, the new weights, its sum, and its row of O re-based.
    const int valid = min(kTileK, n - k_first);
    const float* srow = s_w + lane * kSLd;
    float tile_max = -INFINITY;
    for (int c = 0; c < valid; ++c) tile_max = fmaxf(tile_max, srow[c] * kToBase2);
    const float m_new = fmaxf(m_row, tile_max);
    const float rebase = exp2f(m_row - m_new);
    float tile_sum = 0.0f;
    for (int c = 0; c < kTileK; ++c) {
      const float p = c < valid ? exp2f(srow[c] * kToBase2 - m_new) : 0.0f;
      tile_sum += p;
      p_w[lane * kPLd + c] = __float2bfloat16(p);
    }
    l_row = l_row * rebase + tile_sum;
    m_row = m_new;
    for (int c = 0; c < D; ++c) o_w[lane * old + c] *= rebase;
    // The rows of o_w I re-based are next read and rewritten by other lanes (the
    // accumulators' layout): a block barrier to be safe.
    __syncthreads();

    // O_w += P V_j, block by block, through accumulators loaded from and stored to o_w.
    for (int rf = 0; rf < 2; ++rf)
      for (int f = 0; f < nf; ++f) {
        wm::fragment<wm::accumulator, 16, 16, 16, float> of;
        wm::load_matrix_sync(of, o_w + rf * 16 * old + f * 16, old, wm::mem_row_major);
        for (int kc = 0; kc < kTileK / 16; ++kc) {
          wm::fragment<wm::matrix_a, 16, 16, 16, __nv_bfloat16, wm::row_major> pf;
          wm::fragment<wm::matrix_b, 16, 16, 16, __nv_bfloat16, wm::row_major> vf;
          wm::load_matrix_sync(pf, p_w + rf * 16 * kPLd + kc * 16, kPLd);
          wm::load_matrix_sync(vf, v_tile + kc * 16 * ld + f * 16, ld);
          wm::mma_sync(of, pf, vf, of);
        }
        wm::store_matrix_sync(o_w + rf * 16 * old + f * 16, of, old, wm::mem_row_major);
      }
    // (no barrier here: the one after the softmax already keeps the warps together)
  }
  __syncthreads();  // every warp's last P V_j stored before the rows are normalised

  const float inv = 1.0f / l_row;
  for (int c = 0; c < D; ++c) o_w[lane * old + c] *= inv;
  __syncwarp();
  for (int r = 0; r < kWarpRows && w_first + r < n; ++r)
    for (int c = 2 * lane; c < D; c += 64) {
      const unsigned a = __bfloat16_as_ushort(__float2bfloat16(o_w[r * old + c]));
      const unsigned b = __bfloat16_as_ushort(__float2bfloat16(o_w[r * old + c + 1]));
      *reinterpret_cast<unsigned*>(O + base + static_cast<size_t>(w_first + r) * D + c) = a | (b << 16);
    }
}

template <int D>
bool launch_two_warps(const __nv_bfloat16* Q, const __nv_bfloat16* K, const __nv_bfloat16* V,
                      __nv_bfloat16* O, int heads, int n) {
  const int bytes = static_cast<int>(Smem<D>::bytes);
  if (cudaFuncSetAttribute(flash_two_warps<D>, cudaFuncAttributeMaxDynamicSharedMemorySize, bytes) !=
      cudaSuccess)
    return false;
  flash_two_warps<D><<<dim3((n + kTileQ - 1) / kTileQ, heads), kThreadsPerBlock, bytes>>>(Q, K, V, O, n);
  return true;
}

}  // namespace

bool flash_attention_wmma_forward(const __nv_bfloat16* Q, const __nv_bfloat16* K,
                                  const __nv_bfloat16* V, __nv_bfloat16* O, int heads, int n,
                                  int d) {
  if (n < 1 || heads < 1) return false;
  if (d == 64) return launch_two_warps<64>(Q, K, V, O, heads, n);
  if (d == 128) return launch_two_warps<128>(Q, K, V, O, heads, n);
  return false;
}

}  // namespace lesson13
