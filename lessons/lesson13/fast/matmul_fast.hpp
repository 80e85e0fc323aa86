// Lesson 13's fast fp32 matmul (fast/matmul_fast.cu): lab 2's coarsening taken to 8 x 8
// register blocks, timed by `--gpu` against cuBLAS SGEMM. Same contract as the labs'
// matmuls (matmul_labs.hpp): C = A B, row-major, A M x K, B K x N, device pointers.
#pragma once

namespace lesson13 {

void matmul_fast(const float* A, const float* B, float* C, int M, int N, int K);

}  // namespace lesson13
