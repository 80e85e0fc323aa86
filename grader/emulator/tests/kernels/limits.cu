// Kernels at and just over sm_90's launch limits (test_limits.cpp). Every array is
// indexed at run time, as nvcc would keep it. Two kernels are over ptxas's 48 KiB in a
// way the emulator sees only at launch (lim_static_split_kernel, lim_file_both_kernel),
// so nvcc does not build this file; limits/launch_limits.cu is the GPU's counterpart.
#include "limits.hpp"

__device__ void lim_mark_ran(int* ran) {
  if (threadIdx.x + threadIdx.y + threadIdx.z == 0 && blockIdx.x + blockIdx.y + blockIdx.z == 0)
    *ran = 1;
}

__global__ void lim_dims_kernel(int* ran) {
  lim_mark_ran(ran);
}
cudaError_t lim_dims(dim3 grid, dim3 block, int* ran) {
  lim_dims_kernel<<<grid, block>>>(ran);
  return cudaGetLastError();
}

__global__ void lim_dynamic_kernel(int* ran, int bytes) {
  extern __shared__ unsigned char dyn[];
  if (threadIdx.x == 0) dyn[bytes - 1] = 1;
  __syncthreads();
  if (dyn[bytes - 1] == 1) lim_mark_ran(ran);
}
cudaError_t lim_dynamic(size_t bytes, int* ran) {
  lim_dynamic_kernel<<<1, 32, bytes>>>(ran, int(bytes));
  return cudaGetLastError();
}

__global__ void lim_static_dynamic_kernel(int* ran, int bytes) {
  __shared__ unsigned char fixed[1024];
  extern __shared__ unsigned char dyn[];
  if (threadIdx.x == 0) {
    fixed[bytes % 1024] = 1;
    dyn[bytes - 1] = 1;
  }
  __syncthreads();
  if (fixed[bytes % 1024] + dyn[bytes - 1] == 2) lim_mark_ran(ran);
}
cudaError_t lim_static_dynamic(size_t bytes, int* ran) {
  lim_static_dynamic_kernel<<<1, 32, bytes>>>(ran, int(bytes));
  return cudaGetLastError();
}

// 48 KiB of static __shared__ over three __device__ functions: the kernel that calls two
// is at ptxas's limit, the one that calls all three one byte over (ptxas: 49,168 bytes,
// the byte padded to 16). Each array is read across threads after a barrier, so nvcc
// keeps it; one that only its writer reads back is dropped.
__device__ int lim_part_a(int at) {
  __shared__ unsigned char a[24 * 1024];
  a[threadIdx.x] = 1;
  __syncthreads();
  return a[at];
}
__device__ int lim_part_b(int at) {
  __shared__ unsigned char b[24 * 1024];
  b[threadIdx.x] = 1;
  __syncthreads();
  return b[at];
}
__device__ int lim_part_c(int at) {
  __shared__ unsigned char c[1];
  if (threadIdx.x == 0) c[0] = 1;
  __syncthreads();
  return c[at >> 30];  // c[0]
}
__global__ void lim_static_48k_kernel(int* ran, int at) {
  if (lim_part_a(at) + lim_part_b(at) == 2) lim_mark_ran(ran);
}
cudaError_t lim_static_48k(int* ran) {
  lim_static_48k_kernel<<<1, 32>>>(ran, 7);
  return cudaGetLastError();
}
__global__ void lim_static_split_kernel(int* ran, int at) {
  if (lim_part_a(at) + lim_part_b(at) + lim_part_c(at) == 3) lim_mark_ran(ran);
}
cudaError_t lim_static_split(int* ran) {
  lim_static_split_kernel<<<1, 32>>>(ran, 7);
  return cudaGetLastError();
}

cudaError_t lim_opt_in(int bytes) {
  // The static kernel's own limit is 1 KiB less (a GPU refuses static + bytes > 227 KiB).
  const cudaError_t a =
      cudaFuncSetAttribute(lim_dynamic_kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, bytes);
  if (a != cudaSuccess) return a;
  return cudaFuncSetAttribute(lim_static_dynamic_kernel,
                              cudaFuncAttributeMaxDynamicSharedMemorySize,
                              bytes > 1024 ? bytes - 1024 : bytes);
}

// Namespace-scope __shared__ arrays: a kernel's static shared memory counts those it uses
// (ptxas counts only those), known to the emulator after the launch's first block.
__shared__ unsigned char lim_file_a[24 * 1024];
__shared__ unsigned char lim_file_b[24 * 1024 + 4];
__global__ void lim_file_one_kernel(int* ran, int at) {
  if (threadIdx.x == 0) lim_file_a[at] = 1;
  __syncthreads();
  if (lim_file_a[at] == 1) lim_mark_ran(ran);
}
__global__ void lim_file_both_kernel(int* ran, int at) {
  if (threadIdx.x == 0) lim_file_a[at] = lim_file_b[at] = 1;
  __syncthreads();
  if (lim_file_a[at] + lim_file_b[at] == 2) lim_mark_ran(ran);
}
cudaError_t lim_file_shared(bool both, int* ran) {
  if (both)
    lim_file_both_kernel<<<2, 32>>>(ran, 5);
  else
    lim_file_one_kernel<<<2, 32>>>(ran, 5);
  return cudaGetLastError();
}
