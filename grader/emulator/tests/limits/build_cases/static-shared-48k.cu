// Build-limit case (check_build_limits.sh): one static __shared__ array of exactly 48 KiB.
// ptxas: ok
// emulator: ok
__global__ void k(float* out, int at) {
  __shared__ float tile[12288];
  tile[threadIdx.x] = out[threadIdx.x];
  __syncthreads();
  out[threadIdx.x] = tile[at];
}
