// The four probe kernels of docs/emulator.md, whose Nsight Compute counters were
// measured on an H200; the emulator must reproduce them exactly. Plain CUDA: this
// file builds unchanged with nvcc (probe_driver.cu runs it on a GPU under ncu) and
// with g++ for the emulator (emulator_tests).
#include <cuda_runtime.h>

#include "probes.hpp"

__global__ void probe_copy(float* o, const float* a) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  o[i] = a[i];
}

__global__ void probe_strided(float* o, const float* a) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  o[i] = a[i * 32];
}

__global__ void probe_bank_conflict(float* o) {
  __shared__ float s[1024];
  const int t = threadIdx.x;
  s[t * 32] = t;
  __syncthreads();
  o[t] = s[t * 32];
}

__global__ void probe_race(float* o) {
  __shared__ float s[256];
  const int t = threadIdx.x;
  s[t] = t;
  o[t] = s[(t + 1) % 256];  // no barrier: thread t reads what thread t+1 writes
}

// Thread 16 is the first to write past the end of a 4 MiB buffer.
__global__ void probe_out_of_bounds(float* o, int n) {
  const int i = threadIdx.x;
  o[n - 16 + i] = 1.0f;
}

void run_probe(probe which, float* d_out, const float* d_in, int n) {
  switch (which) {
    case probe::copy:
      probe_copy<<<1024, 256>>>(d_out, d_in);
      break;
    case probe::strided:
      probe_strided<<<1024, 256>>>(d_out, d_in);
      break;
    case probe::bank_conflict:
      probe_bank_conflict<<<1, 32>>>(d_out);
      break;
    case probe::race:
      probe_race<<<1, 256>>>(d_out);
      break;
    case probe::out_of_bounds:
      probe_out_of_bounds<<<1, 32>>>(d_out, n);
      break;
  }
}
