// Lesson 13's fast fp32 FlashAttention forward (fast/flash_attention_fast.cu): the
// register-tiled kernel the notes build lab 3 up to, timed by `--gpu` against eager
// attention on cuBLAS. Same contract as flash_attention_forward (flash_attention_lab.hpp):
// O = softmax(Q K^T) V, no 1/sqrt(d), Q, K, V, O n x d row-major device pointers.
#pragma once

namespace lesson13 {

// d must be 64 or 128; returns false (and launches nothing) otherwise.
bool flash_attention_fast_forward(const float* Q, const float* K, const float* V, float* O, int n,
                                  int d);

}  // namespace lesson13
