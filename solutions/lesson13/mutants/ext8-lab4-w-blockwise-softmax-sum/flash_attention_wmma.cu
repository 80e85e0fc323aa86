// Wrong submission for lab 4 (mutant ext8-lab4-w-blockwise-softmax-sum), a student's rewrite
// with K_j staged transposed (a row_major B fragment of K_j^T) and a whole warp per softmax
// row. The misconception: each key tile gets its own finished softmax, its max and its sum
// taken inside the tile (P = exp(s - m_tile) / l_tile), and O simply adds up P_j V_j over
// the tiles. No running max, no re-basing of O by exp(m_old - m_new), no final division:
// right while there is one key tile (n <= 64), but with several tiles each row is the sum
// of the tiles' separate softmax averages, the blockwise concatenation.
#include <cuda_bf16.h>
#include <cuda_runtime.h>
#include <mma.h>

#include "flash_attention_wmma.hpp"

namespace lesson13 {
namespace {

using namespace nvcuda;

constexpr int kBr = 64, kBc = 64, kNW = 4, kNT = 128;
constexpr int kLdT = kBc + 8;   // K_j^T: a row of 64 keys plus 8 (bf16)
constexpr int kLdS = kBc + 4;   // scores (float)
constexpr int kLdP = kBc + 8;   // P (bf16)
constexpr unsigned kFull = 0xffffffffu;

template <int D>
struct Plan {
  static constexpr int ldr = D + 8;      // Q_i and V_j rows (bf16)
  static constexpr int ldo = D + 4;      // the output tile (float)
  static constexpr size_t q = size_t(kBr) * ldr * 2;
  static constexpr size_t kt = size_t(D) * kLdT * 2;
  static constexpr size_t v = size_t(kBc) * ldr * 2;
  static constexpr size_t s = size_t(16) * kLdS * 4;  // per warp from here on
  static constexpr size_t p = size_t(16) * kLdP * 2;
  static constexpr size_t o = size_t(16) * ldo * 4;
  static constexpr size_t per_warp = s + p + o;
  static constexpr size_t total = q + kt + v + kNW * per_warp;
};

__device__ __forceinline__ float warp_max(float v) {
  for (int o = 16; o > 0; o >>= 1) v = fmaxf(v, __shfl_xor_sync(kFull, v, o));
  return v;
}
__device__ __forceinline__ float warp_sum(float v) {
  for (int o = 16; o > 0; o >>= 1) v += __shfl_xor_sync(kFull, v, o);
  return v;
}

template <int D>
__global__ void __launch_bounds__(kNT)
    fa_wmma_kt(const __nv_bfloat16* __restrict__ Q, const __nv_bfloat16* __restrict__ K,
               const __nv_bfloat16* __restrict__ V, __nv_bfloat16* __restrict__ O, int n) {
  using P = Plan<D>;
  constexpr int ldr = P::ldr, ldo = P::ldo, F = D / 16;
  extern __shared__ __align__(128) unsigned char sm[];
  const int wp = threadIdx.x / 32, ln = threadIdx.x % 32;
  __nv_bfloat16* qs = reinterpret_cast<__nv_bfloat16*>(sm);
  __nv_bfloat16* kts = reinterpret_cast<__nv_bfloat16*>(sm + P::q);
  __nv_bfloat16* vs = reinterpret_cast<__nv_bfloat16*>(sm + P::q + P::kt);
  unsigned char* own = sm + P::q + P::kt + P::v + wp * P::per_warp;
  float* ss = reinterpret_cast<float*>(own);
  __nv_bfloat16* ps = reinterpret_cast<__nv_bfloat16*>(own + P::s);
  float* os = reinterpret_cast<float*>(own + P::s + P::p);

  const size_t hd = size_t(blockIdx.y) * n * D;
  const int i0 = blockIdx.x * kBr;

  // Q_i and V_j: row by row, 16 bytes a thread, zero rows past n.
  auto stage_rows = [&](const __nv_bfloat16* src, __nv_bfloat16* dst, int from) {
    for (int u = threadIdx.x; u < 64 * (D / 8); u += kNT) {
      const int r = u / (D / 8), c = u % (D / 8) * 8;
      uint4 x = make_uint4(0u, 0u, 0u, 0u);
      if (from + r < n) x = *reinterpret_cast<const uint4*>(src + hd + size_t(from + r) * D + c);
      *reinterpret_cast<uint4*>(dst + r * ldr + c) = x;
    }
  };
  // K_j transposed: key r's 8 elements c.. go down column r of K_j^T.
  auto stage_kt = [&](int from) {
    for (int u = threadIdx.x; u < kBc * (D / 8); u += kNT) {
      const int r = u / (D / 8), c = u % (D / 8) * 8;
      uint4 x = make_uint4(0u, 0u, 0u, 0u);
      if (from + r < n) x = *reinterpret_cast<const uint4*>(K + hd + size_t(from + r) * D + c);
      const __nv_bfloat16* e = reinterpret_cast<const __nv_bfloat16*>(&x);
      for (int k = 0; k < 8; ++k) kts[(c + k) * kLdT + r] = e[k];
    }
  };

  stage_rows(Q, qs, i0);
  __syncthreads();
  wmma::fragment<wmma::matrix_a, 16, 16, 16, __nv_bfloat16, wmma::row_major> qf[F];
  for (int f = 0; f < F; ++f) wmma::load_matrix_sync(qf[f], qs + wp * 16 * ldr + f * 16, ldr);

  wmma::fragment<wmma::accumulator, 16, 16, 16, float> of[F];
  for (int f = 0; f < F; ++f) wmma::fill_fragment(of[f], 0.0f);

  for (int j0 = 0; j0 < n; j0 += kBc) {
    stage_kt(j0);
    stage_rows(V, vs, j0);
    __syncthreads();

    for (int c = 0; c < kBc / 16; ++c) {
      wmma::fragment<wmma::accumulator, 16, 16, 16, float> sf;
      wmma::fill_fragment(sf, 0.0f);
      for (int f = 0; f < F; ++f) {
        wmma::fragment<wmma::matrix_b, 16, 16, 16, __nv_bfloat16, wmma::row_major> bf;
        wmma::load_matrix_sync(bf, kts + f * 16 * kLdT + c * 16, kLdT);  // K_j^T rows f*16.., keys c*16..
        wmma::mma_sync(sf, qf[f], bf, sf);
      }
      wmma::store_matrix_sync(ss + c * 16, sf, kLdS, wmma::mem_row_major);
    }
    __syncwarp();

    const int cnt = min(kBc, n - j0);
    // Row r's softmax over this tile: its own max, its own sum, P already normalised.
    for (int r = 0; r < 16; ++r) {
      const float a = ln < cnt ? ss[r * kLdS + ln] : -INFINITY;
      const float b = ln + 32 < cnt ? ss[r * kLdS + ln + 32] : -INFINITY;
      const float m_tile = warp_max(fmaxf(a, b));
      const float ea = expf(a - m_tile), eb = expf(b - m_tile);
      const float inv = 1.0f / warp_sum(ea + eb);
      ps[r * kLdP + ln] = __float2bfloat16(ea * inv);
      ps[r * kLdP + ln + 32] = __float2bfloat16(eb * inv);
    }
    __syncwarp();

    // O += P_j V_j: each tile's softmax-weighted rows of V, accumulated.
    for (int c = 0; c < kBc / 16; ++c) {
      wmma::fragment<wmma::matrix_a, 16, 16, 16, __nv_bfloat16, wmma::row_major> pf;
      wmma::load_matrix_sync(pf, ps + c * 16, kLdP);
      for (int f = 0; f < F; ++f) {
        wmma::fragment<wmma::matrix_b, 16, 16, 16, __nv_bfloat16, wmma::row_major> vf;
        wmma::load_matrix_sync(vf, vs + c * 16 * ldr + f * 16, ldr);
        wmma::mma_sync(of[f], pf, vf, of[f]);
      }
    }
    __syncthreads();
  }

  // P was normalised tile by tile, so O needs no division here.
  for (int f = 0; f < F; ++f) wmma::store_matrix_sync(os + f * 16, of[f], ldo, wmma::mem_row_major);
  __syncwarp();
  const int row0 = i0 + wp * 16;
  for (int r = 0; r < 16 && row0 + r < n; ++r)
    for (int c = 4 * ln; c < D; c += 128) {
      const float* src = os + r * ldo + c;
      uint2 pk;
      pk.x = unsigned(__bfloat16_as_ushort(__float2bfloat16(src[0]))) |
             (unsigned(__bfloat16_as_ushort(__float2bfloat16(src[1]))) << 16);
      pk.y = unsigned(__bfloat16_as_ushort(__float2bfloat16(src[2]))) |
             (unsigned(__bfloat16_as_ushort(__float2bfloat16(src[3]))) << 16);
      *reinterpret_cast<uint2*>(O + hd + size_t(row0 + r) * D + c) = pk;
    }
}

template <int D>
bool launch_kt(const __nv_bfloat16* Q, const __nv_bfloat16* K, const __nv_bfloat16* V,
               __nv_bfloat16* O, int heads, int n) {
  const int bytes = int(Plan<D>::total);
  if (cudaFuncSetAttribute(fa_wmma_kt<D>, cudaFuncAttributeMaxDynamicSharedMemorySize, bytes) !=
      cudaSuccess)
    return false;
  fa_wmma_kt<D><<<dim3((n + kBr - 1) / kBr, heads), kNT, bytes>>>(Q, K, V, O, n);
  return true;
}

}  // namespace

bool flash_attention_wmma_forward(const __nv_bfloat16* Q, const __nv_bfloat16* K,
                                  const __nv_bfloat16* V, __nv_bfloat16* O, int heads, int n,
                                  int d) {
  if (n < 1 || heads < 1) return false;
  if (d == 64) return launch_kt<64>(Q, K, V, O, heads, n);
  if (d == 128) return launch_kt<128>(Q, K, V, O, heads, n);
  return false;
}

}  // namespace lesson13
