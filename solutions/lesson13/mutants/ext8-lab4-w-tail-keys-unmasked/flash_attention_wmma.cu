// Wrong submission for lab 4 (mutant ext8-lab4-w-tail-keys-unmasked), a student's rewrite
// in the "FlashAttention-2 in registers" style (Bc = 32, S and P never leave registers):
// the student drops the mask of keys past n, reasoning that the staged rows past n are
// zeros, so those keys "add nothing". Their V rows are zeros indeed, but their scores are
// 0, not -inf: each such key still adds exp(0 - m) to the row's sum l, so every row is
// divided by too large an l whenever n is not a multiple of 32 (n = 64, 128, 96 stay right).
#include <cuda_bf16.h>
#include <cuda_runtime.h>
#include <mma.h>

#include "flash_attention_wmma.hpp"

namespace lesson13 {
namespace {

using namespace nvcuda;
typedef __nv_bfloat16 bf;

constexpr int QROWS = 64, KEYS = 32, NWARP = 4, NTHREAD = 128;
constexpr int PADDING = 8;
constexpr float LOG2E = 1.4426950408889634f;

typedef wmma::fragment<wmma::matrix_a, 16, 16, 16, bf, wmma::row_major> a_frag;
typedef wmma::fragment<wmma::matrix_b, 16, 16, 16, bf, wmma::col_major> bt_frag;
typedef wmma::fragment<wmma::matrix_b, 16, 16, 16, bf, wmma::row_major> b_frag;
typedef wmma::fragment<wmma::accumulator, 16, 16, 16, float> c_frag;

// sm_80 accumulator / matrix_a layout: element i of lane (4 g + t).
__device__ __forceinline__ int frag_row(int lane, int i) { return (lane >> 2) + ((i & 2) << 2); }
__device__ __forceinline__ int frag_col(int lane, int i) { return ((lane & 3) << 1) + (i & 1) + ((i & 4) << 1); }

template <int D>
constexpr size_t bytes_needed() {
  // K_j and V_j: 32 rows each; after the loop the 64 rows together hold the block's O.
  return size_t(2) * KEYS * (D + PADDING) * sizeof(bf);
}

template <int D>
__global__ void __launch_bounds__(NTHREAD)
    flash_regs(const bf* __restrict__ Q, const bf* __restrict__ K, const bf* __restrict__ V,
               bf* __restrict__ O, int n) {
  constexpr int LDM = D + PADDING, NF = D / 16;
  extern __shared__ __align__(128) unsigned char raw[];
  bf* kt = reinterpret_cast<bf*>(raw);
  bf* vt = kt + KEYS * LDM;
  const int w = threadIdx.x / 32, lane = threadIdx.x % 32;
  const size_t hoff = size_t(blockIdx.y) * n * D;
  Q += hoff;
  K += hoff;
  V += hoff;
  O += hoff;
  const int first_row = blockIdx.x * QROWS;

  auto stage = [&](const bf* g, bf* s, int row0, int rows) {
    for (int e = threadIdx.x; e < rows * D / 8; e += NTHREAD) {
      const int r = e / (D / 8), c = e % (D / 8) * 8;
      uint4 u = make_uint4(0u, 0u, 0u, 0u);
      if (row0 + r < n) u = *reinterpret_cast<const uint4*>(g + size_t(row0 + r) * D + c);
      *reinterpret_cast<uint4*>(s + r * LDM + c) = u;
    }
  };

  // The Q tile (64 rows) fills K's and V's 32 + 32 rows for a moment.
  stage(Q, kt, first_row, QROWS);
  __syncthreads();
  a_frag qa[NF];
  for (int f = 0; f < NF; ++f) wmma::load_matrix_sync(qa[f], kt + w * 16 * LDM + f * 16, LDM);
  __syncthreads();

  c_frag acc[NF];
  for (int f = 0; f < NF; ++f) wmma::fill_fragment(acc[f], 0.0f);
  float mx[2] = {-INFINITY, -INFINITY}, sum[2] = {0.0f, 0.0f};

  for (int key0 = 0; key0 < n; key0 += KEYS) {
    stage(K, kt, key0, KEYS);
    stage(V, vt, key0, KEYS);
    __syncthreads();

    c_frag s[KEYS / 16];
    for (int c = 0; c < KEYS / 16; ++c) {
      wmma::fill_fragment(s[c], 0.0f);
      for (int f = 0; f < NF; ++f) {
        bt_frag b;
        wmma::load_matrix_sync(b, kt + c * 16 * LDM + f * 16, LDM);
        wmma::mma_sync(s[c], qa[f], b, s[c]);
      }
    }

    // Scores to base 2; each lane's max of its two rows. (Keys past n were staged as zero
    // rows, so their V rows are zero too: no need to mask them.)
    float tmax[2] = {-INFINITY, -INFINITY};
    for (int c = 0; c < KEYS / 16; ++c)
      for (int i = 0; i < 8; ++i) {
        const float v = s[c].x[i] * LOG2E;
        s[c].x[i] = v;
        tmax[(i >> 1) & 1] = fmaxf(tmax[(i >> 1) & 1], v);
      }
    float factor[2];
    for (int h = 0; h < 2; ++h) {
      tmax[h] = fmaxf(tmax[h], __shfl_xor_sync(0xffffffffu, tmax[h], 1));
      tmax[h] = fmaxf(tmax[h], __shfl_xor_sync(0xffffffffu, tmax[h], 2));
      const float mnew = fmaxf(mx[h], tmax[h]);
      factor[h] = exp2f(mx[h] - mnew);
      mx[h] = mnew;
    }

    a_frag p[KEYS / 16];
    float tsum[2] = {0.0f, 0.0f};
    for (int c = 0; c < KEYS / 16; ++c)
      for (int i = 0; i < 8; ++i) {
        const float e = exp2f(s[c].x[i] - mx[(i >> 1) & 1]);
        tsum[(i >> 1) & 1] += e;
        p[c].x[i] = __float2bfloat16(e);
      }
    for (int h = 0; h < 2; ++h) {
      tsum[h] += __shfl_xor_sync(0xffffffffu, tsum[h], 1);
      tsum[h] += __shfl_xor_sync(0xffffffffu, tsum[h], 2);
      sum[h] = sum[h] * factor[h] + tsum[h];
    }

    for (int f = 0; f < NF; ++f) {
      for (int i = 0; i < 8; ++i) acc[f].x[i] *= factor[(i >> 1) & 1];
      for (int c = 0; c < KEYS / 16; ++c) {
        b_frag vb;
        wmma::load_matrix_sync(vb, vt + c * 16 * LDM + f * 16, LDM);
        wmma::mma_sync(acc[f], p[c], vb, acc[f]);
      }
    }
    __syncthreads();  // before the next tile (or O) overwrites kt and vt
  }

  // O / l, to bf16, into rows w * 16.. of the 64-row buffer kt|vt, then out in 16-byte rows.
  for (int f = 0; f < NF; ++f)
    for (int i = 0; i < 8; ++i) {
      const int r = w * 16 + frag_row(lane, i);
      kt[r * LDM + f * 16 + frag_col(lane, i)] = __float2bfloat16(acc[f].x[i] / sum[(i >> 1) & 1]);
    }
  __syncthreads();
  for (int e = threadIdx.x; e < QROWS * D / 8; e += NTHREAD) {
    const int r = e / (D / 8), c = e % (D / 8) * 8;
    if (first_row + r < n)
      *reinterpret_cast<uint4*>(O + size_t(first_row + r) * D + c) =
          *reinterpret_cast<const uint4*>(kt + r * LDM + c);
  }
}

template <int D>
bool start(const bf* Q, const bf* K, const bf* V, bf* O, int heads, int n) {
  constexpr size_t bytes = bytes_needed<D>();
  if (cudaFuncSetAttribute(flash_regs<D>, cudaFuncAttributeMaxDynamicSharedMemorySize, int(bytes)) !=
      cudaSuccess)
    return false;
  flash_regs<D><<<dim3((n + QROWS - 1) / QROWS, heads), NTHREAD, bytes>>>(Q, K, V, O, n);
  return true;
}

}  // namespace

bool flash_attention_wmma_forward(const __nv_bfloat16* Q, const __nv_bfloat16* K,
                                  const __nv_bfloat16* V, __nv_bfloat16* O, int heads, int n,
                                  int d) {
  if (n <= 0 || heads <= 0) return false;
  if (d == 64) return start<64>(Q, K, V, O, heads, n);
  if (d == 128) return start<128>(Q, K, V, O, heads, n);
  return false;
}

}  // namespace lesson13
