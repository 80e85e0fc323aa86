// Lesson 13 lab 4: FlashAttention's forward pass in bf16 on tensor cores, through the
// portable WMMA API (nvcuda::wmma: 16 x 16 x 16 fragments, float accumulators). Fill in
// the BLANKs, then grade with: grader lesson13 --unit lab_tensor_cores
//
// A block of 4 warps owns Br = 64 query rows of one head, a warp 16 of them; per key tile
// of Bc = 64 rows:
//   1. K_j and V_j into shared memory (16-byte loads, rows padded by 8 elements);
//   2. S = Q_w K_j^T on tensor cores: Q_w's d/16 fragments stay in registers all along,
//      K_j is read as a column-major B (that is K_j^T), and S goes to the warp's scratch;
//   3. the online softmax in float, two lanes a row (32 scores each): m, l and the row's
//      scale, and P rounded to bf16 in shared memory;
//   4. O (d/16 accumulator fragments in registers) re-based by each row's scale, then
//      O += P V_j on tensor cores.
// Step 4 reads the accumulator's elements by row: which lane holds which element is the
// GPU's sm_80+ layout (PTX's mma.m16n8k16), which CUDA calls unspecified for WMMA; the
// course's probe checks it on a GPU and the emulator uses the same (notes §6.8).
// API: lessons/lesson13/include/flash_attention_wmma.hpp.
#include <cuda_bf16.h>
#include <cuda_runtime.h>
#include <mma.h>

#include "course/blank.hpp"
#include "flash_attention_wmma.hpp"

namespace lesson13 {
namespace {

using namespace nvcuda;
constexpr int Br = 64, Bc = 64, kWarps = Br / 16, kThreads = 32 * kWarps;
constexpr int PAD = 8;             // bf16 elements added to each K, V, Q and P row (16 bytes)
constexpr int LDS = Bc + 4;        // the scores' rows, floats
constexpr int LDP = Bc + PAD;      // P's rows, bf16
constexpr float kLog2e = 1.4426950408889634f;

// The row of the 16 x 16 accumulator tile that lane `lane` holds in its element x[i]
// (i = 0..7; notes §6.8 draw the layout).
__device__ __forceinline__ int acc_row(int lane, int i) {
  return BLANK(acc_row);
}

// Shared memory: K_j and V_j (the Q tile first, before the loop), then per warp its scores
// S (16 x LDS floats), its P (16 x LDP bf16) and its rows' scale and l (16 floats each).
template <int D>
constexpr size_t shared_bytes() {
  return 2 * Bc * (D + PAD) * sizeof(__nv_bfloat16) +
         kWarps * (16 * LDS * sizeof(float) + 16 * LDP * sizeof(__nv_bfloat16) + 32 * sizeof(float));
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
        wmma::load_matrix_sync(kt, BLANK(Kt_block), LDK);  // where that block starts in K_s
        BLANK_STMT(S_mma);  // s += Q_w's fragment f times that block
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
    l = BLANK(l_new);
    m = m_new;
    if (half == 0) scale_w[row] = scale;
    __syncwarp();

    // 4. O re-based row by row, then O += P V_j.
    for (int f = 0; f < F; ++f)
      for (int i = 0; i < o[f].num_elements; ++i) {
        o[f].x[i] = BLANK(O_rescale);  // scale_w[r]: row r's scale, this tile
      }
    for (int k = 0; k < Bc / 16; ++k) {
      wmma::fragment<wmma::matrix_a, 16, 16, 16, __nv_bfloat16, wmma::row_major> p;
      wmma::load_matrix_sync(p, P_w + k * 16, LDP);
      for (int f = 0; f < F; ++f) {
        wmma::fragment<wmma::matrix_b, 16, 16, 16, __nv_bfloat16, wmma::row_major> v;
        wmma::load_matrix_sync(v, BLANK(V_block), LDK);  // V_j's block (k, f)
        BLANK_STMT(PV_mma);  // O's fragment f += P's block k times that block
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
      if (r < n) O[static_cast<size_t>(r) * D + f * 16 + e % 16] = __float2bfloat16(S_w[(e / 16) * LDS + e % 16]);
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
