// Build-limit case (check_build_limits.sh): one static __shared__ array 4 bytes over 48 KiB.
// ptxas: refused
// emulator: refused
__global__ void k(float* out, int at) {
  __shared__ float tile[12289];
  tile[threadIdx.x] = out[threadIdx.x];
  __syncthreads();
  out[threadIdx.x] = tile[at];
}
