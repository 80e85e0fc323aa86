// Standard attention as three kernels, for comparison with the FlashAttention lab:
// S = Q K^T is written to global memory (n x n), a row softmax turns it into P in
// place, and O = P V reads it back. Its HBM traffic grows like n^2.
#include <cuda_runtime.h>

#include "flash_attention_lab.hpp"

namespace lesson13 {
namespace {

__global__ void scores_kernel(const float* Q, const float* K, float* S, int n, int d) {
  const int c = blockIdx.x * blockDim.x + threadIdx.x, r = blockIdx.y * blockDim.y + threadIdx.y;
  if (r >= n || c >= n) return;
  float dot = 0.0f;
  for (int k = 0; k < d; ++k) dot += Q[r * d + k] * K[c * d + k];
  S[static_cast<long>(r) * n + c] = dot;  // n*n passes 2^31 at n = 46341
}

// One warp per row: max, then sum of exponentials, then normalise, in place.
__global__ void softmax_rows_kernel(float* S, int n) {
  const int r = blockIdx.x, lane = threadIdx.x;
  float* row = S + static_cast<long>(r) * n;
  float m = -INFINITY;
  for (int c = lane; c < n; c += 32) m = fmaxf(m, row[c]);
  for (int off = 16; off > 0; off /= 2) m = fmaxf(m, __shfl_xor_sync(0xffffffffu, m, off));
  float l = 0.0f;
  for (int c = lane; c < n; c += 32) l += expf(row[c] - m);
  for (int off = 16; off > 0; off /= 2) l += __shfl_xor_sync(0xffffffffu, l, off);
  for (int c = lane; c < n; c += 32) row[c] = expf(row[c] - m) / l;
}

__global__ void pv_kernel(const float* P, const float* V, float* O, int n, int d) {
  const int k = blockIdx.x * blockDim.x + threadIdx.x, r = blockIdx.y * blockDim.y + threadIdx.y;
  if (r >= n || k >= d) return;
  float acc = 0.0f;
  for (int c = 0; c < n; ++c) acc += P[static_cast<long>(r) * n + c] * V[c * d + k];
  O[r * d + k] = acc;
}

}  // namespace

void attention_naive(const float* Q, const float* K, const float* V, float* S, float* O, int n,
                     int d) {
  scores_kernel<<<dim3((n + 31) / 32, (n + 7) / 8), dim3(32, 8)>>>(Q, K, S, n, d);
  softmax_rows_kernel<<<n, 32>>>(S, n);
  pv_kernel<<<dim3((d + 31) / 32, (n + 7) / 8), dim3(32, 8)>>>(S, V, O, n, d);
}

}  // namespace lesson13
