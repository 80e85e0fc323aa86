// Lesson 13's bf16 FlashAttention-2 forward on the tensor cores' own instructions (see
// attention_mma.hpp): what lab 4's WMMA version leaves on the table. Each warp owns 16 query
// rows; its Q stays in registers as mma fragments, and S = Q K_j^T never leaves them:
//   - mma.sync m16n8k16 (bf16 in, fp32 accumulate), whose accumulator layout is known, so the
//     softmax runs on S where it sits and P becomes the next mma's A operand in registers
//     (WMMA's fragments are opaque: lab 4 stores S to shared memory and reads it back);
//   - ldmatrix (.trans for V) loads the B operands from shared memory, 16 bytes a lane;
//   - cp.async copies K_{j+1} while P V_j runs and V_j while S is computed;
//   - shared rows padded by 16 bytes, so ldmatrix's eight row addresses hit distinct banks.
#include <cuda_bf16.h>
#include <cuda_runtime.h>

#include <cmath>
#include <cstdint>

#include "attention_mma.hpp"

namespace lesson13::bench {
namespace {

using bf16 = __nv_bfloat16;
constexpr int kWarps = 4, kBr = 16 * kWarps, kBc = 64;  // query rows and keys a tile

__device__ __forceinline__ uint32_t shared_address(const void* p) {
  return static_cast<uint32_t>(__cvta_generic_to_shared(p));
}

// 16 bytes from global to shared memory, asynchronously; `bytes` 0 fills them with zeros.
__device__ __forceinline__ void copy16_async(void* dst, const void* src, int bytes) {
  asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;\n" ::"r"(shared_address(dst)),
               "l"(src), "r"(bytes));
}
__device__ __forceinline__ void commit_copies() {
  asm volatile("cp.async.commit_group;\n" ::);
}
// Waits until at most `pending` committed groups of copies are still in flight.
template <int pending>
__device__ __forceinline__ void wait_copies() {
  asm volatile("cp.async.wait_group %0;\n" ::"n"(pending));
}

// Four 8 x 8 bf16 matrices from shared memory; lane i gives row i % 8 of matrix i / 8.
__device__ __forceinline__ void ldmatrix4(uint32_t (&r)[4], const bf16* p) {
  asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0, %1, %2, %3}, [%4];\n"
               : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3])
               : "r"(shared_address(p)));
}
__device__ __forceinline__ void ldmatrix4_trans(uint32_t (&r)[4], const bf16* p) {
  asm volatile("ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16 {%0, %1, %2, %3}, [%4];\n"
               : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3])
               : "r"(shared_address(p)));
}

// acc += A B for a 16 x 8 tile, k = 16. Accumulator: lane holds rows lane / 4 (acc[0], acc[1])
// and lane / 4 + 8 (acc[2], acc[3]), columns 2 (lane % 4) and 2 (lane % 4) + 1.
__device__ __forceinline__ void mma(float (&acc)[4], const uint32_t (&a)[4], uint32_t b0,
                                    uint32_t b1) {
  asm volatile(
      "mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 {%0, %1, %2, %3}, {%4, %5, %6, %7}, "
      "{%8, %9}, {%0, %1, %2, %3};\n"
      : "+f"(acc[0]), "+f"(acc[1]), "+f"(acc[2]), "+f"(acc[3])
      : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b0), "r"(b1));
}

__device__ __forceinline__ uint32_t pack(float lo, float hi) {
  const __nv_bfloat162 v = __floats2bfloat162_rn(lo, hi);
  return *reinterpret_cast<const uint32_t*>(&v);
}

// Rows row0 .. row0 + 63 of an n x D matrix into shared memory (row stride D + 8), 16 bytes a
// copy; rows past n are zeros.
template <int D>
__device__ __forceinline__ void load_tile(bf16* s, const bf16* g, int row0, int n) {
  constexpr int kChunks = D / 8;
  for (int c = threadIdx.x; c < 64 * kChunks; c += kWarps * 32) {
    const int r = c / kChunks, col = (c % kChunks) * 8;
    const bool inside = row0 + r < n;
    copy16_async(s + r * (D + 8) + col, g + size_t(inside ? row0 + r : 0) * D + col,
                 inside ? 16 : 0);
  }
}

template <int D>
__global__ void __launch_bounds__(kWarps * 32)
    attention_mma_kernel(const bf16* Q, const bf16* K, const bf16* V, bf16* O, int n) {
  constexpr int kStride = D + 8;
  extern __shared__ __align__(16) unsigned char shared[];
  bf16* sQ = reinterpret_cast<bf16*>(shared);
  bf16* sK = sQ + kBr * kStride;
  bf16* sV = sK + kBc * kStride;
  const size_t head = size_t(blockIdx.y) * n * D;
  Q += head, K += head, V += head, O += head;
  const int q0 = blockIdx.x * kBr, warp = threadIdx.x / 32, lane = threadIdx.x % 32;

  load_tile<D>(sQ, Q, q0, n);
  commit_copies();
  load_tile<D>(sK, K, 0, n);
  commit_copies();
  wait_copies<1>();  // Q is in (K_0 may still be on its way)
  __syncthreads();
  uint32_t q[D / 16][4];  // the warp's 16 rows as A fragments, one per 16 columns
  for (int k = 0; k < D / 16; ++k)
    ldmatrix4(q[k], sQ + (warp * 16 + lane % 16) * kStride + k * 16 + (lane / 16) * 8);

  float o[D / 8][4] = {};                          // 16 x D, accumulator layout
  float m[2] = {-INFINITY, -INFINITY}, l[2] = {};  // rows lane / 4 and lane / 4 + 8
  const int tiles = (n + kBc - 1) / kBc;
  for (int t = 0; t < tiles; ++t) {
    load_tile<D>(sV, V, t * kBc, n);  // V_t travels while S_t is computed
    commit_copies();
    wait_copies<1>();  // K_t is in
    __syncthreads();
    float s[kBc / 8][4] = {};
    for (int k = 0; k < D / 16; ++k)
      for (int j = 0; j < kBc / 16; ++j) {  // keys 16 j .. 16 j + 15: two n-tiles
        uint32_t b[4];
        ldmatrix4(b, sK + (j * 16 + (lane / 16) * 8 + lane % 8) * kStride + k * 16 +
                         ((lane / 8) % 2) * 8);
        mma(s[2 * j], q[k], b[0], b[1]);
        mma(s[2 * j + 1], q[k], b[2], b[3]);
      }
    __syncthreads();  // every warp is done with K_t
    if (t + 1 < tiles) load_tile<D>(sK, K, (t + 1) * kBc, n);
    commit_copies();        // empty on the last tile: the wait below still counts right
    if ((t + 1) * kBc > n)  // keys past n count for nothing
      for (int j = 0; j < kBc / 8; ++j)
        for (int e = 0; e < 4; ++e)
          if (t * kBc + j * 8 + (lane % 4) * 2 + e % 2 >= n) s[j][e] = -INFINITY;

    // Online softmax: each row's 64 scores sit in the 4 lanes of a quad.
    for (int h = 0; h < 2; ++h) {
      float top = m[h];
      for (int j = 0; j < kBc / 8; ++j) top = fmaxf(top, fmaxf(s[j][2 * h], s[j][2 * h + 1]));
      top = fmaxf(top, __shfl_xor_sync(0xffffffffu, top, 1));
      top = fmaxf(top, __shfl_xor_sync(0xffffffffu, top, 2));
      const float alpha = __expf(m[h] - top);  // 0 on the first tile
      m[h] = top;
      float sum = 0;
      for (int j = 0; j < kBc / 8; ++j)
        for (int e = 2 * h; e < 2 * h + 2; ++e) sum += s[j][e] = __expf(s[j][e] - top);
      l[h] = l[h] * alpha + sum;  // this lane's share; the quad's are added at the end
      for (int j = 0; j < D / 8; ++j) o[j][2 * h] *= alpha, o[j][2 * h + 1] *= alpha;
    }

    wait_copies<1>();  // V_t is in
    __syncthreads();
    for (int k = 0; k < kBc / 16; ++k) {  // P's columns 16 k .. 16 k + 15, as an A fragment
      const uint32_t p[4] = {pack(s[2 * k][0], s[2 * k][1]), pack(s[2 * k][2], s[2 * k][3]),
                             pack(s[2 * k + 1][0], s[2 * k + 1][1]),
                             pack(s[2 * k + 1][2], s[2 * k + 1][3])};
      for (int j = 0; j < D / 16; ++j) {  // output columns 16 j .. 16 j + 15
        uint32_t b[4];
        ldmatrix4_trans(b, sV + (k * 16 + ((lane / 8) % 2) * 8 + lane % 8) * kStride + j * 16 +
                               (lane / 16) * 8);
        mma(o[2 * j], p, b[0], b[1]);
        mma(o[2 * j + 1], p, b[2], b[3]);
      }
    }
    __syncthreads();  // every warp is done with V_t
  }

  // O = o / l, staged in the warp's own rows of the Q tile so rows leave 16 bytes a lane.
  for (int h = 0; h < 2; ++h) {
    l[h] += __shfl_xor_sync(0xffffffffu, l[h], 1);
    l[h] += __shfl_xor_sync(0xffffffffu, l[h], 2);
  }
  const int r = warp * 16 + lane / 4;
  for (int j = 0; j < D / 8; ++j) {
    const int c = j * 8 + (lane % 4) * 2;
    *reinterpret_cast<__nv_bfloat162*>(sQ + r * kStride + c) =
        __floats2bfloat162_rn(o[j][0] / l[0], o[j][1] / l[0]);
    *reinterpret_cast<__nv_bfloat162*>(sQ + (r + 8) * kStride + c) =
        __floats2bfloat162_rn(o[j][2] / l[1], o[j][3] / l[1]);
  }
  __syncwarp();
  for (int c = lane; c < 16 * (D / 8); c += 32) {
    const int row = warp * 16 + c / (D / 8), col = (c % (D / 8)) * 8;
    if (q0 + row < n)
      *reinterpret_cast<uint4*>(O + size_t(q0 + row) * D + col) =
          *reinterpret_cast<const uint4*>(sQ + row * kStride + col);
  }
}

template <int D>
bool launch(const bf16* Q, const bf16* K, const bf16* V, bf16* O, int heads, int n) {
  const int bytes = (kBr + 2 * kBc) * (D + 8) * int(sizeof(bf16));  // 52 KiB at d = 128
  if (cudaFuncSetAttribute(attention_mma_kernel<D>, cudaFuncAttributeMaxDynamicSharedMemorySize,
                           bytes) != cudaSuccess)
    return false;
  attention_mma_kernel<D><<<dim3((n + kBr - 1) / kBr, heads), kWarps * 32, bytes>>>(Q, K, V, O, n);
  return true;
}

}  // namespace

bool attention_mma_bf16(const bf16* Q, const bf16* K, const bf16* V, bf16* O, int heads, int n,
                        int d) {
  if (n < 1 || heads < 1) return false;
  if (d == 64) return launch<64>(Q, K, V, O, heads, n);
  if (d == 128) return launch<128>(Q, K, V, O, heads, n);
  return false;
}

}  // namespace lesson13::bench
