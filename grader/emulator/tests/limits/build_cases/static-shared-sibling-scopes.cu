// Build-limit case (check_build_limits.sh): two 32 KiB arrays in sibling blocks of one
// kernel. ptxas keeps both (64 KiB); the emulator's assert sums only arrays in scope, so
// its build passes and the launch fails once both are reached.
// ptxas: refused
// emulator: ok
__global__ void k(float* out, int at) {
  {
    __shared__ float a[8192];
    a[threadIdx.x] = out[threadIdx.x];
    __syncthreads();
    out[threadIdx.x] = a[at];
  }
  {
    __shared__ float b[8192];
    b[threadIdx.x] = out[threadIdx.x];
    __syncthreads();
    out[threadIdx.x] += b[at];
  }
}
