// Lesson 13 lab 3, part 2: FlashAttention's forward pass in fp32, register-tiled: the kernel
// that part 1's one-warp-per-row version grows into. Fill in the BLANKs and choose PAD, then
// grade with: grader lesson13 --unit lab_flash_fast
//
// A block of 256 threads owns Br = 16 * TM query rows; each thread holds a TM x Bc/16 tile of
// the scores S = Q K^T and a TM x d/16 tile of the output, so every value read from shared
// memory feeds several FMAs, as in lab 2's coarsened matmul. Per key tile of Bc rows:
//   1. K_j and V_j into shared memory (float4 loads and stores);
//   2. S = Q_i K_j^T from shared memory, float4 along k;
//   3. the online softmax on registers, as in part 1, but a row's scores are spread over
//      the 16 lanes that share it: its max and sum are reduced over those 16 (shuffles);
//   4. P into shared memory (over K_j, which is no longer needed), then O += P V_j.
// Scores come out in base 2 (Q is scaled by log2 e once), so exp2f serves for expf.
// With one head, n / Br query tiles leave most SMs idle at n = 4096, so the keys are split
// across blocks too and the splits merged after (combine_splits). Notes §6.7 walk through
// each step with its measured gain.
// API: lessons/lesson13/include/flash_attention_fast.hpp.
#include <cuda_runtime.h>

#include <algorithm>

#include "course/blank.hpp"
#include "flash_attention_fast.hpp"

namespace lesson13 {
namespace {

constexpr int kThreads = 256;  // 16 row groups x 16 column groups
constexpr unsigned kFull = 0xffffffffu;

// Floats added to each shared row of Q_i, K_j and P^T. Quarter-warps read K_j rows 16 apart
// as float4s: unpadded, those rows start in the same bank. A float4 needs a 16-byte aligned
// address, so the padding also decides whether the reads are legal (notes §6.7).
constexpr int PAD = TUNABLE(0);  // yours to choose (lab_flash_fast's fast.banks)

// Shared memory of a block: Q_i, then K_j (later P^T), then V_j.
template <int D, int TM, int Bc>
constexpr size_t shared_bytes() {
  constexpr int Br = 16 * TM, LDK = D + PAD, LDP = Br + PAD;
  return sizeof(float) * (Br * (D + PAD) + Bc * (LDK > LDP ? LDK : LDP) + Bc * D);
}
// Two blocks a SM where their shared memory fits (registers capped to match), else one.
template <int D, int TM, int Bc>
constexpr int blocks_per_sm() {
  return 2 * (shared_bytes<D, TM, Bc>() + 1024) <= 228 * 1024 ? 2 : 1;
}

// Thread (ty, tx) scores rows ty*TM .. ty*TM+TM-1 against keys tx, tx+16, tx+32, ...: in
// one float4 read, the 8 lanes of a quarter-warp read K_j rows tx .. tx+7, whose starts are
// d + PAD floats apart. P is stored transposed (key-major, Br + PAD floats a row), so a
// thread reads its TM rows' weights for one key as float4s.
// Split over keys (blockIdx.y, kps keys each) when the query tiles alone would leave SMs
// idle: the split then writes its rows' normalised partial output to O_part and their
// (m, l) to ml_part, and combine_splits merges them.
template <int D, int TM, int Bc>
__global__ void __launch_bounds__(kThreads, (blocks_per_sm<D, TM, Bc>()))
    flash_fast_kernel(const float* __restrict__ Q, const float* __restrict__ K,
                      const float* __restrict__ V, float* __restrict__ O, int n, int kps,
                      float* __restrict__ O_part, float2* __restrict__ ml_part) {
  constexpr int Br = 16 * TM;
  constexpr int LDQ = D + PAD, LDK = D + PAD, LDP = Br + PAD;
  constexpr int DC = D / 16;   // output columns per thread: 4 at each of D/64 places
  constexpr int SC = Bc / 16;  // keys a thread scores per tile
  extern __shared__ float4 smem4[];
  float* smem = reinterpret_cast<float*>(smem4);
  float* Q_s = smem;                                // Br x LDQ
  float* K_s = Q_s + Br * LDQ;                      // Bc x LDK, then P^T: Bc x LDP
  float* V_s = K_s + Bc * (LDK > LDP ? LDK : LDP);  // Bc x D
  float* P_s = K_s;

  const int tid = threadIdx.x, lane = tid % 32;
  const int tx = lane % 16, ty = (tid / 32) * 2 + lane / 16;
  const int r0 = blockIdx.x * Br;

  // Q_i once, times log2(e): scores come out in base 2, so exp2f (one MUFU.EX2) serves for
  // expf, and m, l mean the same. Rows past n are zeros (finite scores, never written).
  constexpr float kLog2e = 1.4426950408889634f;
  for (int idx = tid; idx < Br * D / 4; idx += kThreads) {
    const int r = idx / (D / 4), k = (idx % (D / 4)) * 4;
    float4 q = make_float4(0.f, 0.f, 0.f, 0.f);
    if (r0 + r < n) {
      q = *reinterpret_cast<const float4*>(&Q[(r0 + r) * D + k]);
      q.x *= kLog2e, q.y *= kLog2e, q.z *= kLog2e, q.w *= kLog2e;
    }
    *reinterpret_cast<float4*>(&Q_s[r * LDQ + k]) = q;
  }

  float o[TM][DC];
  float m[TM], l[TM];
  for (int i = 0; i < TM; ++i) {
    m[i] = -INFINITY;
    l[i] = 0.0f;
    for (int c = 0; c < DC; ++c) o[i][c] = 0.0f;
  }

  const int j_begin = blockIdx.y * kps, j_end = min(n, j_begin + kps);
  for (int j0 = j_begin; j0 < j_end; j0 += Bc) {
    // 1. K_j and V_j; rows past n are zeros (a zero weight times a zero stays zero).
    for (int idx = tid; idx < Bc * D / 4; idx += kThreads) {
      const int c = idx / (D / 4), k = (idx % (D / 4)) * 4;
      const bool in = j0 + c < n;
      const float4 zero = make_float4(0.f, 0.f, 0.f, 0.f);
      *reinterpret_cast<float4*>(&K_s[c * LDK + k]) =
          in ? *reinterpret_cast<const float4*>(&K[(j0 + c) * D + k]) : zero;
      *reinterpret_cast<float4*>(&V_s[c * D + k]) =
          in ? *reinterpret_cast<const float4*>(&V[(j0 + c) * D + k]) : zero;
    }
    __syncthreads();

    // 2. This thread's TM x 4 scores.
    float s[TM][SC];
    for (int i = 0; i < TM; ++i)
      for (int c = 0; c < SC; ++c) s[i][c] = 0.0f;
    for (int k = 0; k < D; k += 4) {
      float4 q[TM], kk[SC];
      for (int i = 0; i < TM; ++i)
        q[i] = *reinterpret_cast<const float4*>(&Q_s[(ty * TM + i) * LDQ + k]);
      for (int c = 0; c < SC; ++c)
        kk[c] = *reinterpret_cast<const float4*>(&K_s[(tx + 16 * c) * LDK + k]);
      for (int i = 0; i < TM; ++i)
        for (int c = 0; c < SC; ++c) {
          s[i][c] = fmaf(q[i].x, kk[c].x, s[i][c]);
          s[i][c] = fmaf(q[i].y, kk[c].y, s[i][c]);
          s[i][c] = fmaf(q[i].z, kk[c].z, s[i][c]);
          s[i][c] = fmaf(q[i].w, kk[c].w, s[i][c]);
        }
    }
    __syncthreads();  // every thread is done with K_s: P goes over it

    // 3. Online softmax per row, over the 16 lanes (tx) that share the row.
    for (int i = 0; i < TM; ++i) {
      float mx = -INFINITY;
      for (int c = 0; c < SC; ++c) {
        if (j0 + tx + 16 * c >= n) s[i][c] = -INFINITY;  // keys past n weigh nothing
        mx = fmaxf(mx, s[i][c]);
      }
      // The row's max over its 16 lanes (tx): lanes 16 apart hold another row.
      for (int off = 8; off > 0; off /= 2) {
        mx = fmaxf(mx, BLANK(row_max));  // the partner lane's mx
      }
      const float m_new = fmaxf(m[i], mx);
      const float scale = BLANK(scale);  // scores are in base 2
      float p_sum = 0.0f;
      for (int c = 0; c < SC; ++c) {
        s[i][c] = BLANK(p);  // the score's weight p against m_new
        p_sum += s[i][c];
      }
      for (int off = 8; off > 0; off /= 2) p_sum += __shfl_xor_sync(kFull, p_sum, off);
      l[i] = BLANK(l_new);
      m[i] = m_new;
      for (int c = 0; c < DC; ++c) {
        o[i][c] = BLANK(O_rescale);
      }
    }

    // 4. P^T into shared memory, then O += P V_j.
    for (int c = 0; c < SC; ++c)
      for (int i = 0; i < TM; i += 4)
        *reinterpret_cast<float4*>(&P_s[(tx + 16 * c) * LDP + ty * TM + i]) =
            make_float4(s[i][c], s[i + 1][c], s[i + 2][c], s[i + 3][c]);
    __syncthreads();
    for (int c = 0; c < Bc; ++c) {
      float p[TM];
      for (int i = 0; i < TM; i += 4) {
        const float4 p4 = *reinterpret_cast<const float4*>(&P_s[c * LDP + ty * TM + i]);
        p[i] = p4.x, p[i + 1] = p4.y, p[i + 2] = p4.z, p[i + 3] = p4.w;
      }
      // This thread's columns of V_j's row c: u * 64 + tx * 4 + e, e = 0..3.
      for (int u = 0; u < D / 64; ++u) {
        const float4 v4 = *reinterpret_cast<const float4*>(&V_s[c * D + u * 64 + tx * 4]);
        const float v[4] = {v4.x, v4.y, v4.z, v4.w};
        for (int i = 0; i < TM; ++i)
          for (int e = 0; e < 4; ++e) {
            o[i][u * 4 + e] = BLANK(PV);  // add key c's share of row i, column e
          }
      }
    }
    __syncthreads();  // the next tile overwrites K_s (P) and V_s
  }

  // Normalise once, float4 stores: into O, or this split's part of O_part.
  float* out = gridDim.y == 1 ? O : O_part + static_cast<size_t>(blockIdx.y) * n * D;
  for (int i = 0; i < TM; ++i) {
    const int r = r0 + ty * TM + i;
    if (r >= n) continue;
    const float inv_l = 1.0f / l[i];
    for (int u = 0; u < D / 64; ++u)
      *reinterpret_cast<float4*>(&out[r * D + u * 64 + tx * 4]) =
          make_float4(o[i][u * 4] * inv_l, o[i][u * 4 + 1] * inv_l, o[i][u * 4 + 2] * inv_l,
                      o[i][u * 4 + 3] * inv_l);
    if (gridDim.y > 1 && tx == 0)
      ml_part[static_cast<size_t>(blockIdx.y) * n + r] = make_float2(m[i], l[i]);
  }
}

// O[r] = sum over splits s of w_s O_s[r] / sum_s w_s, each split weighed against M, the
// largest m_s: the online softmax's merge, once per row. A thread per 4 columns of a row.
template <int D>
__global__ void combine_splits(const float* __restrict__ O_part, const float2* __restrict__ ml_part,
                               float* __restrict__ O, int n, int splits) {
  const int idx = blockIdx.x * blockDim.x + threadIdx.x;
  const int r = idx / (D / 4), k = (idx % (D / 4)) * 4;
  if (r >= n) return;
  float M = -INFINITY;
  for (int s = 0; s < splits; ++s) M = fmaxf(M, ml_part[static_cast<size_t>(s) * n + r].x);
  float L = 0.0f;
  float4 acc = make_float4(0.f, 0.f, 0.f, 0.f);
  for (int s = 0; s < splits; ++s) {
    const float2 ml = ml_part[static_cast<size_t>(s) * n + r];
    // Split s's weight: its rows were normalised by its own l_s against its own m_s.
    const float w = BLANK(w);  // ml.x is the split's m_s, ml.y its l_s
    const float4 o =
        *reinterpret_cast<const float4*>(&O_part[(static_cast<size_t>(s) * n + r) * D + k]);
    acc.x = fmaf(w, o.x, acc.x), acc.y = fmaf(w, o.y, acc.y);
    acc.z = fmaf(w, o.z, acc.z), acc.w = fmaf(w, o.w, acc.w);
    L += w;
  }
  const float inv_L = 1.0f / L;
  *reinterpret_cast<float4*>(&O[r * D + k]) =
      make_float4(acc.x * inv_L, acc.y * inv_L, acc.z * inv_L, acc.w * inv_L);
}

// The splits' scratch: kept between calls, grown when a call needs more.
float* scratch(size_t bytes) {
  static float* buffer = nullptr;
  static size_t capacity = 0;
  if (bytes > capacity) {
    if (buffer) cudaFree(buffer);
    buffer = nullptr, capacity = 0;
    if (cudaMalloc(&buffer, bytes) != cudaSuccess) return nullptr;
    capacity = bytes;
  }
  return buffer;
}

template <int D, int TM, int Bc>
bool launch(const float* Q, const float* K, const float* V, float* O, int n, int splits) {
  constexpr int Br = 16 * TM;
  constexpr size_t bytes = shared_bytes<D, TM, Bc>();
  if (cudaFuncSetAttribute(flash_fast_kernel<D, TM, Bc>,
                           cudaFuncAttributeMaxDynamicSharedMemorySize,
                           static_cast<int>(bytes)) != cudaSuccess)
    return false;
  const int q_tiles = (n + Br - 1) / Br, k_tiles = (n + Bc - 1) / Bc;
  if (splits <= 0) {  // enough blocks for every SM's resident slots
    int sms = 0;
    cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0);
    // As many splits as fill one wave: a second, partial wave costs more than it spreads.
    splits = sms * blocks_per_sm<D, TM, Bc>() / q_tiles;
  }
  splits = std::max(1, std::min(splits, k_tiles));
  const int kps = (k_tiles + splits - 1) / splits * Bc;  // whole tiles a split
  splits = (n + kps - 1) / kps;                          // none empty
  float* O_part = nullptr;
  float2* ml_part = nullptr;
  if (splits > 1) {
    float* buffer = scratch(sizeof(float) * static_cast<size_t>(splits) * n * (D + 2));
    if (!buffer) return false;
    O_part = buffer;
    ml_part = reinterpret_cast<float2*>(buffer + static_cast<size_t>(splits) * n * D);
  }
  flash_fast_kernel<D, TM, Bc>
      <<<dim3(q_tiles, splits), kThreads, bytes>>>(Q, K, V, O, n, kps, O_part, ml_part);
  if (splits > 1)
    combine_splits<D><<<(n * (D / 4) + 255) / 256, 256>>>(O_part, ml_part, O, n, splits);
  return true;
}

}  // namespace

bool flash_attention_fast_forward(const float* Q, const float* K, const float* V, float* O, int n,
                                  int d, int splits) {
  switch (d) {
    case 64:
      return launch<64, 8, 64>(Q, K, V, O, n, splits);
    case 128:
      return launch<128, 8, 32>(Q, K, V, O, n, splits);  // two blocks a SM fit
    default:
      return false;
  }
}

}  // namespace lesson13
