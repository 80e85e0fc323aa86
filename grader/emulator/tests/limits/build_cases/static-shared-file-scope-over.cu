// Build-limit case (check_build_limits.sh): two namespace-scope __shared__ arrays, 24 KiB
// and 24 KiB + 4 bytes, both used by one kernel. ptxas sums what the kernel uses; the
// emulator's build asserts each array alone (another kernel might use only one), and the
// launch fails after its first block instead (test_limits.cpp).
// ptxas: refused
// emulator: ok
__shared__ float file_a[6144];
__shared__ float file_b[6145];
__global__ void k(float* out, int at) {
  file_a[threadIdx.x] = out[threadIdx.x];
  file_b[threadIdx.x] = out[threadIdx.x + 1];
  __syncthreads();
  out[threadIdx.x] = file_a[at] + file_b[at];
}
