// Lab 0, a correct variant built from device helpers: a warp reduction and a warp scan
// shared by the kernels, a block sum that collects its 8 warp totals with atomicAdd on a
// shared accumulator, a thread-coarsened scan (32 threads each scan 8 consecutive
// elements serially, a warp scan of their totals, then each adds its carry), the maps
// with `if (in range)` over `threadIdx.x + blockIdx.x * blockDim.x` written with
// unsigned indices, and a transpose with 32 x 32 threads and an XOR-swizzled tile.
#include <cuda_runtime.h>

#include "warmup_lab.hpp"

namespace lesson13 {
namespace {

__device__ __forceinline__ unsigned global_index() {
  return blockIdx.x * blockDim.x + threadIdx.x;
}

__device__ __forceinline__ float warp_reduce_sum(float v) {
  for (int offset = 16; offset > 0; offset /= 2) v += __shfl_down_sync(0xffffffffu, v, offset);
  return v;  // the total is in lane 0
}

__device__ __forceinline__ float warp_inclusive_scan(float v, unsigned lane) {
  for (unsigned d = 1; d < 32; d *= 2) {
    const float below = __shfl_up_sync(0xffffffffu, v, d);
    v += lane >= d ? below : 0.0f;
  }
  return v;
}

__global__ void square_kernel(const float* x, float* y) {
  const unsigned i = global_index();
  y[i] = x[i] * x[i];
}

__global__ void square_guarded_kernel(const float* x, float* y, unsigned n) {
  const unsigned i = global_index();
  if (i < n) y[i] = x[i] * x[i];
}

__global__ void add_matrices_kernel(const float* A, const float* B, float* C, unsigned rows,
                                    unsigned cols) {
  const unsigned c = blockIdx.x * blockDim.x + threadIdx.x;
  const unsigned r = blockIdx.y * blockDim.y + threadIdx.y;
  if (r < rows && c < cols) C[size_t(r) * cols + c] = A[size_t(r) * cols + c] + B[size_t(r) * cols + c];
}

__global__ void divide_rows_kernel(const float* X, const float* s, float* Y, unsigned rows,
                                   unsigned cols) {
  const unsigned c = blockIdx.x * blockDim.x + threadIdx.x;
  const unsigned r = blockIdx.y * blockDim.y + threadIdx.y;
  if (r < rows && c < cols) {
    const size_t at = size_t(r) * cols + c;
    Y[at] = X[at] / s[r];
  }
}

// Each warp reduces its 32 elements in registers; lane 0 adds the warp's total to the
// block's accumulator in shared memory with atomicAdd.
__global__ void block_sum_kernel(const float* x, float* partial, unsigned n) {
  __shared__ float total;
  const unsigned i = global_index();
  if (threadIdx.x == 0) total = 0.0f;
  __syncthreads();
  const float v = warp_reduce_sum(i < n ? x[i] : 0.0f);
  if (threadIdx.x % 32 == 0) atomicAdd(&total, v);
  __syncthreads();
  if (threadIdx.x == 0) partial[blockIdx.x] = total;
}

__global__ void warp_sum_kernel(const float* x, float* partial, unsigned n) {
  const unsigned i = global_index();
  const float v = warp_reduce_sum(i < n ? x[i] : 0.0f);
  if (threadIdx.x % 32 == 0 && i < n) partial[i / 32] = v;
}

// 32 threads per block of 256 elements: thread t scans elements 8t .. 8t + 7 serially in
// shared memory, one warp scan turns the 32 chunk totals into carries, and each thread
// adds the carry of the chunks before its own.
constexpr int kChunk = kWarmupBlock / 32;
__global__ void block_scan_kernel(const float* x, float* y, unsigned n) {
  __shared__ float s[kWarmupBlock];
  const unsigned t = threadIdx.x, base = blockIdx.x * kWarmupBlock;
  for (unsigned k = t; k < kWarmupBlock; k += 32) s[k] = base + k < n ? x[base + k] : 0.0f;
  __syncwarp();  // the block is one warp
  float running = 0.0f;
  for (int k = 0; k < kChunk; ++k) {
    running += s[t * kChunk + k];
    s[t * kChunk + k] = running;
  }
  const float carry = warp_inclusive_scan(running, t) - running;  // chunks before t
  for (int k = 0; k < kChunk; ++k) s[t * kChunk + k] += carry;
  __syncwarp();
  for (unsigned k = t; k < kWarmupBlock; k += 32)
    if (base + k < n) y[base + k] = s[k];
}

// 32 x 32 threads, one element each; the tile's element (row, col) is stored in column
// col ^ row, so both the row writes and the column reads touch 32 different banks.
__global__ void transpose_kernel(const float* in, float* out, int rows, int cols) {
  __shared__ float tile[32][32];
  const int x = threadIdx.x, y = threadIdx.y;
  const int r = blockIdx.y * 32 + y, c = blockIdx.x * 32 + x;
  if (r < rows && c < cols) tile[y][x ^ y] = in[size_t(r) * cols + c];
  __syncthreads();
  const int out_r = blockIdx.x * 32 + y, out_c = blockIdx.y * 32 + x;
  if (out_r < cols && out_c < rows) out[size_t(out_r) * rows + out_c] = tile[x][y ^ x];
}

}  // namespace

void square(const float* x, float* y, int n) {
  if (n <= 0) return;
  square_kernel<<<n / kWarmupBlock, kWarmupBlock>>>(x, y);
}

void square_guarded(const float* x, float* y, int n) {
  if (n <= 0) return;
  square_guarded_kernel<<<(n + 511) / 512, 512>>>(x, y, unsigned(n));
}

void add_matrices(const float* A, const float* B, float* C, int rows, int cols) {
  if (rows <= 0 || cols <= 0) return;
  const dim3 block(64, 2);
  add_matrices_kernel<<<dim3((cols + 63) / 64, (rows + 1) / 2), block>>>(A, B, C, rows, cols);
}

void divide_rows(const float* X, const float* s, float* Y, int rows, int cols) {
  if (rows <= 0 || cols <= 0) return;
  const dim3 block(32, 32);
  divide_rows_kernel<<<dim3((cols + 31) / 32, (rows + 31) / 32), block>>>(X, s, Y, rows, cols);
}

void block_sum(const float* x, float* partial, int n) {
  if (n <= 0) return;
  block_sum_kernel<<<(n + kWarmupBlock - 1) / kWarmupBlock, kWarmupBlock>>>(x, partial,
                                                                            unsigned(n));
}

void warp_sum(const float* x, float* partial, int n) {
  if (n <= 0) return;
  warp_sum_kernel<<<(n + 63) / 64, 64>>>(x, partial, unsigned(n));
}

void block_scan(const float* x, float* y, int n) {
  if (n <= 0) return;
  block_scan_kernel<<<(n + kWarmupBlock - 1) / kWarmupBlock, 32>>>(x, y, unsigned(n));
}

void transpose(const float* in, float* out, int rows, int cols) {
  if (rows <= 0 || cols <= 0) return;
  transpose_kernel<<<dim3((cols + 31) / 32, (rows + 31) / 32), dim3(32, 32)>>>(in, out, rows,
                                                                               cols);
}

}  // namespace lesson13
