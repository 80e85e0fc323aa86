// The honest attention baseline of the GPU timings (issue 26): standard attention the way
// an eager framework runs it, S = Q K^T by cuBLAS SGEMM, a row softmax kernel in place,
// O = P V by cuBLAS SGEMM, all fp32 (no TF32), no 1/sqrt(d) scale as in the labs. S is
// n x n in HBM, as in eager PyTorch. The lab kernels are timed against it as well as
// against the naive three-kernel attention (reference/attention_naive.cu).
#include <cublas_v2.h>
#include <cuda_bf16.h>
#include <cuda_runtime.h>

#include <cmath>

#include "attention_eager.hpp"

namespace lesson13::bench {
namespace {

constexpr int kThreads = 256;

// (m, l) of two partial rows merged: the max of both, each sum rescaled to it.
__device__ void merge(float& m, float& l, float m2, float l2) {
  const float m_new = fmaxf(m, m2);
  if (m_new == -INFINITY) return;  // both empty
  l = l * expf(m - m_new) + l2 * expf(m2 - m_new);
  m = m_new;
}

// One block per row: one online pass for the row's max and sum (float4 loads where the
// row allows), a block reduction, then a second pass that writes P = exp(S - m) / l.
// Two reads and one write of S, as a framework's fused softmax kernel does.
__global__ void softmax_rows(float* S, int n) {
  float* row = S + static_cast<size_t>(blockIdx.x) * n;
  const bool vec = n % 4 == 0;
  float m = -INFINITY, l = 0.0f;
  if (vec) {
    const float4* row4 = reinterpret_cast<const float4*>(row);
    for (int c = threadIdx.x; c < n / 4; c += blockDim.x) {
      const float4 v = row4[c];
      const float vm = fmaxf(fmaxf(v.x, v.y), fmaxf(v.z, v.w));
      merge(m, l, vm, expf(v.x - vm) + expf(v.y - vm) + expf(v.z - vm) + expf(v.w - vm));
    }
  } else {
    for (int c = threadIdx.x; c < n; c += blockDim.x) merge(m, l, row[c], 1.0f);
  }
  for (int off = 16; off > 0; off /= 2)
    merge(m, l, __shfl_xor_sync(0xffffffffu, m, off), __shfl_xor_sync(0xffffffffu, l, off));
  __shared__ float wm[kThreads / 32], wl[kThreads / 32];
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  if (lane == 0) wm[warp] = m, wl[warp] = l;
  __syncthreads();
  m = -INFINITY, l = 0.0f;
  for (int w = 0; w < kThreads / 32; ++w) merge(m, l, wm[w], wl[w]);
  const float inv_l = 1.0f / l;
  if (vec) {
    float4* row4 = reinterpret_cast<float4*>(row);
    for (int c = threadIdx.x; c < n / 4; c += blockDim.x) {
      float4 v = row4[c];
      v.x = expf(v.x - m) * inv_l, v.y = expf(v.y - m) * inv_l;
      v.z = expf(v.z - m) * inv_l, v.w = expf(v.w - m) * inv_l;
      row4[c] = v;
    }
  } else {
    for (int c = threadIdx.x; c < n; c += blockDim.x) row[c] = expf(row[c] - m) * inv_l;
  }
}

// The bf16 softmax of eager frameworks: a row of bf16 scores in, bf16 weights out, the
// max and sum in float. One block per row, two reads and one write of S.
__global__ void softmax_rows_bf16(__nv_bfloat16* S, int n) {
  __nv_bfloat16* row = S + static_cast<size_t>(blockIdx.x) * n;
  float m = -INFINITY, l = 0.0f;
  for (int c = threadIdx.x; c < n; c += blockDim.x) merge(m, l, __bfloat162float(row[c]), 1.0f);
  for (int off = 16; off > 0; off /= 2)
    merge(m, l, __shfl_xor_sync(0xffffffffu, m, off), __shfl_xor_sync(0xffffffffu, l, off));
  __shared__ float wm[kThreads / 32], wl[kThreads / 32];
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  if (lane == 0) wm[warp] = m, wl[warp] = l;
  __syncthreads();
  m = -INFINITY, l = 0.0f;
  for (int w = 0; w < kThreads / 32; ++w) merge(m, l, wm[w], wl[w]);
  const float inv_l = 1.0f / l;
  for (int c = threadIdx.x; c < n; c += blockDim.x)
    row[c] = __float2bfloat16(expf(__bfloat162float(row[c]) - m) * inv_l);
}

}  // namespace

void attention_eager_bf16(cublasHandle_t handle, const __nv_bfloat16* Q, const __nv_bfloat16* K,
                          const __nv_bfloat16* V, __nv_bfloat16* S, __nv_bfloat16* O, int heads,
                          int n, int d) {
  const float one = 1.0f, zero = 0.0f;
  const long long nd = static_cast<long long>(n) * d, nn = static_cast<long long>(n) * n;
  // As attention_eager, one GEMM for all heads (strided batches), fp32 accumulation.
  cublasGemmStridedBatchedEx(handle, CUBLAS_OP_T, CUBLAS_OP_N, n, n, d, &one, K, CUDA_R_16BF, d, nd,
                             Q, CUDA_R_16BF, d, nd, &zero, S, CUDA_R_16BF, n, nn, heads,
                             CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT);
  softmax_rows_bf16<<<heads * n, kThreads>>>(S, n);
  cublasGemmStridedBatchedEx(handle, CUBLAS_OP_N, CUBLAS_OP_N, d, n, n, &one, V, CUDA_R_16BF, d, nd,
                             S, CUDA_R_16BF, n, nn, &zero, O, CUDA_R_16BF, d, nd, heads,
                             CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT);
}

void attention_eager(cublasHandle_t handle, const float* Q, const float* K, const float* V,
                     float* S, float* O, int n, int d) {
  const float one = 1.0f, zero = 0.0f;
  // Row-major S = Q K^T is column-major S^T = K Q^T: K and Q are column-major d x n.
  cublasSgemm(handle, CUBLAS_OP_T, CUBLAS_OP_N, n, n, d, &one, K, d, Q, d, &zero, S, n);
  softmax_rows<<<n, kThreads>>>(S, n);
  // Row-major O = P V is column-major O^T = V^T P^T: V is column-major d x n, P^T n x n.
  cublasSgemm(handle, CUBLAS_OP_N, CUBLAS_OP_N, d, n, n, &one, V, d, S, n, &zero, O, d);
}

}  // namespace lesson13::bench
