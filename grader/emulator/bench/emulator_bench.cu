// Emulator speed benchmark: a 256x256 shared-memory tiled matmul (65,536 threads,
// counters and race checks on), validated against a CPU reference before timing,
// and the cost of one __syncthreads per thread. Prints medians of repeated runs.
//   build/bin/emulator_bench            (record results in docs/benchmarks.md)
#include <cuda_runtime.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <random>
#include <vector>

#ifdef CUDA_EMU
#include "cuda_emu/emulator.hpp"
#endif

constexpr int T = 16;

__global__ void matmul_tiled(const float* A, const float* B, float* C, int n) {
  __shared__ float As[T][T];
  __shared__ float Bs[T][T];
  const int tx = threadIdx.x, ty = threadIdx.y;
  const int row = blockIdx.y * T + ty, col = blockIdx.x * T + tx;
  float acc = 0.0f;
  for (int k0 = 0; k0 < n; k0 += T) {
    As[ty][tx] = A[row * n + k0 + tx];
    Bs[ty][tx] = B[(k0 + ty) * n + col];
    __syncthreads();
    for (int k = 0; k < T; ++k) acc += As[ty][k] * Bs[k][tx];
    __syncthreads();
  }
  C[row * n + col] = acc;
}

__global__ void barriers_only(int iterations) {
  for (int i = 0; i < iterations; ++i) __syncthreads();
}

template <class F>
double median_seconds(int repeats, F&& f) {
  std::vector<double> t;
  for (int r = 0; r < repeats; ++r) {
    const auto start = std::chrono::steady_clock::now();
    f();
    t.push_back(std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
  }
  std::sort(t.begin(), t.end());
  return t[t.size() / 2];
}

int main() {
  const int n = 256;
  std::mt19937 rng(1);
  std::normal_distribution<float> dist;
  std::vector<float> A(n * n), B(n * n), C(n * n);
  for (auto& x : A) x = dist(rng);
  for (auto& x : B) x = dist(rng);
  float *dA, *dB, *dC;
  cudaMalloc(&dA, n * n * sizeof(float));
  cudaMalloc(&dB, n * n * sizeof(float));
  cudaMalloc(&dC, n * n * sizeof(float));
  cudaMemcpy(dA, A.data(), n * n * sizeof(float), cudaMemcpyHostToDevice);
  cudaMemcpy(dB, B.data(), n * n * sizeof(float), cudaMemcpyHostToDevice);

  // Validate first.
  matmul_tiled<<<dim3(n / T, n / T), dim3(T, T)>>>(dA, dB, dC, n);
  cudaMemcpy(C.data(), dC, n * n * sizeof(float), cudaMemcpyDeviceToHost);
  double worst = 0;
  for (int i = 0; i < n; ++i)
    for (int j = 0; j < n; ++j) {
      double ref = 0;
      for (int k = 0; k < n; ++k) ref += double(A[i * n + k]) * B[k * n + j];
      worst = std::max(worst, std::abs(ref - C[i * n + j]));
    }
  if (worst > 1e-3) {
    std::printf("matmul_tiled is wrong: max error %g\n", worst);
    return 1;
  }
  std::printf("matmul_tiled %dx%d validated (max abs error %.2g)\n", n, n, worst);
#ifdef CUDA_EMU
  const auto& run = cuda_emu::last_launch();
  if (!run.ok()) {
    std::printf("%s", run.sanitizer_text().c_str());
    return 1;
  }
  std::printf("its counters in the emulator:\n%s", run.ncu_metrics().c_str());

  const double mm = median_seconds(7, [&] {
    cuda_emu::reset();
    matmul_tiled<<<dim3(n / T, n / T), dim3(T, T)>>>(dA, dB, dC, n);
  });
  std::printf("tiled matmul %dx%d (%d threads, counters and race checks on): median %.3f s of 7\n",
              n, n, n * n, mm);

  const int threads = 256, iterations = 20000;
  const double bar = median_seconds(7, [&] {
    cuda_emu::reset();
    barriers_only<<<1, threads>>>(iterations);
  });
  std::printf(
      "__syncthreads: median %.1f ns per thread per barrier (%d threads x %d barriers, 7 runs)\n",
      bar * 1e9 / (double(threads) * iterations), threads, iterations);
#endif  // on a GPU the program only provides the validated kernel for ncu to count
  return 0;
}
