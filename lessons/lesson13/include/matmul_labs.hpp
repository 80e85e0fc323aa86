// Lesson 13 CUDA labs 1 and 2: matrix multiply C = A B, fp32, row-major,
// A is M x K, B is K x N, C is M x N. All pointers are device pointers; each
// function launches one kernel.
//   matmul_naive       lessons/lesson13/reference/matmul_naive.cu (given: the "before")
//   matmul_coalesced   exercises/lesson13/matmul_coalesced.cu   (lab 1)
//   matmul_tiled       exercises/lesson13/matmul_tiled.cu       (lab 2)
//   matmul_coarsened   exercises/lesson13/matmul_tiled.cu       (lab 2)
#pragma once

namespace lesson13 {

constexpr int kTile = 16;         // matmul_tiled: a 16 x 16 tile of C per block
constexpr int kCoarseTile = 64;   // matmul_coarsened: a 64 x 64 tile of C per block ...
constexpr int kCoarseFactor = 4;  // ... each thread computing 4 x 4 outputs

void matmul_naive(const float* A, const float* B, float* C, int M, int N, int K);
void matmul_coalesced(const float* A, const float* B, float* C, int M, int N, int K);
void matmul_tiled(const float* A, const float* B, float* C, int M, int N, int K);
void matmul_coarsened(const float* A, const float* B, float* C, int M, int N, int K);

}  // namespace lesson13
