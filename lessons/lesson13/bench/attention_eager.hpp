// The eager-framework attention baseline of lesson 13's GPU timings (attention_eager.cu):
// cuBLAS SGEMM, a row softmax, cuBLAS SGEMM, fp32, S (n x n) in device memory. Row-major
// Q, K, V, O are n x d; the handle's math mode decides TF32 (the bench keeps plain fp32).
#pragma once

#include <cublas_v2.h>

namespace lesson13::bench {

void attention_eager(cublasHandle_t handle, const float* Q, const float* K, const float* V,
                     float* S, float* O, int n, int d);

}  // namespace lesson13::bench
