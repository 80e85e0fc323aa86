// Build-limit case (check_build_limits.sh): volatile and namespace-scope __shared__ arrays
// (a warp reduction of the old style) well under the limit: both builds must accept them,
// so the emulator's inserted checks must take any qualifier.
// ptxas: ok
// emulator: ok
__shared__ volatile float file_sums[64];
__global__ void k(float* out) {
  __shared__ volatile float sums[256];
  sums[threadIdx.x] = out[threadIdx.x];
  __syncthreads();
  if (threadIdx.x < 32) {
    for (int s = 16; s > 0; s >>= 1) sums[threadIdx.x] += sums[threadIdx.x + s];
    file_sums[threadIdx.x] = sums[threadIdx.x];
  }
  __syncthreads();
  out[threadIdx.x] = file_sums[threadIdx.x % 32];
}
