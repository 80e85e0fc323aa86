// Lab 3 done on the host: Q, K and V are copied back, attention is computed row by
// row on the CPU with an online softmax, and O is copied up. Right results; no kernel.
#include <cuda_runtime.h>

#include <cmath>
#include <vector>

#include "flash_attention_lab.hpp"

namespace lesson13 {

bool flash_attention_forward(const float* Q, const float* K, const float* V, float* O, int n,
                             int d) {
  if (n < 1 || (d != 32 && d != 64 && d != 128)) return false;
  const size_t size = size_t(n) * d;
  std::vector<float> q(size), k(size), v(size), o(size);
  cudaMemcpy(q.data(), Q, size * sizeof(float), cudaMemcpyDeviceToHost);
  cudaMemcpy(k.data(), K, size * sizeof(float), cudaMemcpyDeviceToHost);
  cudaMemcpy(v.data(), V, size * sizeof(float), cudaMemcpyDeviceToHost);
  std::vector<float> acc(d);
  for (int r = 0; r < n; ++r) {
    float m = -INFINITY, l = 0.0f;
    std::fill(acc.begin(), acc.end(), 0.0f);
    for (int j = 0; j < n; ++j) {
      float s = 0.0f;
      for (int c = 0; c < d; ++c) s += q[size_t(r) * d + c] * k[size_t(j) * d + c];
      const float m_new = std::max(m, s), rescale = std::exp(m - m_new), p = std::exp(s - m_new);
      l = l * rescale + p;
      for (int c = 0; c < d; ++c) acc[c] = acc[c] * rescale + p * v[size_t(j) * d + c];
      m = m_new;
    }
    for (int c = 0; c < d; ++c) o[size_t(r) * d + c] = acc[c] / l;
  }
  cudaMemcpy(O, o.data(), size * sizeof(float), cudaMemcpyHostToDevice);
  return true;
}

}  // namespace lesson13
