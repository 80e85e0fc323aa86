// Lab 4's kernel step by step, validated and then timed through one harness (llm.c's
// dev/cuda style): step 0 (S and P through shared memory), step 1 (S and P in
// registers), step 2 (the lab's solution: step 1 with loads in flight) and what was tried
// beyond it. Each runs n = 1, 15, 100, 130, 257 (2 heads, every row) and n = 4096 (8 rows
// of each head) against a double-precision attention of the same bf16 inputs, then is
// timed (median of 20 after 3 warm-ups) at 16 heads x 4096 and 4 heads x 16384, d = 64
// and 128; TFLOP/s count 4 n^2 d a head. Build and run on a GPU machine:
//   solutions/lesson13/bench/wmma_steps/wmma_steps.sh
//   /tmp/wmma_steps NAME D     one variant at 16 heads x 4096 (for Nsight Compute)
#include <cuda_bf16.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>
#include <vector>

#include "attention_check.hpp"
#include "flash_attention_wmma.hpp"
#include "wmma_steps.hpp"

namespace {

using fwd_t = wmma_steps::forward_fn;
// Relative error of sample_rows rows of each head (attention_check.hpp).
double check_one(fwd_t fn, int heads, int n, int d, int sample_rows, unsigned seed) {
  const size_t elems = size_t(heads) * n * d;
  std::mt19937 rng(seed);
  std::normal_distribution<float> dist(0.f, 1.f);
  std::vector<__nv_bfloat16> q(elems), k(elems), v(elems);
  const float qs = 1.0f / std::sqrt(float(d)) * (n < 200 ? 8.0f : 1.0f);
  for (size_t i = 0; i < elems; ++i) {
    q[i] = __float2bfloat16(dist(rng) * qs);
    k[i] = __float2bfloat16(dist(rng));
    v[i] = __float2bfloat16(dist(rng));
  }
  __nv_bfloat16 *Q, *K, *V, *O;
  cudaMalloc(&Q, elems * 2);
  cudaMalloc(&K, elems * 2);
  cudaMalloc(&V, elems * 2);
  cudaMalloc(&O, elems * 2);
  cudaMemcpy(Q, q.data(), elems * 2, cudaMemcpyHostToDevice);
  cudaMemcpy(K, k.data(), elems * 2, cudaMemcpyHostToDevice);
  cudaMemcpy(V, v.data(), elems * 2, cudaMemcpyHostToDevice);
  cudaMemset(O, 0xFF, elems * 2);
  if (!fn(Q, K, V, O, heads, n, d) || cudaDeviceSynchronize() != cudaSuccess) {
    std::printf("launch failed\n");
    return 1e9;
  }
  std::vector<__nv_bfloat16> o(elems);
  cudaMemcpy(o.data(), O, elems * 2, cudaMemcpyDeviceToHost);
  cudaFree(Q);
  cudaFree(K);
  cudaFree(V);
  cudaFree(O);
  return wmma_steps::attention_error(q, k, v, o, heads, n, d, sample_rows);
}

// Median milliseconds of 20 launches.
double time_ms(fwd_t fn, int heads, int n, int d) {
  const size_t elems = size_t(heads) * n * d;
  __nv_bfloat16 *Q, *K, *V, *O;
  cudaMalloc(&Q, elems * 2);
  cudaMalloc(&K, elems * 2);
  cudaMalloc(&V, elems * 2);
  cudaMalloc(&O, elems * 2);
  std::vector<__nv_bfloat16> h(elems);
  std::mt19937 rng(5);
  std::normal_distribution<float> dist(0.f, 0.5f);
  for (auto& x : h) x = __float2bfloat16(dist(rng));
  cudaMemcpy(Q, h.data(), elems * 2, cudaMemcpyHostToDevice);
  cudaMemcpy(K, h.data(), elems * 2, cudaMemcpyHostToDevice);
  cudaMemcpy(V, h.data(), elems * 2, cudaMemcpyHostToDevice);
  for (int i = 0; i < 3; ++i) fn(Q, K, V, O, heads, n, d);
  cudaDeviceSynchronize();
  cudaEvent_t a, b;
  cudaEventCreate(&a);
  cudaEventCreate(&b);
  std::vector<float> ms;
  for (int i = 0; i < 20; ++i) {
    cudaEventRecord(a);
    fn(Q, K, V, O, heads, n, d);
    cudaEventRecord(b);
    cudaEventSynchronize(b);
    float t;
    cudaEventElapsedTime(&t, a, b);
    ms.push_back(t);
  }
  std::sort(ms.begin(), ms.end());
  cudaFree(Q);
  cudaFree(K);
  cudaFree(V);
  cudaFree(O);
  return cudaGetLastError() == cudaSuccess ? ms[10] : -1;
}

}  // namespace

int main(int argc, char** argv) {
  using namespace wmma_steps;
  int devices = 0;
  if (const cudaError_t e = cudaGetDeviceCount(&devices); e != cudaSuccess || devices == 0) {
    std::printf("wmma_steps: no GPU to run on (%s)\n", cudaGetErrorString(e));
    return 2;
  }
  if (argc == 3) {  // one variant, one timing at heads 16, n 4096 (for ncu)
    for (auto& vr : kVariants)
      if (!std::strcmp(vr.name, argv[1]))
        std::printf("%s %.4f ms\n", vr.name, time_ms(vr.fn, 16, 4096, std::atoi(argv[2])));
    return 0;
  }
  for (auto& vr : kVariants) {
    double worst = 0;
    for (int d : {64, 128})
      for (int n : {1, 15, 100, 130, 257})
        worst = std::max(worst, check_one(vr.fn, 2, n, d, n, 11 + n));
    for (int d : {64, 128}) worst = std::max(worst, check_one(vr.fn, 2, 4096, d, 8, 3));
    std::printf("%-14s max rel err %.2e\n", vr.name, worst);
    for (int d : {64, 128})
      for (int n : {4096, 16384}) {
        const int heads = n == 4096 ? 16 : 4;
        const double ms = time_ms(vr.fn, heads, n, d);
        std::printf("  %-14s heads %2d n %5d d %3d: %.4f ms  %.1f TFLOP/s\n", vr.name, heads, n, d,
                    ms, 4.0 * heads * double(n) * n * d / ms / 1e9);
      }
    std::fflush(stdout);
  }
}
