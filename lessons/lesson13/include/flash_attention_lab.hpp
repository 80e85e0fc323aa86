// Lesson 13 CUDA lab 3: FlashAttention's forward pass in fp32,
// O = softmax(Q K^T) V, with no 1/sqrt(d) factor (fold it into Q), as in the C++
// exercise. Q, K, V, O are n x d, row-major, device pointers.
//   flash_attention_forward   exercises/lesson13/flash_attention.cu (lab 3)
//   attention_naive           lessons/lesson13/reference/attention_naive.cu: three
//                             kernels that materialise S and P (n x n) in global memory
#pragma once

namespace lesson13 {

constexpr int kFlashBr = 16;  // query rows per block, one warp each (512 threads)
constexpr int kFlashBc = 32;  // key/value rows per shared-memory tile: one per lane

// d must be 32, 64 or 128; returns false (and launches nothing) otherwise.
bool flash_attention_forward(const float* Q, const float* K, const float* V, float* O, int n,
                             int d);

// S and P are n x n scratch buffers the caller provides.
void attention_naive(const float* Q, const float* K, const float* V, float* S, float* O, int n,
                     int d);

}  // namespace lesson13
