// Lesson 13 lab 0: eight warm-up kernels, each one idea further than the last
// (notes chapter 5, "Anatomy of a kernel"). fp32, row-major; every pointer is a
// device pointer and every function launches one kernel. All of them live in
// exercises/lesson13/warmup.cu:
//   square          y[i] = x[i]^2, n a multiple of kWarmupBlock     (a map)
//   square_guarded  the same for any n                              (a bounds guard)
//   add_matrices    C = A + B, rows x cols                          (a 2-D map)
//   divide_rows     Y[r][c] = X[r][c] / s[r]                        (a broadcast)
//   block_sum       partial[b] = the sum of block b's elements      (shared memory, barriers)
//   warp_sum        partial[w] = the sum of warp w's 32 elements    (warp shuffles)
//   block_scan      inclusive prefix sums within each block         (a scan)
//   transpose       out (cols x rows) = in (rows x cols) transposed (a padded shared tile)
#pragma once

namespace lesson13 {

constexpr int kWarmupBlock = 256;   // threads per block of the 1-D kernels: block b owns
                                    // elements [b * 256, b * 256 + 256)
constexpr int kWarpSize = 32;       // warp_sum: warp w owns elements [32 w, 32 w + 32)
constexpr int kTransposeTile = 32;  // transpose: a 32 x 32 tile per block ...
constexpr int kTransposeRows = 8;   // ... of 32 x 8 threads, each moving 4 of its rows

void square(const float* x, float* y, int n);
void square_guarded(const float* x, float* y, int n);
void add_matrices(const float* A, const float* B, float* C, int rows, int cols);
void divide_rows(const float* X, const float* s, float* Y, int rows, int cols);
void block_sum(const float* x, float* partial, int n);  // partial: ceil(n / 256) floats
void warp_sum(const float* x, float* partial, int n);   // partial: ceil(n / 32) floats
void block_scan(const float* x, float* y, int n);
void transpose(const float* in, float* out, int rows, int cols);

}  // namespace lesson13
