// Lab 0, a correct variant in another style: other block shapes for the maps (guards
// wrapping the work instead of early returns), a block sum whose last 32 partial sums
// are added by one warp with shuffles, a warp sum as a warp-wide inclusive scan read
// from the last lane, a double-buffered scan (two shared arrays, one barrier per step)
// and a transpose through a flat, padded 1-D tile with 32 x 16 threads.
#include <cuda_runtime.h>

#include "warmup_lab.hpp"

namespace lesson13 {
namespace {

constexpr unsigned kFull = 0xffffffffu;

__global__ void square_kernel(const float* x, float* y) {
  const int i = threadIdx.x + blockDim.x * blockIdx.x;
  const float v = x[i];
  y[i] = v * v;
}

__global__ void square_guarded_kernel(const float* x, float* y, int n) {
  const int i = threadIdx.x + blockDim.x * blockIdx.x;
  if (i < n) {
    const float v = x[i];
    y[i] = v * v;
  }
}

__global__ void add_matrices_kernel(const float* A, const float* B, float* C, int rows,
                                    int cols) {
  const int col = threadIdx.x + blockIdx.x * blockDim.x;
  const int row = threadIdx.y + blockIdx.y * blockDim.y;
  if (row < rows && col < cols) {
    const size_t at = size_t(row) * size_t(cols) + size_t(col);
    C[at] = A[at] + B[at];
  }
}

__global__ void divide_rows_kernel(const float* X, const float* s, float* Y, int rows,
                                   int cols) {
  const int col = threadIdx.x + blockIdx.x * blockDim.x;
  const int row = threadIdx.y + blockIdx.y * blockDim.y;
  if (row < rows && col < cols) {
    const float d = s[row];
    Y[size_t(row) * cols + col] = X[size_t(row) * cols + col] / d;
  }
}

// The tree in shared memory down to 64 partial sums; then warp 0 adds the last pairs
// (s[t] + s[t + 32]) and finishes with shuffles, with no more barriers.
__global__ void block_sum_kernel(const float* x, float* partial, int n) {
  __shared__ float s[kWarmupBlock];
  const int t = threadIdx.x;
  const int i = blockIdx.x * kWarmupBlock + t;
  s[t] = i < n ? x[i] : 0.0f;
  __syncthreads();
  for (int stride = kWarmupBlock / 2; stride >= 64; stride >>= 1) {
    if (t < stride) s[t] = s[t] + s[t + stride];
    __syncthreads();
  }
  if (t < 32) {
    float v = s[t] + s[t + 32];
    v += __shfl_down_sync(kFull, v, 16);
    v += __shfl_down_sync(kFull, v, 8);
    v += __shfl_down_sync(kFull, v, 4);
    v += __shfl_down_sync(kFull, v, 2);
    v += __shfl_down_sync(kFull, v, 1);
    if (t == 0) partial[blockIdx.x] = v;
  }
}

// The warp sum as an inclusive scan across the warp: lane 31 ends with the total.
// One warp per block.
__global__ void warp_sum_kernel(const float* x, float* partial, int n) {
  const int lane = threadIdx.x;
  const int first = blockIdx.x * 32;
  float v = first + lane < n ? x[first + lane] : 0.0f;
  for (int d = 1; d < 32; d <<= 1) {
    const float below = __shfl_up_sync(kFull, v, d);
    if (lane >= d) v += below;
  }
  if (lane == 31) partial[blockIdx.x] = v;
}

// The scan double-buffered: step k reads buffer k % 2 and writes buffer (k + 1) % 2, so a
// step never writes what it reads, and one barrier per step is enough.
__global__ void block_scan_kernel(const float* x, float* y, int n) {
  __shared__ float buf[2][kWarmupBlock];
  const int t = threadIdx.x;
  const int i = blockIdx.x * kWarmupBlock + t;
  int in = 0;
  buf[in][t] = i < n ? x[i] : 0.0f;
  __syncthreads();
  for (int offset = 1; offset < kWarmupBlock; offset *= 2) {
    const int out = 1 - in;
    buf[out][t] = t >= offset ? buf[in][t] + buf[in][t - offset] : buf[in][t];
    __syncthreads();
    in = out;
  }
  if (i < n) y[i] = buf[in][t];
}

// The tile as one flat array of 32 rows of 33 floats; 32 x 16 threads, 2 rows each.
constexpr int kTile = 32, kStride = kTile + 1, kRowsPerPass = 16;
__global__ void transpose_kernel(const float* in, float* out, int rows, int cols) {
  __shared__ float tile[kTile * kStride];
  const int bx = blockIdx.x * kTile, by = blockIdx.y * kTile;
  for (int k = threadIdx.y; k < kTile; k += kRowsPerPass)
    if (by + k < rows && bx + threadIdx.x < cols)
      tile[k * kStride + threadIdx.x] = in[size_t(by + k) * cols + bx + threadIdx.x];
  __syncthreads();
  for (int k = threadIdx.y; k < kTile; k += kRowsPerPass)
    if (bx + k < cols && by + threadIdx.x < rows)
      out[size_t(bx + k) * rows + by + threadIdx.x] = tile[threadIdx.x * kStride + k];
}

}  // namespace

void square(const float* x, float* y, int n) {
  if (n <= 0) return;
  square_kernel<<<n / 64, 64>>>(x, y);  // n is a multiple of 256, so of 64
}

void square_guarded(const float* x, float* y, int n) {
  if (n <= 0) return;
  square_guarded_kernel<<<(n + 95) / 96, 96>>>(x, y, n);
}

void add_matrices(const float* A, const float* B, float* C, int rows, int cols) {
  if (rows <= 0 || cols <= 0) return;
  const dim3 block(16, 16);
  add_matrices_kernel<<<dim3((cols + 15) / 16, (rows + 15) / 16), block>>>(A, B, C, rows, cols);
}

void divide_rows(const float* X, const float* s, float* Y, int rows, int cols) {
  if (rows <= 0 || cols <= 0) return;
  const dim3 block(64, 4);
  divide_rows_kernel<<<dim3((cols + 63) / 64, (rows + 3) / 4), block>>>(X, s, Y, rows, cols);
}

void block_sum(const float* x, float* partial, int n) {
  if (n <= 0) return;
  block_sum_kernel<<<(n + kWarmupBlock - 1) / kWarmupBlock, kWarmupBlock>>>(x, partial, n);
}

void warp_sum(const float* x, float* partial, int n) {
  if (n <= 0) return;
  warp_sum_kernel<<<(n + 31) / 32, 32>>>(x, partial, n);
}

void block_scan(const float* x, float* y, int n) {
  if (n <= 0) return;
  block_scan_kernel<<<(n + kWarmupBlock - 1) / kWarmupBlock, kWarmupBlock>>>(x, y, n);
}

void transpose(const float* in, float* out, int rows, int cols) {
  if (rows <= 0 || cols <= 0) return;
  const dim3 grid((cols + kTile - 1) / kTile, (rows + kTile - 1) / kTile);
  transpose_kernel<<<grid, dim3(kTile, kRowsPerPass)>>>(in, out, rows, cols);
}

}  // namespace lesson13
