// Lab 4, step 0: the lab's kernel as it was until 2026-12-06, kept so that wmma_steps.cu
// times the later steps against it on the same GPU. S goes from the accumulators to a
// per-warp shared scratch (store_matrix_sync), two lanes a row run the online softmax
// there, P goes back to shared memory as bf16 and is re-loaded as matrix_a fragments, and
// each row's scale is shared through shared memory too; K_j and V_j are copied in before
// any work on them starts.
#include <cuda_bf16.h>
#include <cuda_runtime.h>
#include <mma.h>

#include "wmma_steps.hpp"

namespace wmma_steps {
namespace {

using namespace nvcuda;
constexpr int Br = 64, Bc = 64, kWarps = Br / 16, kThreads = 32 * kWarps;
constexpr int PAD = 8;         // bf16 elements added to each K, V, Q and P row (16 bytes)
constexpr int LDS = Bc + 4;    // the scores' rows, floats
constexpr int LDP = Bc + PAD;  // P's rows, bf16
constexpr float kLog2e = 1.4426950408889634f;

// The row of the 16 x 16 accumulator tile that lane `lane` holds in its element x[i]
// (i = 0..7; notes §6.8 draw the layout).
__device__ __forceinline__ int acc_row(int lane, int i) {
  return lane / 4 + 8 * (i / 2 % 2);
}

// Shared memory: K_j and V_j (the Q tile first, before the loop), then per warp its scores
// S (16 x LDS floats), its P (16 x LDP bf16) and its rows' scale and l (16 floats each).
template <int D>
constexpr size_t shared_bytes() {
  return 2 * Bc * (D + PAD) * sizeof(__nv_bfloat16) +
         kWarps *
             (16 * LDS * sizeof(float) + 16 * LDP * sizeof(__nv_bfloat16) + 32 * sizeof(float));
}

// Rows [first, first + Bc) of M (n x D) into M_s (rows of D + PAD), rows past n as zeros,
// 8 elements (16 bytes) at a time by the block's threads together.
template <int D>
__device__ void stage(const __nv_bfloat16* M, __nv_bfloat16* M_s, int first, int n) {
  for (int idx = threadIdx.x; idx < Bc * D / 8; idx += kThreads) {
    const int r = idx / (D / 8), c = idx % (D / 8) * 8;
    uint4 v = make_uint4(0, 0, 0, 0);
    if (first + r < n)
      v = *reinterpret_cast<const uint4*>(&M[static_cast<size_t>(first + r) * D + c]);
    *reinterpret_cast<uint4*>(&M_s[r * (D + PAD) + c]) = v;
  }
}

template <int D>
__global__ void __launch_bounds__(kThreads)
    flash_wmma_kernel(const __nv_bfloat16* __restrict__ Q, const __nv_bfloat16* __restrict__ K,
                      const __nv_bfloat16* __restrict__ V, __nv_bfloat16* __restrict__ O, int n) {
  constexpr int LDK = D + PAD, F = D / 16;  // F: fragments across d
  extern __shared__ __align__(128) unsigned char smem[];
  __nv_bfloat16* K_s = reinterpret_cast<__nv_bfloat16*>(smem);
  __nv_bfloat16* V_s = K_s + Bc * LDK;
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  // Past K_j and V_j: every warp's S, then every warp's P, then every warp's scale and l.
  unsigned char* scratch = reinterpret_cast<unsigned char*>(V_s + Bc * LDK);
  float* S_w = reinterpret_cast<float*>(scratch) + warp * 16 * LDS;
  scratch += kWarps * 16 * LDS * sizeof(float);
  __nv_bfloat16* P_w = reinterpret_cast<__nv_bfloat16*>(scratch) + warp * 16 * LDP;
  scratch += kWarps * 16 * LDP * sizeof(__nv_bfloat16);
  float* stats = reinterpret_cast<float*>(scratch);
  float* scale_w = stats + warp * 32;  // 16 rows' scale, then their l
  const size_t head = static_cast<size_t>(blockIdx.y) * n * D;
  Q += head, K += head, V += head, O += head;
  const int r0 = blockIdx.x * Br;

  // Q_w's fragments, through shared memory (a partial last tile reads zeros past n).
  wmma::fragment<wmma::matrix_a, 16, 16, 16, __nv_bfloat16, wmma::row_major> q[F];
  stage<D>(Q, K_s, r0, n);
  __syncthreads();
  for (int f = 0; f < F; ++f) wmma::load_matrix_sync(q[f], K_s + warp * 16 * LDK + f * 16, LDK);
  __syncthreads();

  wmma::fragment<wmma::accumulator, 16, 16, 16, float> o[F];
  for (int f = 0; f < F; ++f) wmma::fill_fragment(o[f], 0.0f);
  // Lane pair (2r, 2r + 1) keeps row r's running max and sum, in base 2.
  const int row = lane / 2, half = lane % 2;
  float m = -INFINITY, l = 0.0f;

  for (int j0 = 0; j0 < n; j0 += Bc) {
    stage<D>(K, K_s, j0, n);  // 1.
    stage<D>(V, V_s, j0, n);
    __syncthreads();

    // 2. S = Q_w K_j^T, 16 keys at a time.
    for (int c = 0; c < Bc / 16; ++c) {
      wmma::fragment<wmma::accumulator, 16, 16, 16, float> s;
      wmma::fill_fragment(s, 0.0f);
      for (int f = 0; f < F; ++f) {
        // K_j^T's 16 x 16 block (f, c): rows f * 16.. of K_j^T are columns of K_j.
        wmma::fragment<wmma::matrix_b, 16, 16, 16, __nv_bfloat16, wmma::col_major> kt;
        wmma::load_matrix_sync(kt, K_s + c * 16 * LDK + f * 16, LDK);
        wmma::mma_sync(s, q[f], kt, s);
      }
      wmma::store_matrix_sync(S_w + c * 16, s, LDS, wmma::mem_row_major);
    }
    __syncwarp();

    // 3. The online softmax: this lane's 32 scores of its row.
    const int valid = min(Bc, n - j0);
    float sc[32];
    float mx = -INFINITY;
    for (int c = 0; c < 32; ++c) {
      const int key = half * 32 + c;
      sc[c] = key < valid ? S_w[row * LDS + key] * kLog2e : -INFINITY;
      mx = fmaxf(mx, sc[c]);
    }
    mx = fmaxf(mx, __shfl_xor_sync(0xffffffffu, mx, 1));
    const float m_new = fmaxf(m, mx);
    const float scale = exp2f(m - m_new);
    float p_sum = 0.0f;
    for (int c = 0; c < 32; ++c) {
      const float p = exp2f(sc[c] - m_new);
      p_sum += p;
      P_w[row * LDP + half * 32 + c] = __float2bfloat16(p);
    }
    p_sum += __shfl_xor_sync(0xffffffffu, p_sum, 1);
    l = l * scale + p_sum;
    m = m_new;
    if (half == 0) scale_w[row] = scale;
    __syncwarp();

    // 4. O re-based row by row, then O += P V_j.
    for (int f = 0; f < F; ++f)
      for (int i = 0; i < o[f].num_elements; ++i) {
        o[f].x[i] *= scale_w[acc_row(lane, i)];
      }
    for (int k = 0; k < Bc / 16; ++k) {
      wmma::fragment<wmma::matrix_a, 16, 16, 16, __nv_bfloat16, wmma::row_major> p;
      wmma::load_matrix_sync(p, P_w + k * 16, LDP);
      for (int f = 0; f < F; ++f) {
        wmma::fragment<wmma::matrix_b, 16, 16, 16, __nv_bfloat16, wmma::row_major> v;
        wmma::load_matrix_sync(v, V_s + k * 16 * LDK + f * 16, LDK);
        wmma::mma_sync(o[f], p, v, o[f]);
      }
    }
    __syncthreads();  // the next tile overwrites K_s and V_s
  }

  // Normalise once (each row's l, shared through the warp's scratch), then O in bf16
  // through the scores' scratch, 16 columns at a time.
  if (half == 0) scale_w[16 + row] = l;
  __syncwarp();
  for (int f = 0; f < F; ++f) {
    for (int i = 0; i < o[f].num_elements; ++i) o[f].x[i] /= scale_w[16 + acc_row(lane, i)];
    wmma::store_matrix_sync(S_w, o[f], LDS, wmma::mem_row_major);
    __syncwarp();
    for (int e = lane; e < 16 * 16; e += 32) {
      const int r = r0 + warp * 16 + e / 16;
      if (r < n)
        O[static_cast<size_t>(r) * D + f * 16 + e % 16] =
            __float2bfloat16(S_w[(e / 16) * LDS + e % 16]);
    }
    __syncwarp();
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

bool wmma_step0_scratch(const __nv_bfloat16* Q, const __nv_bfloat16* K, const __nv_bfloat16* V,
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
