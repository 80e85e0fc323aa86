// Lab 4, step 1: S stays in its accumulator fragments and the online softmax runs there
// (a lane holds 2 rows, the 4 lanes of a row meet through shuffles), P becomes matrix_a
// fragments element by element (the layouts are the same), so only K_j and V_j pass
// through shared memory; they are still copied in before any work on them starts.
#include <cuda_bf16.h>
#include <cuda_runtime.h>
#include <mma.h>
#include "wmma_steps.hpp"

namespace wmma_steps {
namespace {
using namespace nvcuda;
constexpr int Bc = 64, PAD = 8;
constexpr float kLog2e = 1.4426950408889634f;

template <int D, int W>
__device__ void stage(const __nv_bfloat16* M, __nv_bfloat16* M_s, int first, int n) {
  for (int idx = threadIdx.x; idx < Bc * D / 8; idx += 32 * W) {
    const int r = idx / (D / 8), c = idx % (D / 8) * 8;
    uint4 v = make_uint4(0, 0, 0, 0);
    if (first + r < n)
      v = *reinterpret_cast<const uint4*>(&M[static_cast<size_t>(first + r) * D + c]);
    *reinterpret_cast<uint4*>(&M_s[r * (D + PAD) + c]) = v;
  }
}
template <int D, int W, int R>
__device__ void stage_rows(const __nv_bfloat16* M, __nv_bfloat16* M_s, int first, int n) {
  for (int idx = threadIdx.x; idx < R * D / 8; idx += 32 * W) {
    const int r = idx / (D / 8), c = idx % (D / 8) * 8;
    uint4 v = make_uint4(0, 0, 0, 0);
    if (first + r < n)
      v = *reinterpret_cast<const uint4*>(&M[static_cast<size_t>(first + r) * D + c]);
    *reinterpret_cast<uint4*>(&M_s[r * (D + PAD) + c]) = v;
  }
}

template <int D, int W>
constexpr size_t shared_bytes() {
  constexpr int rows = 2 * Bc > 16 * W ? 2 * Bc : 16 * W;
  return size_t(rows) * (D + PAD) * sizeof(__nv_bfloat16);
}

template <int D, int W>
__global__ void __launch_bounds__(32 * W)
    kernel(const __nv_bfloat16* __restrict__ Q, const __nv_bfloat16* __restrict__ K,
           const __nv_bfloat16* __restrict__ V, __nv_bfloat16* __restrict__ O, int n) {
  constexpr int LDK = D + PAD, F = D / 16, Br = 16 * W;
  extern __shared__ __align__(128) unsigned char smem[];
  __nv_bfloat16* K_s = reinterpret_cast<__nv_bfloat16*>(smem);
  __nv_bfloat16* V_s = K_s + Bc * LDK;
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  const size_t head = static_cast<size_t>(blockIdx.y) * n * D;
  Q += head, K += head, V += head, O += head;
  const int r0 = blockIdx.x * Br;

  wmma::fragment<wmma::matrix_a, 16, 16, 16, __nv_bfloat16, wmma::row_major> q[F];
  stage_rows<D, W, Br>(Q, K_s, r0, n);
  __syncthreads();
  for (int f = 0; f < F; ++f) wmma::load_matrix_sync(q[f], K_s + warp * 16 * LDK + f * 16, LDK);
  __syncthreads();

  wmma::fragment<wmma::accumulator, 16, 16, 16, float> o[F];
  for (int f = 0; f < F; ++f) wmma::fill_fragment(o[f], 0.0f);
  float m[2] = {-INFINITY, -INFINITY}, l[2] = {0.0f, 0.0f};
  const int col0 = 2 * (lane % 4);

  for (int j0 = 0; j0 < n; j0 += Bc) {
    stage<D, W>(K, K_s, j0, n);
    stage<D, W>(V, V_s, j0, n);
    __syncthreads();
    wmma::fragment<wmma::accumulator, 16, 16, 16, float> s[Bc / 16];
    for (int c = 0; c < Bc / 16; ++c) {
      wmma::fill_fragment(s[c], 0.0f);
      for (int f = 0; f < F; ++f) {
        wmma::fragment<wmma::matrix_b, 16, 16, 16, __nv_bfloat16, wmma::col_major> kt;
        wmma::load_matrix_sync(kt, K_s + c * 16 * LDK + f * 16, LDK);
        wmma::mma_sync(s[c], q[f], kt, s[c]);
      }
    }
    float mx[2] = {-INFINITY, -INFINITY};
    for (int c = 0; c < Bc / 16; ++c)
      for (int i = 0; i < 8; ++i) {
        const int key = j0 + c * 16 + col0 + i % 2 + 8 * (i / 4);
        const float x = key < n ? s[c].x[i] * kLog2e : -INFINITY;
        s[c].x[i] = x;
        mx[i / 2 % 2] = fmaxf(mx[i / 2 % 2], x);
      }
    float scale[2], sum[2] = {0.0f, 0.0f};
    for (int h = 0; h < 2; ++h) {
      mx[h] = fmaxf(mx[h], __shfl_xor_sync(0xffffffffu, mx[h], 1));
      mx[h] = fmaxf(mx[h], __shfl_xor_sync(0xffffffffu, mx[h], 2));
      const float m_new = fmaxf(m[h], mx[h]);
      scale[h] = exp2f(m[h] - m_new);
      m[h] = m_new;
    }
    wmma::fragment<wmma::matrix_a, 16, 16, 16, __nv_bfloat16, wmma::row_major> p[Bc / 16];
    for (int c = 0; c < Bc / 16; ++c)
      for (int i = 0; i < 8; ++i) {
        const float e = exp2f(s[c].x[i] - m[i / 2 % 2]);
        sum[i / 2 % 2] += e;
        p[c].x[i] = __float2bfloat16(e);
      }
    for (int h = 0; h < 2; ++h) {
      sum[h] += __shfl_xor_sync(0xffffffffu, sum[h], 1);
      sum[h] += __shfl_xor_sync(0xffffffffu, sum[h], 2);
      l[h] = l[h] * scale[h] + sum[h];
    }
    for (int f = 0; f < F; ++f)
      for (int i = 0; i < 8; ++i) o[f].x[i] *= scale[i / 2 % 2];
    for (int k = 0; k < Bc / 16; ++k)
      for (int f = 0; f < F; ++f) {
        wmma::fragment<wmma::matrix_b, 16, 16, 16, __nv_bfloat16, wmma::row_major> v;
        wmma::load_matrix_sync(v, V_s + k * 16 * LDK + f * 16, LDK);
        wmma::mma_sync(o[f], p[k], v, o[f]);
      }
    __syncthreads();
  }
  // O: each lane's elements as bf16 pairs into the warp's 16 rows of K_s, then 16-byte rows out.
  __nv_bfloat16* O_s = K_s + warp * 16 * LDK;
  for (int f = 0; f < F; ++f)
    for (int i = 0; i < 8; i += 2) {
      const int r = lane / 4 + 8 * (i / 2 % 2), c = f * 16 + col0 + 8 * (i / 4);
      const float inv = 1.0f / l[i / 2 % 2];
      *reinterpret_cast<__nv_bfloat162*>(&O_s[r * LDK + c]) =
          __floats2bfloat162_rn(o[f].x[i] * inv, o[f].x[i + 1] * inv);
    }
  __syncwarp();
  for (int idx = lane; idx < 16 * D / 8; idx += 32) {
    const int r = idx / (D / 8), c = idx % (D / 8) * 8, row = r0 + warp * 16 + r;
    if (row < n)
      *reinterpret_cast<uint4*>(&O[static_cast<size_t>(row) * D + c]) =
          *reinterpret_cast<const uint4*>(&O_s[r * LDK + c]);
  }
}

template <int D, int W>
bool launch(const __nv_bfloat16* Q, const __nv_bfloat16* K, const __nv_bfloat16* V,
            __nv_bfloat16* O, int heads, int n) {
  constexpr size_t bytes = shared_bytes<D, W>();
  if (cudaFuncSetAttribute(kernel<D, W>, cudaFuncAttributeMaxDynamicSharedMemorySize, int(bytes)) !=
      cudaSuccess)
    return false;
  kernel<D, W><<<dim3((n + 16 * W - 1) / (16 * W), heads), 32 * W, bytes>>>(Q, K, V, O, n);
  return cudaGetLastError() == cudaSuccess;
}
}  // namespace

bool wmma_step1_registers(const __nv_bfloat16* Q, const __nv_bfloat16* K, const __nv_bfloat16* V,
                          __nv_bfloat16* O, int heads, int n, int d) {
  if (n < 1 || heads < 1) return false;
  return d == 64 ? launch<64, 4>(Q, K, V, O, heads, n)
                 : d == 128 && launch<128, 4>(Q, K, V, O, heads, n);
}

}  // namespace wmma_steps
