// Lab 4's API: lesson 13's bf16 FlashAttention forward on tensor cores through nvcuda::wmma
// (exercises/lesson13/flash_attention_wmma.cu), timed by `--gpu`. Per head h, O_h = softmax(Q_h
// K_h^T) V_h with no 1/sqrt(d) (fold it into Q), as in the other labs. Q, K, V, O: heads x n x d,
// row-major, bf16 device pointers; sums and the softmax in float.
#pragma once

#include <cuda_bf16.h>

namespace lesson13 {

// d must be 64 or 128 and n >= 1; returns false (and launches nothing) otherwise.
bool flash_attention_wmma_forward(const __nv_bfloat16* Q, const __nv_bfloat16* K,
                                  const __nv_bfloat16* V, __nv_bfloat16* O, int heads, int n,
                                  int d);

}  // namespace lesson13
