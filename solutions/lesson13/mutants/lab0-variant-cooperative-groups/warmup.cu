// Lab 0, a correct variant with cooperative groups: the sums and the scan go through
// 32-thread tiles (cg::reduce, shfl_up) with the block's barriers as block.sync(); the
// maps take float2 pairs, four strided elements per thread, or a flat 1-D index; the
// transpose avoids bank conflicts with an XOR swizzle of the tile's columns, no padding.
#include <cooperative_groups.h>
#include <cooperative_groups/reduce.h>
#include <cuda_runtime.h>

#include "warmup_lab.hpp"

namespace cg = cooperative_groups;

namespace lesson13 {
namespace {

// n is a multiple of 256, so the array is n / 2 float2 pairs: one pair per thread.
__global__ void square_pairs_kernel(const float2* x, float2* y) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  const float2 v = x[i];
  y[i] = make_float2(v.x * v.x, v.y * v.y);
}

// Each block owns 4 * 256 elements; thread t takes t, t + 256, t + 512 and t + 768 of them,
// so a warp still reads 32 neighbours at a time.
constexpr int kPerThread = 4;
__global__ void square_guarded_kernel(const float* x, float* y, int n) {
  const int base = blockIdx.x * blockDim.x * kPerThread + threadIdx.x;
#pragma unroll
  for (int k = 0; k < kPerThread; ++k) {
    const int i = base + k * blockDim.x;
    if (i < n) y[i] = x[i] * x[i];
  }
}

// C = A + B is the same operation on every element, whatever its row: one flat index.
__global__ void add_flat_kernel(const float* A, const float* B, float* C, size_t count) {
  const size_t i = size_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i < count) C[i] = A[i] + B[i];
}

// A flat index too; the row comes back as i / cols.
__global__ void divide_flat_kernel(const float* X, const float* s, float* Y, int cols,
                                   size_t count) {
  const size_t i = size_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i < count) Y[i] = X[i] / s[i / cols];
}

// The block sum in two levels: each warp reduces its 32 elements with cg::reduce, lane 0
// puts the warp's total in shared memory, and warp 0 reduces the 8 totals.
__global__ void block_sum_kernel(const float* x, float* partial, int n) {
  __shared__ float warp_totals[kWarmupBlock / 32];
  const cg::thread_block block = cg::this_thread_block();
  const cg::thread_block_tile<32> warp = cg::tiled_partition<32>(block);
  const int i = blockIdx.x * kWarmupBlock + int(block.thread_rank());
  float v = cg::reduce(warp, i < n ? x[i] : 0.0f, cg::plus<float>());
  if (warp.thread_rank() == 0) warp_totals[warp.meta_group_rank()] = v;
  block.sync();
  if (warp.meta_group_rank() == 0) {
    v = warp.thread_rank() < kWarmupBlock / 32 ? warp_totals[warp.thread_rank()] : 0.0f;
    v = cg::reduce(warp, v, cg::plus<float>());
    if (warp.thread_rank() == 0) partial[blockIdx.x] = v;
  }
}

__global__ void warp_sum_kernel(const float* x, float* partial, int n) {
  const cg::thread_block_tile<32> warp = cg::tiled_partition<32>(cg::this_thread_block());
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  const float total = cg::reduce(warp, i < n ? x[i] : 0.0f, cg::plus<float>());
  if (warp.thread_rank() == 0 && i < n) partial[i / 32] = total;
}

// An inclusive scan of a tile's 32 values in registers (Kogge-Stone with shfl_up).
__device__ float tile_scan(const cg::thread_block_tile<32>& warp, float v) {
  for (unsigned d = 1; d < 32; d *= 2) {
    const float up = warp.shfl_up(v, d);
    if (warp.thread_rank() >= d) v += up;
  }
  return v;
}

// The block scan: each warp scans its 32 elements, warp 0 scans the 8 warp totals, and
// each warp adds the total of the warps before it (its carry).
__global__ void block_scan_kernel(const float* x, float* y, int n) {
  __shared__ float totals[kWarmupBlock / 32];
  const cg::thread_block block = cg::this_thread_block();
  const cg::thread_block_tile<32> warp = cg::tiled_partition<32>(block);
  const int i = blockIdx.x * kWarmupBlock + int(block.thread_rank());
  float v = tile_scan(warp, i < n ? x[i] : 0.0f);
  if (warp.thread_rank() == 31) totals[warp.meta_group_rank()] = v;
  block.sync();
  if (warp.meta_group_rank() == 0) {
    const unsigned lane = warp.thread_rank();
    const float t = tile_scan(warp, lane < kWarmupBlock / 32 ? totals[lane] : 0.0f);
    if (lane < kWarmupBlock / 32) totals[lane] = t;  // now inclusive over the warps
  }
  block.sync();
  if (warp.meta_group_rank() > 0) v += totals[warp.meta_group_rank() - 1];
  if (i < n) y[i] = v;
}

// The transpose with a swizzled tile: element (row, col) of the tile is kept in column
// col ^ row of its row. A warp writing a tile row hits 32 different columns, and a warp
// reading a tile column (row = lane) hits columns j ^ lane: 32 different banks too.
__global__ void transpose_kernel(const float* in, float* out, int rows, int cols) {
  __shared__ float tile[kTransposeTile][kTransposeTile];
  const int tx = threadIdx.x, ty = threadIdx.y;
  const int r0 = blockIdx.y * kTransposeTile, c0 = blockIdx.x * kTransposeTile;
  for (int j = ty; j < kTransposeTile; j += blockDim.y) {
    const int r = r0 + j, c = c0 + tx;
    if (r < rows && c < cols) tile[j][tx ^ j] = in[size_t(r) * cols + c];
  }
  cg::this_thread_block().sync();
  for (int j = ty; j < kTransposeTile; j += blockDim.y) {
    const int r = c0 + j, c = r0 + tx;  // out[r][c] = in[c][r] = tile[tx][j]
    if (r < cols && c < rows) out[size_t(r) * rows + c] = tile[tx][j ^ tx];
  }
}

}  // namespace

void square(const float* x, float* y, int n) {
  if (n <= 0) return;
  // n / 2 pairs in blocks of 128 threads: n / 256 blocks (device buffers are aligned).
  square_pairs_kernel<<<n / 256, 128>>>(reinterpret_cast<const float2*>(x),
                                       reinterpret_cast<float2*>(y));
}

void square_guarded(const float* x, float* y, int n) {
  if (n <= 0) return;
  constexpr int per_block = kWarmupBlock * kPerThread;
  square_guarded_kernel<<<(n + per_block - 1) / per_block, kWarmupBlock>>>(x, y, n);
}

void add_matrices(const float* A, const float* B, float* C, int rows, int cols) {
  if (rows <= 0 || cols <= 0) return;
  const size_t count = size_t(rows) * cols;
  add_flat_kernel<<<unsigned((count + 255) / 256), 256>>>(A, B, C, count);
}

void divide_rows(const float* X, const float* s, float* Y, int rows, int cols) {
  if (rows <= 0 || cols <= 0) return;
  const size_t count = size_t(rows) * cols;
  divide_flat_kernel<<<unsigned((count + 255) / 256), 256>>>(X, s, Y, cols, count);
}

void block_sum(const float* x, float* partial, int n) {
  if (n <= 0) return;
  block_sum_kernel<<<(n + kWarmupBlock - 1) / kWarmupBlock, kWarmupBlock>>>(x, partial, n);
}

void warp_sum(const float* x, float* partial, int n) {
  if (n <= 0) return;
  warp_sum_kernel<<<(n + kWarmupBlock - 1) / kWarmupBlock, kWarmupBlock>>>(x, partial, n);
}

void block_scan(const float* x, float* y, int n) {
  if (n <= 0) return;
  block_scan_kernel<<<(n + kWarmupBlock - 1) / kWarmupBlock, kWarmupBlock>>>(x, y, n);
}

void transpose(const float* in, float* out, int rows, int cols) {
  if (rows <= 0 || cols <= 0) return;
  const dim3 block(kTransposeTile, kTransposeRows);
  const dim3 grid((cols + kTransposeTile - 1) / kTransposeTile,
                  (rows + kTransposeTile - 1) / kTransposeTile);
  transpose_kernel<<<grid, block>>>(in, out, rows, cols);
}

}  // namespace lesson13
