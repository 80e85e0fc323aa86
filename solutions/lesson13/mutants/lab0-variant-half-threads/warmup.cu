// Lab 0, a correct variant with half the threads: the map gives each thread two elements
// half the array apart; the block sum and the scan use 128 threads for each block's 256
// elements (the sum adds a pair while loading, the scan is Blelloch's work-efficient
// up-sweep and down-sweep); the 2-D kernels take one row per block row of the grid and
// divide by a reciprocal; the transpose is done by one warp per tile.
#include <cuda_runtime.h>

#include "warmup_lab.hpp"

namespace lesson13 {
namespace {

constexpr int kHalf = kWarmupBlock / 2;  // 128 threads per block of 256 elements

// Thread i squares elements i and i + n / 2: both halves are read by consecutive lanes.
__global__ void square_two_kernel(const float* x, float* y, int half) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  y[i] = x[i] * x[i];
  y[i + half] = x[i + half] * x[i + half];
}

__global__ void square_guarded_kernel(const float* x, float* y, int n) {
  const unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < unsigned(n)) y[i] = x[i] * x[i];
}

// One row of the matrix per blockIdx.y, 128 columns per block.
__global__ void add_matrices_kernel(const float* A, const float* B, float* C, int cols) {
  const int c = blockIdx.x * blockDim.x + threadIdx.x;
  if (c >= cols) return;
  const size_t rc = size_t(blockIdx.y) * cols + c;
  C[rc] = A[rc] + B[rc];
}

__global__ void divide_rows_kernel(const float* X, const float* s, float* Y, int cols) {
  const int c = blockIdx.x * blockDim.x + threadIdx.x;
  const float inverse = 1.0f / s[blockIdx.y];  // the whole block's row: one value
  if (c < cols) Y[size_t(blockIdx.y) * cols + c] = X[size_t(blockIdx.y) * cols + c] * inverse;
}

// 128 threads per 256 elements: each thread adds two elements while loading them.
__global__ void block_sum_kernel(const float* x, float* partial, int n) {
  __shared__ float s[kHalf];
  const int t = threadIdx.x;
  const int i = blockIdx.x * kWarmupBlock + t;
  s[t] = (i < n ? x[i] : 0.0f) + (i + kHalf < n ? x[i + kHalf] : 0.0f);
  __syncthreads();
  for (int stride = kHalf / 2; stride > 0; stride >>= 1) {
    if (t < stride) s[t] += s[t + stride];
    __syncthreads();
  }
  if (t == 0) partial[blockIdx.x] = s[0];
}

// Unrolled, with the sum broadcast from lane 0 so every lane could use it.
__global__ void warp_sum_kernel(const float* x, float* partial, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  float v = i < n ? x[i] : 0.0f;
  v += __shfl_down_sync(0xffffffffu, v, 16);
  v += __shfl_down_sync(0xffffffffu, v, 8);
  v += __shfl_down_sync(0xffffffffu, v, 4);
  v += __shfl_down_sync(0xffffffffu, v, 2);
  v += __shfl_down_sync(0xffffffffu, v, 1);
  v = __shfl_sync(0xffffffffu, v, 0);
  const int warp = i / 32;
  if ((threadIdx.x & 31) == 0 && warp * 32 < n) partial[warp] = v;
}

// Blelloch's scan with 128 threads for 256 elements: the up-sweep builds a sum tree in
// place, the root is cleared, and the down-sweep turns the tree into exclusive prefix
// sums; adding each element back makes them inclusive.
__global__ void block_scan_kernel(const float* x, float* y, int n) {
  __shared__ float s[kWarmupBlock];
  const int t = threadIdx.x;
  const int base = blockIdx.x * kWarmupBlock;
  const float a = base + t < n ? x[base + t] : 0.0f;
  const float b = base + t + kHalf < n ? x[base + t + kHalf] : 0.0f;
  s[t] = a;
  s[t + kHalf] = b;
  int offset = 1;
  for (int d = kHalf; d > 0; d >>= 1) {  // up-sweep
    __syncthreads();
    if (t < d) {
      const int left = offset * (2 * t + 1) - 1, right = offset * (2 * t + 2) - 1;
      s[right] += s[left];
    }
    offset <<= 1;
  }
  if (t == 0) s[kWarmupBlock - 1] = 0.0f;
  for (int d = 1; d < kWarmupBlock; d <<= 1) {  // down-sweep
    offset >>= 1;
    __syncthreads();
    if (t < d) {
      const int left = offset * (2 * t + 1) - 1, right = offset * (2 * t + 2) - 1;
      const float l = s[left];
      s[left] = s[right];
      s[right] += l;
    }
  }
  __syncthreads();
  if (base + t < n) y[base + t] = s[t] + a;
  if (base + t + kHalf < n) y[base + t + kHalf] = s[t + kHalf] + b;
}

// One warp per 32 x 32 tile, no barrier but the warp's own: lane l loads column l of each
// of the tile's 32 rows (the warp reads a row of `in` at a time), then writes element l of
// each of the 32 rows of `out` (the warp writes a row of `out` at a time).
__global__ void transpose_kernel(const float* in, float* out, int rows, int cols) {
  __shared__ float tile[32][33];
  const int lane = threadIdx.x;
  const int r0 = blockIdx.y * 32, c0 = blockIdx.x * 32;
  const bool in_col = c0 + lane < cols, out_col = r0 + lane < rows;
  for (int j = 0; j < 32 && r0 + j < rows; ++j)
    if (in_col) tile[j][lane] = in[size_t(r0 + j) * cols + c0 + lane];
  __syncwarp();  // the block is this one warp
  for (int j = 0; j < 32 && c0 + j < cols; ++j)
    if (out_col) out[size_t(c0 + j) * rows + r0 + lane] = tile[lane][j];
}

}  // namespace

void square(const float* x, float* y, int n) {
  if (n <= 0) return;
  square_two_kernel<<<n / 2 / 128, 128>>>(x, y, n / 2);  // n / 2 is a multiple of 128
}

void square_guarded(const float* x, float* y, int n) {
  if (n <= 0) return;
  square_guarded_kernel<<<(n + 1023) / 1024, 1024>>>(x, y, n);
}

void add_matrices(const float* A, const float* B, float* C, int rows, int cols) {
  if (rows <= 0 || cols <= 0) return;
  add_matrices_kernel<<<dim3((cols + 127) / 128, rows), 128>>>(A, B, C, cols);
}

void divide_rows(const float* X, const float* s, float* Y, int rows, int cols) {
  if (rows <= 0 || cols <= 0) return;
  divide_rows_kernel<<<dim3((cols + 127) / 128, rows), 128>>>(X, s, Y, cols);
}

void block_sum(const float* x, float* partial, int n) {
  if (n <= 0) return;
  block_sum_kernel<<<(n + kWarmupBlock - 1) / kWarmupBlock, kHalf>>>(x, partial, n);
}

void warp_sum(const float* x, float* partial, int n) {
  if (n <= 0) return;
  warp_sum_kernel<<<(n + 1023) / 1024, 1024>>>(x, partial, n);
}

void block_scan(const float* x, float* y, int n) {
  if (n <= 0) return;
  block_scan_kernel<<<(n + kWarmupBlock - 1) / kWarmupBlock, kHalf>>>(x, y, n);
}

void transpose(const float* in, float* out, int rows, int cols) {
  if (rows <= 0 || cols <= 0) return;
  transpose_kernel<<<dim3((cols + 31) / 32, (rows + 31) / 32), 32>>>(in, out, rows, cols);
}

}  // namespace lesson13
