// GPU timings for lesson 13's CUDA labs (built only with COURSE_CUDA=ON). Each
// kernel is validated first (matmuls against cuBLAS, FlashAttention against the
// naive three-kernel attention), then timed with CUDA events after warm-up; the
// median of the repeats is printed as one JSON object per line. FlashAttention is
// timed against two baselines: the naive attention and the eager one that frameworks
// run (cuBLAS, a softmax kernel, cuBLAS: bench/attention_eager.cu).
//   lesson13_gpu_bench            quick sizes, what `grader lesson13 --gpu` runs
//   lesson13_gpu_bench --ladder   the sizes published in the notes (matmul 4096^2;
//                                 attention n = 1k..256k, d = 64 and 128)
#include <cublas_v2.h>
#include <cuda_bf16.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <functional>
#include <random>
#include <string>
#include <vector>

#include "attention_eager.hpp"
#include "attention_mma.hpp"
#include "flash_attention_fast.hpp"
#include "flash_attention_lab.hpp"
#include "flash_attention_wmma.hpp"
#include "matmul_fast.hpp"
#include "matmul_labs.hpp"

namespace {

bool check(cudaError_t e, const char* what) {
  if (e == cudaSuccess) return true;
  std::printf("{\"error\": \"%s: %s\"}\n", what, cudaGetErrorString(e));
  return false;
}

// Median milliseconds of `repeats` runs after `warmup` runs; -1 on a CUDA error.
double time_ms(const std::function<void()>& run, int warmup, int repeats) {
  for (int i = 0; i < warmup; ++i) run();
  if (!check(cudaDeviceSynchronize(), "warm-up")) return -1;
  cudaEvent_t start, stop;
  cudaEventCreate(&start);
  cudaEventCreate(&stop);
  std::vector<double> ms;
  for (int i = 0; i < repeats; ++i) {
    cudaEventRecord(start);
    run();
    cudaEventRecord(stop);
    cudaEventSynchronize(stop);
    float t = 0;
    cudaEventElapsedTime(&t, start, stop);
    ms.push_back(t);
  }
  cudaEventDestroy(start);
  cudaEventDestroy(stop);
  if (!check(cudaGetLastError(), "timed runs")) return -1;
  std::sort(ms.begin(), ms.end());
  return ms[ms.size() / 2];
}

std::vector<float> random_vector(size_t n, float scale, unsigned seed) {
  std::mt19937 rng(seed);
  std::normal_distribution<float> dist(0.0f, scale);
  std::vector<float> v(n);
  for (auto& x : v) x = dist(rng);
  return v;
}

template <class T>
T* upload(const std::vector<T>& h) {
  T* d = nullptr;
  cudaMalloc(&d, h.size() * sizeof(T));
  cudaMemcpy(d, h.data(), h.size() * sizeof(T), cudaMemcpyHostToDevice);
  return d;
}

std::vector<float> download(const float* d, size_t n) {
  std::vector<float> h(n);
  cudaMemcpy(h.data(), d, n * sizeof(float), cudaMemcpyDeviceToHost);
  return h;
}

double relative_error(const std::vector<float>& got, const std::vector<float>& want) {
  double diff = 0, norm = 0;
  for (size_t i = 0; i < got.size(); ++i) {
    if (!std::isfinite(got[i])) return INFINITY;
    diff += double(got[i] - want[i]) * (got[i] - want[i]);
    norm += double(want[i]) * want[i];
  }
  return std::sqrt(diff / std::max(norm, 1e-300));
}

void bench_matmul(int n, int repeats) {
  const size_t elems = size_t(n) * n;
  const auto hA = random_vector(elems, 1.0f, 1), hB = random_vector(elems, 1.0f, 2);
  float *A = upload(hA), *B = upload(hB), *C = nullptr, *C_ref = nullptr;
  cudaMalloc(&C, elems * sizeof(float));
  cudaMalloc(&C_ref, elems * sizeof(float));
  cublasHandle_t handle;
  cublasCreate(&handle);
  cublasSetMathMode(handle, CUBLAS_DEFAULT_MATH);  // plain fp32, no TF32
  const float one = 1.0f, zero = 0.0f;
  // Row-major C = A B is column-major C^T = B^T A^T.
  auto cublas = [&] {
    cublasSgemm(handle, CUBLAS_OP_N, CUBLAS_OP_N, n, n, n, &one, B, n, A, n, &zero, C_ref, n);
  };
  cublas();
  cudaDeviceSynchronize();
  const auto want = download(C_ref, elems);
  const double flops = 2.0 * n * n * n;
  const double cublas_ms = time_ms(cublas, 2, repeats);
  std::printf("{\"kernel\": \"cublas_sgemm\", \"n\": %d, \"ms\": %.4f, \"tflops\": %.3f}\n", n,
              cublas_ms, flops / cublas_ms / 1e9);
  // The labs' kernels, then the course's fast reference (fast/matmul_fast.cu, marked
  // "reference": the report quotes it apart from the student's rows).
  struct entry {
    const char* name;
    void (*fn)(const float*, const float*, float*, int, int, int);
    bool reference;
  } const kernels[] = {{"matmul_naive", lesson13::matmul_naive, false},
                       {"matmul_coalesced", lesson13::matmul_coalesced, false},
                       {"matmul_tiled", lesson13::matmul_tiled, false},
                       {"matmul_coarsened", lesson13::matmul_coarsened, false},
                       {"matmul_fast", lesson13::matmul_fast, true}};
  for (const auto& k : kernels) {
    cudaMemset(C, 0xFF, elems * sizeof(float));  // NaN: unwritten outputs fail validation
    k.fn(A, B, C, n, n, n);
    if (!check(cudaDeviceSynchronize(), k.name)) continue;
    const double err = relative_error(download(C, elems), want);
    const double ms = err <= 1e-4 ? time_ms([&] { k.fn(A, B, C, n, n, n); }, 2, repeats) : -1;
    std::printf(
        "{\"kernel\": \"%s\", \"n\": %d, \"valid\": %s, \"relative_error\": %.2e, \"ms\": %.4f, "
        "\"tflops\": %.3f, \"reference\": %s, "
        "\"baseline\": \"cublas_sgemm\", \"baseline_ms\": %.4f, \"percent_of_baseline\": %.1f}\n",
        k.name, n, err <= 1e-4 ? "true" : "false", err, ms, ms > 0 ? flops / ms / 1e9 : 0.0,
        k.reference ? "true" : "false", cublas_ms, ms > 0 ? 100.0 * cublas_ms / ms : 0.0);
    std::fflush(stdout);
  }
  cublasDestroy(handle);
  cudaFree(A);
  cudaFree(B);
  cudaFree(C);
  cudaFree(C_ref);
}

void bench_attention(int n, int d, int repeats) {
  const size_t elems = size_t(n) * d;
  float *Q = upload(random_vector(elems, 0.5f, 3)), *K = upload(random_vector(elems, 0.5f, 4)),
        *V = upload(random_vector(elems, 1.0f, 5)), *O = nullptr, *O_ref = nullptr, *S = nullptr;
  cudaMalloc(&O, elems * sizeof(float));
  cudaMalloc(&O_ref, elems * sizeof(float));
  // The naive and the eager attention need an n x n score matrix; it may not fit.
  const size_t s_bytes = size_t(n) * n * sizeof(float);
  const bool s_fits = cudaMalloc(&S, s_bytes) == cudaSuccess;
  cudaGetLastError();
  double naive_ms = -1, eager_ms = -1, eager_error = -1;
  std::vector<float> want;
  if (s_fits) {
    lesson13::attention_naive(Q, K, V, S, O_ref, n, d);
    if (check(cudaDeviceSynchronize(), "attention_naive")) {
      want = download(O_ref, elems);
      naive_ms = time_ms([&] { lesson13::attention_naive(Q, K, V, S, O_ref, n, d); }, 1, repeats);
    }
    // The baseline a user would run: cuBLAS, a softmax kernel, cuBLAS (plain fp32).
    cublasHandle_t handle;
    cublasCreate(&handle);
    cublasSetMathMode(handle, CUBLAS_DEFAULT_MATH);
    cudaMemset(O_ref, 0xFF, elems * sizeof(float));
    lesson13::bench::attention_eager(handle, Q, K, V, S, O_ref, n, d);
    if (check(cudaDeviceSynchronize(), "attention_eager") && !want.empty()) {
      eager_error = relative_error(download(O_ref, elems), want);
      if (eager_error <= 1e-4)
        eager_ms = time_ms(
            [&] { lesson13::bench::attention_eager(handle, Q, K, V, S, O_ref, n, d); }, 1, repeats);
    }
    cublasDestroy(handle);
    cudaFree(S);
  }
  std::printf(
      "{\"kernel\": \"attention_naive\", \"n\": %d, \"d\": %d, \"s_bytes\": %zu, \"fits\": %s, "
      "\"ms\": %.4f}\n",
      n, d, s_bytes, s_fits ? "true" : "false", naive_ms);
  std::printf(
      "{\"kernel\": \"attention_eager\", \"n\": %d, \"d\": %d, \"fits\": %s, "
      "\"relative_error\": %.2e, \"ms\": %.4f}\n",
      n, d, s_fits ? "true" : "false", eager_error, eager_ms);
  // Lab 3's two parts: the one-warp-per-row kernel and the register-tiled one (its splits
  // chosen by the kernel, as a user would call it).
  struct entry {
    const char* name;
    bool (*fn)(const float*, const float*, const float*, float*, int, int);
    bool reference;
  } const kernels[] = {{"flash_attention_forward", lesson13::flash_attention_forward, false},
                       {"flash_attention_fast",
                        [](const float* Q, const float* K, const float* V, float* O, int n, int d) {
                          return lesson13::flash_attention_fast_forward(Q, K, V, O, n, d);
                        },
                        false}};
  for (const auto& k : kernels) {
    cudaMemset(O, 0xFF, elems * sizeof(float));
    if (!k.fn(Q, K, V, O, n, d) || !check(cudaDeviceSynchronize(), k.name)) continue;
    const double err = want.empty() ? -1 : relative_error(download(O, elems), want);
    const bool valid = want.empty() ? std::isfinite(download(O, 1)[0]) : err <= 1e-4;
    const double ms = valid ? time_ms([&] { k.fn(Q, K, V, O, n, d); }, 1, repeats) : -1;
    // Against the naive kernels (the "before") and against eager cuBLAS (what users run).
    std::printf(
        "{\"kernel\": \"%s\", \"n\": %d, \"d\": %d, \"valid\": %s, \"relative_error\": %.2e, "
        "\"ms\": %.4f, \"tflops\": %.3f, \"reference\": %s, \"baseline\": \"attention_naive\", "
        "\"baseline_ms\": %.4f, \"speedup_over_baseline\": %.2f, \"baselines\": [{\"name\": "
        "\"attention_naive\", \"ms\": %.4f}, {\"name\": \"attention_eager\", \"ms\": %.4f}], "
        "\"speedup_over_eager\": %.2f}\n",
        k.name, n, d, valid ? "true" : "false", err, ms, ms > 0 ? 4.0 * n * n * d / ms / 1e9 : 0.0,
        k.reference ? "true" : "false", naive_ms, ms > 0 && naive_ms > 0 ? naive_ms / ms : 0.0,
        naive_ms, eager_ms, ms > 0 && eager_ms > 0 ? eager_ms / ms : 0.0);
  }
  std::fflush(stdout);
  cudaFree(Q);
  cudaFree(K);
  cudaFree(V);
  cudaFree(O);
  cudaFree(O_ref);
}

// bf16 attention on tensor cores (lab 4, flash_attention_wmma.cu), several heads: checked on
// head 0 against the naive fp32 attention of the same bf16 values, then timed as a lab row;
// TFLOP/s count 4 n^2 d per head.
void bench_attention_bf16(int heads, int n, int d, int repeats) {
  const size_t elems = size_t(heads) * n * d, head = size_t(n) * d;
  auto rounded = [](std::vector<float> v) {
    for (float& x : v) x = __bfloat162float(__float2bfloat16(x));
    return v;
  };
  const std::vector<float> q = rounded(random_vector(elems, 0.5f, 6)),
                           k = rounded(random_vector(elems, 0.5f, 7)),
                           v = rounded(random_vector(elems, 1.0f, 8));
  auto upload_bf16 = [](const std::vector<float>& h) {
    std::vector<__nv_bfloat16> b(h.size());
    for (size_t i = 0; i < h.size(); ++i) b[i] = __float2bfloat16(h[i]);
    return upload(b);
  };
  __nv_bfloat16 *Q = upload_bf16(q), *K = upload_bf16(k), *V = upload_bf16(v), *O = nullptr;
  cudaMalloc(&O, elems * sizeof(__nv_bfloat16));
  // Head 0 of O against the naive attention in fp32 (it needs an n x n S: small n only).
  std::vector<float> want;
  {
    float *q0 = upload(std::vector<float>(q.begin(), q.begin() + head)),
          *k0 = upload(std::vector<float>(k.begin(), k.begin() + head)),
          *v0 = upload(std::vector<float>(v.begin(), v.begin() + head)), *S = nullptr,
          *O0 = nullptr;
    cudaMalloc(&O0, head * sizeof(float));
    if (cudaMalloc(&S, size_t(n) * n * sizeof(float)) == cudaSuccess) {
      lesson13::attention_naive(q0, k0, v0, S, O0, n, d);
      if (check(cudaDeviceSynchronize(), "attention_naive")) want = download(O0, head);
      cudaFree(S);
    }
    cudaGetLastError();
    cudaFree(q0), cudaFree(k0), cudaFree(v0), cudaFree(O0);
  }
  // One bf16 kernel: O poisoned, run, head 0 checked (relative error at most 1e-2), then
  // timed; ms -1 when it is wrong or failed.
  auto right = [](double err) { return err >= 0 && err <= 1e-2; };
  auto run = [&](const char* name, const std::function<bool()>& forward, double& err) {
    err = -1;
    cudaMemset(O, 0xFF, elems * sizeof(__nv_bfloat16));
    if (want.empty() || !forward() || !check(cudaDeviceSynchronize(), name)) return -1.0;
    std::vector<__nv_bfloat16> got(head);
    cudaMemcpy(got.data(), O, head * sizeof(__nv_bfloat16), cudaMemcpyDeviceToHost);
    std::vector<float> g(head);
    for (size_t i = 0; i < head; ++i) g[i] = __bfloat162float(got[i]);
    err = relative_error(g, want);
    return right(err) ? time_ms([&] { forward(); }, 1, repeats) : -1.0;
  };
  double err = -1, mma_err = -1;
  const double ms = run(
      "flash_attention_wmma",
      [&] { return lesson13::flash_attention_wmma_forward(Q, K, V, O, heads, n, d); }, err);
  const bool valid = right(err);  // even if its timed runs then failed
  const double mma_ms = run(
      "attention_mma_bf16",
      [&] { return lesson13::bench::attention_mma_bf16(Q, K, V, O, heads, n, d); }, mma_err);
  // The eager bf16 attention on the same inputs, if its S (heads x n x n) fits.
  double eager_ms = -1;
  __nv_bfloat16 *S = nullptr, *O_eager = nullptr;
  if (cudaMalloc(&S, elems / d * n * sizeof(__nv_bfloat16)) == cudaSuccess &&
      cudaMalloc(&O_eager, elems * sizeof(__nv_bfloat16)) == cudaSuccess) {
    cublasHandle_t handle;
    cublasCreate(&handle);
    lesson13::bench::attention_eager_bf16(handle, Q, K, V, S, O_eager, heads, n, d);
    if (check(cudaDeviceSynchronize(), "attention_eager_bf16"))
      eager_ms = time_ms(
          [&] { lesson13::bench::attention_eager_bf16(handle, Q, K, V, S, O_eager, heads, n, d); },
          1, repeats);
    cublasDestroy(handle);
  }
  cudaGetLastError();
  cudaFree(S), cudaFree(O_eager);
  std::printf(
      "{\"kernel\": \"attention_eager_bf16\", \"heads\": %d, \"n\": %d, \"d\": %d, \"ms\": %.4f, "
      "\"tflops\": %.1f}\n",
      heads, n, d, eager_ms, eager_ms > 0 ? 4.0 * heads * double(n) * n * d / eager_ms / 1e9 : 0.0);
  // Lab 4's row: the student's kernel (the solution's in the solution's bench) against the
  // eager bf16 attention, what users run.
  std::printf(
      "{\"kernel\": \"flash_attention_wmma\", \"heads\": %d, \"n\": %d, \"d\": %d, "
      "\"valid\": %s, \"relative_error\": %.2e, \"ms\": %.4f, \"tflops\": %.1f, "
      "\"reference\": false, \"baseline\": \"attention_eager_bf16\", \"baseline_ms\": %.4f, "
      "\"speedup_over_baseline\": %.2f}\n",
      heads, n, d, valid ? "true" : "false", err, ms,
      ms > 0 ? 4.0 * heads * double(n) * n * d / ms / 1e9 : 0.0, eager_ms,
      ms > 0 && eager_ms > 0 ? eager_ms / ms : 0.0);
  // The course's own mma.sync kernel (bench/attention_mma.cu): context, not a lab row.
  std::printf(
      "{\"kernel\": \"attention_mma_bf16\", \"heads\": %d, \"n\": %d, \"d\": %d, "
      "\"valid\": %s, \"relative_error\": %.2e, \"ms\": %.4f, \"tflops\": %.1f, "
      "\"reference\": true, \"speedup_over_eager\": %.2f}\n",
      heads, n, d, right(mma_err) ? "true" : "false", mma_err, mma_ms,
      mma_ms > 0 ? 4.0 * heads * double(n) * n * d / mma_ms / 1e9 : 0.0,
      mma_ms > 0 && eager_ms > 0 ? eager_ms / mma_ms : 0.0);
  std::fflush(stdout);
  cudaFree(Q), cudaFree(K), cudaFree(V), cudaFree(O);
}

}  // namespace

int main(int argc, char** argv) {
  const bool ladder = argc > 1 && std::strcmp(argv[1], "--ladder") == 0;
  cudaDeviceProp prop{};
  if (!check(cudaGetDeviceProperties(&prop, 0), "no GPU")) return 2;
  std::printf("{\"device\": \"%s\", \"sm\": \"%d.%d\", \"sms\": %d, \"memory_gib\": %.1f}\n",
              prop.name, prop.major, prop.minor, prop.multiProcessorCount,
              prop.totalGlobalMem / 1073741824.0);
  if (ladder) {
    bench_matmul(4096, 10);
    for (int d : {64, 128})
      for (int n : {1024, 4096, 16384, 65536, 262144}) bench_attention(n, d, n >= 65536 ? 3 : 10);
  } else {
    bench_matmul(2048, 10);
    bench_attention(4096, 64, 10);
    bench_attention(4096, 128, 10);
  }
  // bf16 on tensor cores at issue 26's anchor shape (16 heads), both d.
  for (int d : {64, 128}) bench_attention_bf16(16, 4096, d, 10);
  return 0;
}
