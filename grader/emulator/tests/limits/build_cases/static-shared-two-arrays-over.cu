// Build-limit case (check_build_limits.sh): 48 KiB and one float more in two arrays, the
// brief's example: 49,156 bytes of static __shared__.
// ptxas: refused
// emulator: refused
__global__ void k(float* out, int at) {
  __shared__ float a[12288], b[1];
  a[threadIdx.x] = out[threadIdx.x];
  if (threadIdx.x == 0) b[0] = out[at];
  __syncthreads();
  out[threadIdx.x] = a[at] + b[at & 0];
}
