// Correct variant of lab 3 part 2 (mutant ext7-lab3b-c-natural-exp): the register-tiled
// FlashAttention in natural base. Q is staged unscaled, every weight is __expf(s - m), the
// running max m stays in natural units, and the splits' merge weighs them with __expf too.
// Same tiles as the reference (Br = 128, 256 threads, TM = 8, PAD 4), written my own way.
#include <cuda_runtime.h>

#include <algorithm>

#include "flash_attention_fast.hpp"

namespace lesson13 {
namespace {

constexpr int kThreads = 256;
constexpr int kRowGroups = 16, kColGroups = 16;
constexpr int kPad = 4;  // 16 bytes: float4 rows stay aligned, rows 16 apart shift banks by 4
constexpr unsigned kAll = 0xffffffffu;

__device__ __forceinline__ float half_warp_max(float v) {
  v = fmaxf(v, __shfl_xor_sync(kAll, v, 8));
  v = fmaxf(v, __shfl_xor_sync(kAll, v, 4));
  v = fmaxf(v, __shfl_xor_sync(kAll, v, 2));
  v = fmaxf(v, __shfl_xor_sync(kAll, v, 1));
  return v;
}
__device__ __forceinline__ float half_warp_sum(float v) {
  v += __shfl_xor_sync(kAll, v, 8);
  v += __shfl_xor_sync(kAll, v, 4);
  v += __shfl_xor_sync(kAll, v, 2);
  v += __shfl_xor_sync(kAll, v, 1);
  return v;
}

template <int D, int TM, int Bc>
struct Tiles {
  static constexpr int Br = kRowGroups * TM;
  static constexpr int ldq = D + kPad, ldk = D + kPad, ldp = Br + kPad;
  static constexpr int ld_shared = ldk > ldp ? ldk : ldp;  // K_j, then P^T, share rows
  static constexpr size_t bytes = sizeof(float) * (size_t(Br) * ldq + size_t(Bc) * ld_shared +
                                                   size_t(Bc) * D);
  static constexpr int min_blocks = 2 * (bytes + 1024) <= 228 * 1024 ? 2 : 1;
};

template <int D, int TM, int Bc>
__global__ void __launch_bounds__(kThreads, (Tiles<D, TM, Bc>::min_blocks))
    attention_tile_kernel(const float* __restrict__ Q, const float* __restrict__ K,
                          const float* __restrict__ V, float* __restrict__ O, int n,
                          int keys_per_split, float* __restrict__ partial_O,
                          float2* __restrict__ partial_ml) {
  using T = Tiles<D, TM, Bc>;
  constexpr int Br = T::Br, NC = Bc / kColGroups, NO = D / kColGroups;
  extern __shared__ float4 shared_raw[];
  float* q_tile = reinterpret_cast<float*>(shared_raw);
  float* kp_tile = q_tile + Br * T::ldq;
  float* v_tile = kp_tile + Bc * T::ld_shared;

  const int row_group = threadIdx.x / kColGroups;  // 0..15; a half-warp shares one
  const int col = threadIdx.x % kColGroups;        // 0..15
  const int first_row = blockIdx.x * Br;
  const float4 zero4 = make_float4(0.f, 0.f, 0.f, 0.f);

  for (int e = threadIdx.x; e < Br * (D / 4); e += kThreads) {
    const int r = e / (D / 4), k4 = e % (D / 4) * 4;
    *reinterpret_cast<float4*>(q_tile + r * T::ldq + k4) =
        first_row + r < n ? *reinterpret_cast<const float4*>(Q + size_t(first_row + r) * D + k4)
                          : zero4;
  }

  float acc[TM][NO], run_max[TM], run_sum[TM];
#pragma unroll
  for (int i = 0; i < TM; ++i) {
    run_max[i] = -INFINITY;
    run_sum[i] = 0.f;
#pragma unroll
    for (int c = 0; c < NO; ++c) acc[i][c] = 0.f;
  }

  const int key_lo = blockIdx.y * keys_per_split;
  const int key_hi = min(n, key_lo + keys_per_split);
  for (int kt = key_lo; kt < key_hi; kt += Bc) {
    for (int e = threadIdx.x; e < Bc * (D / 4); e += kThreads) {
      const int r = e / (D / 4), k4 = e % (D / 4) * 4;
      const bool live = kt + r < n;
      const size_t g = size_t(kt + r) * D + k4;
      *reinterpret_cast<float4*>(kp_tile + r * T::ldk + k4) =
          live ? *reinterpret_cast<const float4*>(K + g) : zero4;
      *reinterpret_cast<float4*>(v_tile + r * D + k4) =
          live ? *reinterpret_cast<const float4*>(V + g) : zero4;
    }
    __syncthreads();

    float sc[TM][NC] = {};
    for (int k = 0; k < D; k += 4) {
      float4 kv[NC];
#pragma unroll
      for (int c = 0; c < NC; ++c)
        kv[c] = *reinterpret_cast<const float4*>(kp_tile + (col + kColGroups * c) * T::ldk + k);
#pragma unroll
      for (int i = 0; i < TM; ++i) {
        const float4 qv = *reinterpret_cast<const float4*>(q_tile + (row_group * TM + i) * T::ldq + k);
#pragma unroll
        for (int c = 0; c < NC; ++c)
          sc[i][c] += qv.x * kv[c].x + qv.y * kv[c].y + qv.z * kv[c].z + qv.w * kv[c].w;
      }
    }
    __syncthreads();  // K_j is dead: its rows take P^T next

#pragma unroll
    for (int i = 0; i < TM; ++i) {
      float tile_max = -INFINITY;
#pragma unroll
      for (int c = 0; c < NC; ++c) {
        if (kt + col + kColGroups * c >= n) sc[i][c] = -INFINITY;
        tile_max = fmaxf(tile_max, sc[i][c]);
      }
      const float new_max = fmaxf(run_max[i], half_warp_max(tile_max));
      const float alpha = __expf(run_max[i] - new_max);  // 0 on the first tile (e^-inf)
      float tile_sum = 0.f;
#pragma unroll
      for (int c = 0; c < NC; ++c) {
        sc[i][c] = __expf(sc[i][c] - new_max);
        tile_sum += sc[i][c];
      }
      run_sum[i] = alpha * run_sum[i] + half_warp_sum(tile_sum);
      run_max[i] = new_max;
#pragma unroll
      for (int c = 0; c < NO; ++c) acc[i][c] *= alpha;
    }

    float* pt = kp_tile;  // P^T: key-major, Br + kPad floats a key
#pragma unroll
    for (int c = 0; c < NC; ++c)
#pragma unroll
      for (int i = 0; i < TM; i += 4)
        *reinterpret_cast<float4*>(pt + (col + kColGroups * c) * T::ldp + row_group * TM + i) =
            make_float4(sc[i][c], sc[i + 1][c], sc[i + 2][c], sc[i + 3][c]);
    __syncthreads();

    for (int key = 0; key < Bc; ++key) {
      float w[TM];
#pragma unroll
      for (int i = 0; i < TM; i += 4) {
        const float4 w4 = *reinterpret_cast<const float4*>(pt + key * T::ldp + row_group * TM + i);
        w[i] = w4.x, w[i + 1] = w4.y, w[i + 2] = w4.z, w[i + 3] = w4.w;
      }
#pragma unroll
      for (int u = 0; u < D / 64; ++u) {
        const float4 v4 = *reinterpret_cast<const float4*>(v_tile + key * D + u * 64 + col * 4);
#pragma unroll
        for (int i = 0; i < TM; ++i) {
          acc[i][4 * u + 0] += w[i] * v4.x;
          acc[i][4 * u + 1] += w[i] * v4.y;
          acc[i][4 * u + 2] += w[i] * v4.z;
          acc[i][4 * u + 3] += w[i] * v4.w;
        }
      }
    }
    __syncthreads();
  }

  const bool split = gridDim.y > 1;
  float* dst = split ? partial_O + size_t(blockIdx.y) * n * D : O;
#pragma unroll
  for (int i = 0; i < TM; ++i) {
    const int r = first_row + row_group * TM + i;
    if (r >= n) continue;
    const float inv = 1.f / run_sum[i];
#pragma unroll
    for (int u = 0; u < D / 64; ++u)
      *reinterpret_cast<float4*>(dst + size_t(r) * D + u * 64 + col * 4) =
          make_float4(acc[i][4 * u] * inv, acc[i][4 * u + 1] * inv, acc[i][4 * u + 2] * inv,
                      acc[i][4 * u + 3] * inv);
    if (split && col == 0) partial_ml[size_t(blockIdx.y) * n + r] = make_float2(run_max[i], run_sum[i]);
  }
}

// O = sum_s l_s e^(m_s - M) O_s / sum_s l_s e^(m_s - M), M = max_s m_s (natural base).
template <int D>
__global__ void merge_kernel(const float* __restrict__ partial_O,
                             const float2* __restrict__ partial_ml, float* __restrict__ O, int n,
                             int splits) {
  const int t = blockIdx.x * blockDim.x + threadIdx.x;
  const int r = t / (D / 4), k4 = t % (D / 4) * 4;
  if (r >= n) return;
  float M = -INFINITY;
  for (int s = 0; s < splits; ++s) M = fmaxf(M, partial_ml[size_t(s) * n + r].x);
  float den = 0.f;
  float4 num = make_float4(0.f, 0.f, 0.f, 0.f);
  for (int s = 0; s < splits; ++s) {
    const float2 ml = partial_ml[size_t(s) * n + r];
    const float w = ml.y * __expf(ml.x - M);
    const float4 o = *reinterpret_cast<const float4*>(partial_O + (size_t(s) * n + r) * D + k4);
    num.x += w * o.x, num.y += w * o.y, num.z += w * o.z, num.w += w * o.w;
    den += w;
  }
  *reinterpret_cast<float4*>(O + size_t(r) * D + k4) =
      make_float4(num.x / den, num.y / den, num.z / den, num.w / den);
}

float* split_scratch(size_t bytes) {
  static float* buf = nullptr;
  static size_t have = 0;
  if (bytes > have) {
    if (buf) cudaFree(buf);
    buf = nullptr, have = 0;
    if (cudaMalloc(&buf, bytes) != cudaSuccess) return nullptr;
    have = bytes;
  }
  return buf;
}

template <int D, int TM, int Bc>
bool run(const float* Q, const float* K, const float* V, float* O, int n, int splits) {
  using T = Tiles<D, TM, Bc>;
  if (cudaFuncSetAttribute(attention_tile_kernel<D, TM, Bc>,
                           cudaFuncAttributeMaxDynamicSharedMemorySize,
                           int(T::bytes)) != cudaSuccess)
    return false;
  const int q_tiles = (n + T::Br - 1) / T::Br, k_tiles = (n + Bc - 1) / Bc;
  if (splits <= 0) {
    int sms = 0;
    cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0);
    splits = sms * T::min_blocks / q_tiles;
  }
  splits = std::max(1, std::min(splits, k_tiles));
  const int tiles_each = (k_tiles + splits - 1) / splits;
  const int keys_each = tiles_each * Bc;
  splits = (k_tiles + tiles_each - 1) / tiles_each;  // drop splits that would be empty
  float* part = nullptr;
  float2* ml = nullptr;
  if (splits > 1) {
    part = split_scratch(sizeof(float) * size_t(splits) * n * (D + 2));
    if (!part) return false;
    ml = reinterpret_cast<float2*>(part + size_t(splits) * n * D);
  }
  attention_tile_kernel<D, TM, Bc>
      <<<dim3(q_tiles, splits), kThreads, T::bytes>>>(Q, K, V, O, n, keys_each, part, ml);
  if (splits > 1) merge_kernel<D><<<(n * (D / 4) + 255) / 256, 256>>>(part, ml, O, n, splits);
  return true;
}

}  // namespace

bool flash_attention_fast_forward(const float* Q, const float* K, const float* V, float* O, int n,
                                  int d, int splits) {
  if (d == 64) return run<64, 8, 64>(Q, K, V, O, n, splits);
  if (d == 128) return run<128, 8, 32>(Q, K, V, O, n, splits);
  return false;
}

}  // namespace lesson13
