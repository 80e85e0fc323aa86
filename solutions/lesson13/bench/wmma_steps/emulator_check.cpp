// The step bench's kernels on the course's CPU emulator, before any GPU time is spent on them:
// each runs 2 heads at n = 1 .. 300, d = 64 and 128, against a double-precision attention of
// the same bf16 inputs, and must launch cleanly (no race, no invalid access) within 5e-3.
// Built and run by emulator_check.sh.
#include <cuda_bf16.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <random>
#include <vector>

#include "attention_check.hpp"
#include "cuda_emu/emulator.hpp"
#include "flash_attention_wmma.hpp"
#include "wmma_steps.hpp"

namespace {

// Relative (Frobenius) error of every row of every head; a launch problem is printed and
// counts as an error of 1.
double check(wmma_steps::forward_fn fn, int heads, int n, int d) {
  const size_t elems = size_t(heads) * n * d;
  std::mt19937 rng(unsigned(n * 131 + d));
  std::normal_distribution<float> dist(0.f, 1.f);
  std::vector<__nv_bfloat16> q(elems), k(elems), v(elems), o(elems);
  for (size_t i = 0; i < elems; ++i) {
    q[i] = __float2bfloat16(dist(rng) * 0.3f);
    k[i] = __float2bfloat16(dist(rng));
    v[i] = __float2bfloat16(dist(rng));
  }
  __nv_bfloat16 *Q, *K, *V, *O;
  cudaMalloc(&Q, elems * 2), cudaMalloc(&K, elems * 2), cudaMalloc(&V, elems * 2);
  cudaMalloc(&O, elems * 2);
  cudaMemcpy(Q, q.data(), elems * 2, cudaMemcpyHostToDevice);
  cudaMemcpy(K, k.data(), elems * 2, cudaMemcpyHostToDevice);
  cudaMemcpy(V, v.data(), elems * 2, cudaMemcpyHostToDevice);
  cudaMemset(O, 0xFF, elems * 2);  // NaN: a row never written fails
  cuda_emu::settings().print_reports = false;
  cuda_emu::reset();
  const bool launched = fn(Q, K, V, O, heads, n, d);
  cudaMemcpy(o.data(), O, elems * 2, cudaMemcpyDeviceToHost);
  cudaFree(Q), cudaFree(K), cudaFree(V), cudaFree(O);
  const cuda_emu::launch_record all = cuda_emu::all_launches();
  if (!launched || !all.ok()) {
    std::printf("    launch problem at n=%d d=%d:\n%s\n", n, d, all.sanitizer_text().c_str());
    return 1;
  }
  return wmma_steps::attention_error(q, k, v, o, heads, n, d, n);
}

}  // namespace

int main() {
  using namespace wmma_steps;
  bool all_right = true;
  for (const auto& vr : kVariants) {
    double worst = 0;
    for (int d : {64, 128})
      for (int n : {1, 15, 64, 100, 130, 300}) worst = std::max(worst, check(vr.fn, 2, n, d));
    std::printf("%-27s max rel err %.2e%s\n", vr.name, worst, worst <= 5e-3 ? "" : "  WRONG");
    all_right = all_right && worst <= 5e-3;
  }
  return all_right ? 0 : 1;
}
