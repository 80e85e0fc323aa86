// Build-limit case (check_build_limits.sh): two tiles of 24 KiB, 48 KiB together.
// ptxas: ok
// emulator: ok
__global__ void k(float* out, int at) {
  __shared__ float a[6144];
  __shared__ float b[6144];
  a[threadIdx.x] = out[threadIdx.x];
  b[threadIdx.x] = out[threadIdx.x + 1];
  __syncthreads();
  out[threadIdx.x] = a[at] + b[at];
}
