// Lesson 13 lab 0: eight warm-up kernels, each one idea further than the last.
// Fill in the BLANKs from the top, then grade with: grader lesson13 --unit lab_warmup
// (or keep `grader watch --unit lab_warmup` open: it names the first blank left).
//
// Notes chapter 5 ("Anatomy of a kernel") teaches each idea; §5.7 lists what is graded.
// The host function under each kernel launches it for you: read the launch, it tells
// how many blocks and threads there are. API: lessons/lesson13/include/warmup_lab.hpp.
#include <cuda_runtime.h>

#include "course/blank.hpp"
#include "warmup_lab.hpp"

namespace lesson13 {
namespace {

// 1. A map: one thread per element. The launch has exactly n threads (n is a multiple
//    of the block size), so every thread owns one element.
__global__ void square_kernel(const float* x, float* y) {
  // BEGIN SOLUTION
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  // PROMPT const int i = BLANK(i);  // this thread's element: the blocks before its block, then its place in it
  // END SOLUTION
  y[i] = x[i] * x[i];
}

// 2. A guard: n is any size now, and the launch rounds the block count up, so the last
//    block has threads with no element.
__global__ void square_guarded_kernel(const float* x, float* y, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  // BEGIN SOLUTION
  if (i >= n) return;
  // PROMPT BLANK_STMT(guard);  // a thread past the end must touch neither x nor y
  // END SOLUTION
  y[i] = x[i] * x[i];
}

// 3. A 2-D map: a 2-D grid of 2-D blocks over a rows x cols matrix, x along the columns.
__global__ void add_matrices_kernel(const float* A, const float* B, float* C, int rows,
                                    int cols) {
  // BEGIN SOLUTION
  const int r = blockIdx.y * blockDim.y + threadIdx.y;
  const int c = blockIdx.x * blockDim.x + threadIdx.x;
  // PROMPT const int r = BLANK(r);  // this thread's row, along the grid's y
  // PROMPT const int c = BLANK(c);  // its column, along x: a warp's lanes take neighbouring columns
  // END SOLUTION
  if (r >= rows || c >= cols) return;
  const size_t rc = size_t(r) * cols + c;  // row-major: element [r][c]
  C[rc] = A[rc] + B[rc];
}

// 4. A broadcast: every element of row r is divided by the same s[r]. The 32 lanes of a
//    warp share one row, so they all read one address of s: one sector per request.
__global__ void divide_rows_kernel(const float* X, const float* s, float* Y, int rows,
                                   int cols) {
  const int r = blockIdx.y * blockDim.y + threadIdx.y;
  const int c = blockIdx.x * blockDim.x + threadIdx.x;
  if (r >= rows || c >= cols) return;
  // BEGIN SOLUTION
  Y[size_t(r) * cols + c] = X[size_t(r) * cols + c] / s[r];
  // PROMPT Y[size_t(r) * cols + c] = BLANK(Y_rc);  // X[r][c] divided by its row's s
  // END SOLUTION
}

// 5. A block sum in shared memory: block b adds up its 256 elements (zero past n) by a
//    tree: 128 threads add pairs, then 64, ..., then 1. Thread 0 writes the result.
__global__ void block_sum_kernel(const float* x, float* partial, int n) {
  __shared__ float s[kWarmupBlock];
  const int t = threadIdx.x;
  const int i = blockIdx.x * blockDim.x + t;
  s[t] = i < n ? x[i] : 0.0f;  // past n, a zero that changes no sum
  // BEGIN SOLUTION
  __syncthreads();
  // PROMPT BLANK_STMT(barrier_after_load);  // no thread may read a partner's s before it is written
  // END SOLUTION
  for (int stride = kWarmupBlock / 2; stride > 0; stride /= 2) {
    // BEGIN SOLUTION
    if (t < stride) s[t] += s[t + stride];
    __syncthreads();
    // PROMPT BLANK_STMT(tree_step);        // the first `stride` threads each add the element `stride` further on
    // PROMPT BLANK_STMT(barrier_in_loop);  // this step done by every thread before the next step reads
    // END SOLUTION
  }
  if (t == 0) partial[blockIdx.x] = s[0];
}

// 6. A warp sum with shuffles: the 32 lanes of warp w add up its 32 elements through
//    each other's registers, with no shared memory and no __syncthreads(). Every lane
//    takes part in every shuffle (the full mask), so no lane returns early.
__global__ void warp_sum_kernel(const float* x, float* partial, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  float v = i < n ? x[i] : 0.0f;
  for (int offset = kWarpSize / 2; offset > 0; offset /= 2) {
    // BEGIN SOLUTION
    v += __shfl_down_sync(0xffffffffu, v, offset);
    // PROMPT v += BLANK(shuffle);  // the v of the lane `offset` lanes further on, read from its register
    // END SOLUTION
  }
  if (threadIdx.x % kWarpSize == 0 && i < n) partial[i / kWarpSize] = v;
}

// 7. An inclusive scan per block (Hillis-Steele): after the step with offset k, s[t]
//    holds the sum of the 2k elements up to t. Each step reads a partner, then writes:
//    two hazards, so two barriers.
__global__ void block_scan_kernel(const float* x, float* y, int n) {
  __shared__ float s[kWarmupBlock];
  const int t = threadIdx.x;
  const int i = blockIdx.x * blockDim.x + t;
  s[t] = i < n ? x[i] : 0.0f;
  __syncthreads();
  for (int offset = 1; offset < kWarmupBlock; offset *= 2) {
    // BEGIN SOLUTION
    const float partner = t >= offset ? s[t - offset] : 0.0f;
    __syncthreads();
    s[t] += partner;
    __syncthreads();
    // PROMPT const float partner = BLANK(partner);  // the element `offset` places back, when there is one
    // PROMPT BLANK_STMT(barrier_before_write);      // every thread has read its partner before any writes
    // PROMPT s[t] += partner;
    // PROMPT BLANK_STMT(barrier_after_write);       // every write done before the next step reads
    // END SOLUTION
  }
  if (i < n) y[i] = s[t];
}

// 8. A transpose through shared memory. Reading `in` by rows and writing `out` by rows
//    keeps both coalesced; the tile turns the rows into columns in between. Reading a
//    column of the tile puts all 32 lanes in one bank unless each row is padded.
// BEGIN SOLUTION
constexpr int PAD = TUNABLE(1);
// PROMPT constexpr int PAD = TUNABLE(0);  // floats added to each tile row: yours to change (warmup.transpose_banks)
// END SOLUTION

__global__ void transpose_kernel(const float* in, float* out, int rows, int cols) {
  __shared__ float tile[kTransposeTile][kTransposeTile + PAD];
  const int tx = threadIdx.x, ty = threadIdx.y;
  const int r0 = blockIdx.y * kTransposeTile, c0 = blockIdx.x * kTransposeTile;  // in's tile
  for (int j = ty; j < kTransposeTile; j += kTransposeRows) {
    const int r = r0 + j, c = c0 + tx;  // in[r][c]: a warp reads a row of the tile
    // BEGIN SOLUTION
    if (r < rows && c < cols) tile[j][tx] = in[size_t(r) * cols + c];
    // PROMPT if (r < rows && c < cols) tile[j][tx] = BLANK(tile_load);  // in's element [r][c]
    // END SOLUTION
  }
  // BEGIN SOLUTION
  __syncthreads();
  // PROMPT BLANK_STMT(tile_barrier);  // the whole tile loaded before any thread reads another's element
  // END SOLUTION
  for (int j = ty; j < kTransposeTile; j += kTransposeRows) {
    const int r = c0 + j, c = r0 + tx;  // out[r][c] (out is cols x rows): a warp writes a row
    // BEGIN SOLUTION
    if (r < cols && c < rows) out[size_t(r) * rows + c] = tile[tx][j];
    // PROMPT if (r < cols && c < rows) out[size_t(r) * rows + c] = BLANK(tile_read);  // in[c][r], from the tile
    // END SOLUTION
  }
}

}  // namespace

void square(const float* x, float* y, int n) {
  if (n <= 0) return;
  square_kernel<<<n / kWarmupBlock, kWarmupBlock>>>(x, y);
}

void square_guarded(const float* x, float* y, int n) {
  if (n <= 0) return;
  square_guarded_kernel<<<(n + kWarmupBlock - 1) / kWarmupBlock, kWarmupBlock>>>(x, y, n);
}

void add_matrices(const float* A, const float* B, float* C, int rows, int cols) {
  if (rows <= 0 || cols <= 0) return;
  const dim3 block(32, 8);
  const dim3 grid((cols + 31) / 32, (rows + 7) / 8);
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
