// Launches at and just over sm_90's launch-time limits, one line per case:
//   <case>: <error cudaGetLastError gave> <ran|not run>
// so an H200 and the emulator can be compared line by line (launch_limits.expected
// holds the emulator's lines; ctest emulator.launch_limits checks them).
//   GPU:       nvcc -std=c++17 -arch=sm_90 -o launch_limits
//   grader/emulator/tests/limits/launch_limits.cu
//              ./launch_limits
//   emulator:  build/bin/emulator_launch_limits
// The cases run in this order on purpose: the opt-in to more dynamic shared memory
// lasts for the process (the emulator keeps one for all kernels, a GPU one per kernel).
#include <cuda_runtime.h>

#include <cstdio>

__device__ void mark_ran(int* ran) {
  if (threadIdx.x + threadIdx.y + threadIdx.z == 0 && blockIdx.x + blockIdx.y + blockIdx.z == 0)
    *ran = 1;
}

__global__ void plain(int* ran) {
  mark_ran(ran);
}

__global__ void dynamic_only(int* ran, int bytes) {
  extern __shared__ unsigned char dyn[];
  if (threadIdx.x == 0) dyn[bytes - 1] = 1;
  __syncthreads();
  if (dyn[bytes - 1] == 1) mark_ran(ran);
}

// Never opted in: shows whether the opt-in is per kernel.
__global__ void dynamic_other(int* ran, int bytes) {
  extern __shared__ unsigned char dyn[];
  if (threadIdx.x == 0) dyn[bytes - 1] = 1;
  __syncthreads();
  if (dyn[bytes - 1] == 1) mark_ran(ran);
}

__global__ void static_1k_dynamic(int* ran, int bytes) {
  __shared__ unsigned char fixed[1024];
  extern __shared__ unsigned char dyn[];
  if (threadIdx.x == 0) {
    fixed[bytes % 1024] = 1;
    dyn[bytes - 1] = 1;
  }
  __syncthreads();
  if (fixed[bytes % 1024] + dyn[bytes - 1] == 2) mark_ran(ran);
}

__global__ void static_48k(int* ran, int at, int bytes) {
  __shared__ unsigned char tile[48 * 1024];
  extern __shared__ unsigned char dyn[];
  if (threadIdx.x == 0) {
    tile[at] = 1;
    if (bytes > 0) dyn[bytes - 1] = 1;
  }
  __syncthreads();
  if (tile[at] == 1) mark_ran(ran);
}

int* g_ran = nullptr;

// Prints the case's line: the launch's error (cudaGetLastError right after it), and
// whether the kernel ran. A failed synchronisation is shown too.
void show(const char* name, cudaError_t launch) {
  const cudaError_t sync = cudaDeviceSynchronize();
  int ran = 0;
  cudaMemcpy(&ran, g_ran, sizeof ran, cudaMemcpyDeviceToHost);
  cudaMemset(g_ran, 0, sizeof ran);
  std::printf("%s: %s %s", name, cudaGetErrorName(launch), ran ? "ran" : "not run");
  if (sync != cudaSuccess) std::printf(" (synchronize: %s)", cudaGetErrorName(sync));
  std::printf("\n");
  std::fflush(stdout);
}

void dims(const char* name, dim3 grid, dim3 block) {
  plain<<<grid, block>>>(g_ran);
  show(name, cudaGetLastError());
}

template <class K>
void shared(const char* name, K kernel, size_t bytes) {
  kernel<<<1, 32, bytes>>>(g_ran, int(bytes));
  show(name, cudaGetLastError());
}

void attribute(const char* name, void (*kernel)(int*, int), int bytes) {
  const cudaError_t set =
      cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, bytes);
  const cudaError_t after = cudaGetLastError();
  std::printf("%s: %s (then cudaGetLastError: %s)\n", name, cudaGetErrorName(set),
              cudaGetErrorName(after));
}

int main() {
  cudaMalloc(&g_ran, sizeof(int));
  cudaMemset(g_ran, 0, sizeof(int));

  dims("block 1024x1x1", 1, dim3(1024));
  dims("block 1025x1x1", 1, dim3(1025));
  dims("block 32x32x1", 1, dim3(32, 32));
  dims("block 32x33x1", 1, dim3(32, 33));
  dims("block 1x1024x1", 1, dim3(1, 1024));
  dims("block 1x1025x1", 1, dim3(1, 1025));
  dims("block 1x1x64", 1, dim3(1, 1, 64));
  dims("block 1x1x65", 1, dim3(1, 1, 65));
  dims("block 0x1x1", 1, dim3(0));
  dims("grid 0x1x1", dim3(0), 32);
  dims("grid 1x65535x1", dim3(1, 65535), 1);
  dims("grid 1x65536x1", dim3(1, 65536), 1);
  dims("grid 1x1x65535", dim3(1, 1, 65535), 1);
  dims("grid 1x1x65536", dim3(1, 1, 65536), 1);
#ifndef CUDA_EMU  // 2^31 - 1 blocks: about a second on an H200, hours on the emulator
  dims("grid 2147483647x1x1", dim3(2147483647u), 1);
#endif
  dims("grid 2147483648x1x1", dim3(2147483648u), 1);

  // Static shared memory at ptxas's limit, and dynamic memory beside it.
  static_48k<<<1, 32>>>(g_ran, 48 * 1024 - 1, 0);
  show("static 49152", cudaGetLastError());
  static_48k<<<1, 32, 1>>>(g_ran, 48 * 1024 - 1, 1);
  show("static 49152 + dynamic 1, no opt-in", cudaGetLastError());

  // Dynamic shared memory without, then with, the opt-in.
  shared("dynamic 49152, no opt-in", dynamic_only, 49152);
  shared("dynamic 49153, no opt-in", dynamic_only, 49153);
  shared("static 1024 + dynamic 48128, no opt-in", static_1k_dynamic, 48128);
  shared("static 1024 + dynamic 48129, no opt-in", static_1k_dynamic, 48129);
  attribute("set 232449 on dynamic_only", dynamic_only, 232449);
  attribute("set 232448 on dynamic_only", dynamic_only, 232448);
  shared("dynamic 232448, opted in", dynamic_only, 232448);
  shared("dynamic 232449, opted in", dynamic_only, 232449);
  attribute("set 231424 on static_1k_dynamic", static_1k_dynamic, 231424);
  shared("static 1024 + dynamic 231424, opted in", static_1k_dynamic, 231424);
  shared("static 1024 + dynamic 231425, opted in", static_1k_dynamic, 231425);
  // A GPU keeps the opt-in per kernel; the emulator one for all (a known difference).
  shared("dynamic 65536 on a kernel never opted in", dynamic_other, 65536);
  // Past the opt-in for the static kernel (static + attribute over 227 KiB).
  attribute("set 232448 on static_1k_dynamic", static_1k_dynamic, 232448);
  return 0;
}
