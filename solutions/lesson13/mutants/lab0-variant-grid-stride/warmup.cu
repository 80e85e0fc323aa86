// Lab 0, a correct variant in another style: grid-stride loops with their own small
// launches for the maps, s[r] staged in shared memory for the broadcast, the block sum
// by interleaved addressing, the warp sum as an XOR butterfly, a scan over a
// zero-padded shared array, and the transpose with a 32 x 32 thread block.
#include <cuda_runtime.h>

#include "warmup_lab.hpp"

namespace lesson13 {
namespace {

// Both squares: each thread steps through the array a whole grid at a time.
__global__ void square_stride_kernel(const float* __restrict__ x, float* __restrict__ y, int n) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
    y[i] = x[i] * x[i];
}

void launch_square(const float* x, float* y, int n) {
  constexpr int threads = 128, most_blocks = 6;
  const int blocks = (n + threads - 1) / threads;
  square_stride_kernel<<<blocks < most_blocks ? blocks : most_blocks, threads>>>(x, y, n);
}

// A 2-D grid-stride loop: a small grid sweeps the matrix in both directions.
__global__ void add_matrices_kernel(const float* A, const float* B, float* C, int rows,
                                    int cols) {
  for (int r = blockIdx.y * blockDim.y + threadIdx.y; r < rows; r += gridDim.y * blockDim.y)
    for (int c = blockIdx.x * blockDim.x + threadIdx.x; c < cols; c += gridDim.x * blockDim.x) {
      const size_t rc = size_t(r) * cols + c;
      C[rc] = A[rc] + B[rc];
    }
}

// The broadcast through shared memory: lane 0 of each row of the block reads s[r] once
// and the row's 32 threads read it from the block's copy. No thread returns before the
// barrier.
__global__ void divide_rows_kernel(const float* X, const float* s, float* Y, int rows,
                                   int cols) {
  __shared__ float s_row[8];
  const int r = blockIdx.y * blockDim.y + threadIdx.y;
  const int c = blockIdx.x * blockDim.x + threadIdx.x;
  if (threadIdx.x == 0 && r < rows) s_row[threadIdx.y] = s[r];
  __syncthreads();
  if (r < rows && c < cols) Y[size_t(r) * cols + c] = X[size_t(r) * cols + c] / s_row[threadIdx.y];
}

// The block sum by interleaved addressing: at step `stride`, the threads at multiples
// of 2 * stride add the element `stride` further on (the textbook's first reduction).
__global__ void block_sum_kernel(const float* x, float* partial, int n) {
  __shared__ float s[kWarmupBlock];
  const unsigned t = threadIdx.x;
  const int i = blockIdx.x * kWarmupBlock + t;
  s[t] = i < n ? x[i] : 0.0f;
  __syncthreads();
  for (unsigned stride = 1; stride < kWarmupBlock; stride *= 2) {
    if (t % (2 * stride) == 0) s[t] += s[t + stride];
    __syncthreads();
  }
  if (t == 0) partial[blockIdx.x] = s[0];
}

// The warp sum as a butterfly: after the five XOR exchanges every lane holds the sum.
__global__ void warp_sum_kernel(const float* x, float* partial, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  const unsigned lane = threadIdx.x & 31u;
  float v = i < n ? x[i] : 0.0f;
  for (int mask = 16; mask >= 1; mask >>= 1) v += __shfl_xor_sync(0xffffffffu, v, mask);
  const int first = i - int(lane);  // the warp's first element
  if (lane == 0 && first < n) partial[first / 32] = v;
}

// The scan over a shared array twice the block's size whose first half stays zero, so
// that every thread reads its partner without a condition.
__global__ void block_scan_kernel(const float* x, float* y, int n) {
  __shared__ float s[2 * kWarmupBlock];
  const int t = threadIdx.x;
  const int i = blockIdx.x * kWarmupBlock + t;
  s[t] = 0.0f;
  s[kWarmupBlock + t] = i < n ? x[i] : 0.0f;
  __syncthreads();
  float* const data = s + kWarmupBlock;
  for (int offset = 1; offset < kWarmupBlock; offset <<= 1) {
    const float partner = data[t - offset];
    __syncthreads();
    data[t] += partner;
    __syncthreads();
  }
  if (i < n) y[i] = data[t];
}

// The transpose with 32 x 32 threads: each thread moves exactly one element.
constexpr int kT = 32;
__global__ void transpose_kernel(const float* in, float* out, int rows, int cols) {
  __shared__ float tile[kT][kT + 1];
  const int x = threadIdx.x, y = threadIdx.y;
  const int in_r = blockIdx.y * kT + y, in_c = blockIdx.x * kT + x;
  if (in_r < rows && in_c < cols) tile[y][x] = in[size_t(in_r) * cols + in_c];
  __syncthreads();
  const int out_r = blockIdx.x * kT + y, out_c = blockIdx.y * kT + x;  // out is cols x rows
  if (out_r < cols && out_c < rows) out[size_t(out_r) * rows + out_c] = tile[x][y];
}

}  // namespace

void square(const float* x, float* y, int n) {
  if (n > 0) launch_square(x, y, n);
}

void square_guarded(const float* x, float* y, int n) {
  if (n > 0) launch_square(x, y, n);
}

void add_matrices(const float* A, const float* B, float* C, int rows, int cols) {
  if (rows <= 0 || cols <= 0) return;
  const dim3 block(32, 4);
  const int gx = (cols + 31) / 32, gy = (rows + 3) / 4;
  const dim3 grid(gx < 2 ? gx : 2, gy < 3 ? gy : 3);
  add_matrices_kernel<<<grid, block>>>(A, B, C, rows, cols);
}

void divide_rows(const float* X, const float* s, float* Y, int rows, int cols) {
  if (rows <= 0 || cols <= 0) return;
  const dim3 block(32, 8);
  const dim3 grid((cols + 31) / 32, (rows + 7) / 8);
  divide_rows_kernel<<<grid, block>>>(X, s, Y, rows, cols);
}

void block_sum(const float* x, float* partial, int n) {
  if (n <= 0) return;
  block_sum_kernel<<<(n + kWarmupBlock - 1) / kWarmupBlock, kWarmupBlock>>>(x, partial, n);
}

void warp_sum(const float* x, float* partial, int n) {
  if (n <= 0) return;
  warp_sum_kernel<<<(n + 127) / 128, 128>>>(x, partial, n);
}

void block_scan(const float* x, float* y, int n) {
  if (n <= 0) return;
  block_scan_kernel<<<(n + kWarmupBlock - 1) / kWarmupBlock, kWarmupBlock>>>(x, y, n);
}

void transpose(const float* in, float* out, int rows, int cols) {
  if (rows <= 0 || cols <= 0) return;
  const dim3 block(kT, kT);
  const dim3 grid((cols + kT - 1) / kT, (rows + kT - 1) / kT);
  transpose_kernel<<<grid, block>>>(in, out, rows, cols);
}

}  // namespace lesson13
