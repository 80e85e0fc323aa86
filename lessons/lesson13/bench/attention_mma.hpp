// The course's fastest attention (attention_mma.cu): bf16 FlashAttention-2 forward written with
// the tensor cores' own instructions, mma.sync, ldmatrix and cp.async, instead of lab 4's
// nvcuda::wmma. GPU only (inline PTX, sm_80 and later); the GPU timings quote it beside lab 4.
// Lab 4's contract: per head O = softmax(Q K^T) V with no 1/sqrt(d); Q, K, V, O are
// heads x n x d, row-major bf16 device pointers; sums and the softmax in float.
#pragma once

#include <cuda_bf16.h>

namespace lesson13::bench {

// d must be 64 or 128, n and heads at least 1; returns false (and launches nothing) otherwise.
bool attention_mma_bf16(const __nv_bfloat16* Q, const __nv_bfloat16* K, const __nv_bfloat16* V,
                        __nv_bfloat16* O, int heads, int n, int d);

}  // namespace lesson13::bench
