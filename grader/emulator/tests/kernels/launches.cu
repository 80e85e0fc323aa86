// Kernels for test_launches.cpp: launch syntax the <<<>>> rewrite must accept
// (four configuration arguments, nested templates, lambdas, macros, shifts), 3-D
// grids and blocks, 65535 blocks, and any launch configuration. Plain CUDA.
#include <cuda_runtime.h>

#include "launches.hpp"

__global__ void adv_fill(int* p, int v) {
  p[blockIdx.x * blockDim.x + threadIdx.x] = v;
}

template <class T>
struct adv_pair {
  T a, b;
};

template <class P, int N>
__global__ void adv_apply(int* p, int v) {
  P pair{v, N};
  p[threadIdx.x] = pair.a * pair.b / N;
}

#define ADV_LAUNCH(kernel, threads, ...) kernel<<<1, threads>>>(__VA_ARGS__)

void adv_launch_four_config_args(int* p, int n, int v) {
  adv_fill<<<1, n, 0, 0>>>(p, v);
}
void adv_launch_nested_template(int* p, int n, int v) {
  adv_apply<adv_pair<int>, 2><<<1, n>>>(p, v);
}
void adv_launch_in_lambda(int* p, int n, int v) {
  auto go = [&](int value) { adv_fill<<<1, n>>>(p, value); };
  go(v);
}
void adv_launch_in_macro(int* p, int n, int v) {
  ADV_LAUNCH(adv_fill, n, p, v);
}
// clang-format takes these shifts for template brackets:
// clang-format off
void adv_launch_with_shifts(int* p, int n, int v) {
  adv_fill<<<(n >> 5) << 1 >> 1, 32 >> 0>>>(p, (v << 2) >> 2);
}
// clang-format on

__global__ void adv_index_3d_kernel(int* out) {
  const int block = (blockIdx.z * gridDim.y + blockIdx.y) * gridDim.x + blockIdx.x;
  const int n = blockDim.x * blockDim.y * blockDim.z;
  const int t = (threadIdx.z * blockDim.y + threadIdx.y) * blockDim.x + threadIdx.x;
  int* o = out + 4 * (block * n + t);
  o[0] = threadIdx.x + 10 * threadIdx.y + 100 * threadIdx.z;
  o[1] = blockIdx.x + 10 * blockIdx.y + 100 * blockIdx.z;
  o[2] = blockDim.x + 10 * blockDim.y + 100 * blockDim.z;
  o[3] = gridDim.x + 10 * gridDim.y + 100 * gridDim.z;
}
void adv_index_3d(int* out) {
  adv_index_3d_kernel<<<dim3(2, 3, 2), dim3(4, 2, 3)>>>(out);
}

__global__ void adv_one_thread_blocks_kernel(int* out) {
  out[blockIdx.y * gridDim.x + blockIdx.x] = int(blockIdx.x) * 2 + int(blockIdx.y);
}
void adv_one_thread_blocks(int* out, int blocks_x, int blocks_y) {
  adv_one_thread_blocks_kernel<<<dim3(blocks_x, blocks_y), 1>>>(out);
}

void adv_launch_config(int* p, unsigned gx, unsigned gy, unsigned bx, unsigned by, unsigned bz) {
  adv_fill<<<dim3(gx, gy), dim3(bx, by, bz)>>>(p, 1);
}
