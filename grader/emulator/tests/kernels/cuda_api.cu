// Kernels for test_cuda_api.cpp: valid CUDA that students write, which the
// emulator must compile and run unchanged. Plain CUDA (builds with nvcc too).
#include <cooperative_groups.h>
#include <cooperative_groups/reduce.h>
#include <cuda_runtime.h>

#include "cuda_api.hpp"

namespace cg = cooperative_groups;

// ---- dynamic shared memory -------------------------------------------------
__global__ void api_reverse_kernel(const float* in, float* out) {
  extern __shared__ float buf[];
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  buf[threadIdx.x] = in[i];
  __syncthreads();
  out[i] = buf[blockDim.x - 1 - threadIdx.x];
}
cudaError_t api_reverse_dynamic(const float* in, float* out, int blocks, int threads, bool stream) {
  const size_t bytes = threads * sizeof(float);
  if (stream) {
    cudaStream_t s = 0;
    api_reverse_kernel<<<blocks, threads, bytes, s>>>(in, out);
  } else {
    api_reverse_kernel<<<blocks, threads, bytes>>>(in, out);
  }
  return cudaGetLastError();
}

__global__ void api_dynamic_bytes_kernel(float* out, int n) {
  extern __shared__ __align__(16) float big[];
  for (int i = threadIdx.x; i < n; i += blockDim.x) big[i] = float(i);
  __syncthreads();
  out[threadIdx.x] = big[n - 1 - threadIdx.x];
}
cudaError_t api_dynamic_bytes(float* out, size_t bytes) {
  if (bytes > 48 * 1024)
    cudaFuncSetAttribute(api_dynamic_bytes_kernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
                         int(bytes));
  api_dynamic_bytes_kernel<<<1, 32, bytes>>>(out, int(bytes / sizeof(float)));
  return cudaGetLastError();
}

__global__ void api_dynamic_alias_kernel(int* out) {
  extern __shared__ int as_int[];
  as_int[threadIdx.x] = int(threadIdx.x) * 3;
  __syncthreads();
  out[threadIdx.x] = as_int[(threadIdx.x + 1) % blockDim.x];
}
__global__ void api_dynamic_alias_kernel2(int* out) {
  extern __shared__ float as_float[];
  as_float[threadIdx.x] = float(threadIdx.x) + 0.5f;
  __syncthreads();
  out[threadIdx.x] = int(as_float[blockDim.x - 1 - threadIdx.x] * 2);
}
__global__ void api_byte_writes_kernel(int* out) {
  extern __shared__ unsigned char as_bytes[];
  as_bytes[threadIdx.x] = (unsigned char)threadIdx.x;
  __syncthreads();
  out[threadIdx.x] = as_bytes[blockDim.x - 1 - threadIdx.x];
}
void api_byte_writes(int* out) {
  api_byte_writes_kernel<<<1, 32, 32>>>(out);
}
// The CUDA samples' idiom for dynamic shared memory in a template kernel.
template <class T>
struct api_shared_memory {
  __device__ operator T*() {
    extern __shared__ int api_smem[];
    return (T*)api_smem;
  }
};
template <class T>
__global__ void api_block_sum_template(const T* in, T* out) {
  T* s = api_shared_memory<T>();
  s[threadIdx.x] = in[blockIdx.x * blockDim.x + threadIdx.x];
  __syncthreads();
  for (unsigned half = blockDim.x / 2; half > 0; half /= 2) {
    if (threadIdx.x < half) s[threadIdx.x] += s[threadIdx.x + half];
    __syncthreads();
  }
  if (threadIdx.x == 0) out[blockIdx.x] = s[0];
}
void api_block_sums(const double* in, double* out, int blocks, int threads) {
  api_block_sum_template<<<blocks, threads, threads * sizeof(double)>>>(in, out);
}
void api_dynamic_alias(int* out) {
  api_dynamic_alias_kernel<<<1, 32, 32 * sizeof(int)>>>(out);
  api_dynamic_alias_kernel2<<<1, 32, 32 * sizeof(float)>>>(out + 32);
}

// ---- cooperative groups ----------------------------------------------------
__global__ void api_cg_block_sum_kernel(const int* in, int* out) {
  __shared__ int warp_sums[32];
  cg::thread_block block = cg::this_thread_block();
  cg::thread_block_tile<32> warp = cg::tiled_partition<32>(block);
  int v = in[blockIdx.x * block.size() + block.thread_rank()];
  for (int o = warp.size() / 2; o > 0; o /= 2) v += warp.shfl_down(v, o);
  if (warp.thread_rank() == 0) warp_sums[warp.meta_group_rank()] = v;
  block.sync();
  if (block.thread_rank() == 0) {
    int total = 0;
    for (unsigned w = 0; w < warp.meta_group_size(); ++w) total += warp_sums[w];
    out[blockIdx.x] = total;
  }
}
void api_cg_block_sum(const int* in, int* out, int blocks, int threads) {
  api_cg_block_sum_kernel<<<blocks, threads>>>(in, out);
}

__global__ void api_cg_tile_info_kernel(int* out) {
  cg::thread_block block = cg::this_thread_block();
  cg::thread_block_tile<8> tile = cg::tiled_partition<8>(block);
  tile.sync();
  int* o = out + 4 * block.thread_rank();
  o[0] = int(tile.thread_rank());
  o[1] = int(tile.meta_group_rank());
  o[2] = int(tile.size());
  o[3] = tile.shfl_xor(int(block.thread_rank()), 1);
}
void api_cg_tile_info(int* out, int threads) {
  api_cg_tile_info_kernel<<<1, threads>>>(out);
}

// Per tile of 16: the sum and the maximum, by cg::reduce (every lane gets them).
__global__ void api_cg_reduce_kernel(const int* in, int* out) {
  cg::thread_block block = cg::this_thread_block();
  cg::thread_block_tile<16> tile = cg::tiled_partition<16>(block);
  const int v = in[block.thread_rank()];
  const int sum = cg::reduce(tile, v, cg::plus<int>());
  const int top = cg::reduce(tile, v, cg::greater<int>());
  out[2 * block.thread_rank()] = sum;
  out[2 * block.thread_rank() + 1] = top;
}
void api_cg_reduce(const int* in, int* out, int threads) {
  api_cg_reduce_kernel<<<1, threads>>>(in, out);
}

// ---- streams ---------------------------------------------------------------
void api_stream_copy(const float* in, float* out, float* host, int n) {
  cudaStream_t s;
  cudaStreamCreate(&s);
  api_reverse_kernel<<<1, n, n * sizeof(float), s>>>(in, out);
  cudaMemcpyAsync(host, out, n * sizeof(float), cudaMemcpyDeviceToHost, s);
  cudaStreamSynchronize(s);
  cudaStreamDestroy(s);
}

// ---- symbols ---------------------------------------------------------------
__constant__ float api_coeffs[2];
__device__ int api_device_int;

__global__ void api_affine_kernel(const float* in, float* out, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = api_coeffs[0] + api_coeffs[1] * in[i];
}
void api_set_coeffs(const float* c2) {
  cudaMemcpyToSymbol(api_coeffs, c2, 2 * sizeof(float));
}
void api_affine(const float* in, float* out, int n) {
  api_affine_kernel<<<(n + 63) / 64, 64>>>(in, out, n);
}
int api_symbol_round_trip(int v) {
  int back = -1;
  cudaMemcpyToSymbol(api_device_int, &v, sizeof(int));
  cudaMemcpyFromSymbol(&back, api_device_int, sizeof(int));
  return back;
}

// ---- __activemask ----------------------------------------------------------
__global__ void api_activemask_kernel(unsigned* out) {
  out[threadIdx.x] = __activemask();
}
void api_activemask(unsigned* out, int threads) {
  api_activemask_kernel<<<1, threads>>>(out);
}

// ---- template kernels, default arguments, overloads -------------------------
template <typename T>
__global__ void api_scale(T* p, int n, T by = T(2)) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) p[i] *= by;
}
template <typename T, int N>
__global__ void api_add_n(T* p, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) p[i] += T(N);
}
__global__ void api_over(float* p, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) p[i] += 0.5f;
}
__global__ void api_over(int* p, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) p[i] -= 1;
}
void api_templates(float* f, int* i, int n) {
  const int blocks = (n + 31) / 32;
  api_scale<<<blocks, 32>>>(f, n);             // deduced T = float, default by = 2
  api_scale<<<blocks, 32>>>(i, n, 3);          // deduced T = int
  api_add_n<float, 10><<<blocks, 32>>>(f, n);  // explicit
  api_over<<<blocks, 32>>>(f, n);              // overloads
  api_over<<<blocks, 32>>>(i, n);
}

// ---- host variables named gridDim and blockDim -----------------------------
__global__ void api_fill_2d(int* p, int n) {
  const int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x < n && y < n) p[y * n + x] = y * 1000 + x;
}
void api_host_grid_block_names(int* p, int n) {
  dim3 blockDim(8, 8);
  dim3 gridDim((n + blockDim.x - 1) / blockDim.x, (n + blockDim.y - 1) / blockDim.y);
  api_fill_2d<<<gridDim, blockDim>>>(p, n);
}

// ---- __shared__ arrays in template kernels ---------------------------------
template <int TILE, int PAD>
__global__ void api_transpose_tile(const float* in, float* out) {
  __shared__ float tile[TILE][TILE + PAD];
  tile[threadIdx.y][threadIdx.x] = in[threadIdx.y * TILE + threadIdx.x];
  __syncthreads();
  out[threadIdx.y * TILE + threadIdx.x] = tile[threadIdx.x][threadIdx.y];
}
void api_template_shared_transpose(const float* in, float* out, bool padded) {
  if (padded)
    api_transpose_tile<32, 1><<<1, dim3(32, 32)>>>(in, out);
  else
    api_transpose_tile<32, 0><<<1, dim3(32, 32)>>>(in, out);
}

template <int N>
__global__ void api_race_tile(float* out) {
  __shared__ float s[N];
  s[threadIdx.x] = float(threadIdx.x);
  out[threadIdx.x] = s[(threadIdx.x + 1) % N];  // no __syncthreads: a race
}
void api_template_shared_race(float* out) {
  api_race_tile<256><<<1, 256>>>(out);
}
