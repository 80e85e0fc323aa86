// The eager-framework attention baseline of lesson 13's GPU timings (attention_eager.cu):
// cuBLAS SGEMM, a row softmax, cuBLAS SGEMM, fp32, S (n x n) in device memory. Row-major
// Q, K, V, O are n x d; the handle's math mode decides TF32 (the bench keeps plain fp32).
#pragma once

#include <cublas_v2.h>
#include <cuda_bf16.h>

namespace lesson13::bench {

void attention_eager(cublasHandle_t handle, const float* Q, const float* K, const float* V,
                     float* S, float* O, int n, int d);
// The same in bf16 for `heads` heads (heads x n x d each, S heads x n x n), as eager
// PyTorch runs bf16 attention: bf16 GEMMs accumulating in float, a bf16 softmax.
void attention_eager_bf16(cublasHandle_t handle, const __nv_bfloat16* Q, const __nv_bfloat16* K,
                          const __nv_bfloat16* V, __nv_bfloat16* S, __nv_bfloat16* O, int heads,
                          int n, int d);

}  // namespace lesson13::bench
