// Build-limit case (check_build_limits.sh): a 64 KiB static __shared__ array the kernel
// never uses. nvcc drops it and builds; the emulator counts every declared array.
// ptxas: ok
// emulator: refused
__global__ void k(float* out) {
  __shared__ float unused[16384];
  out[threadIdx.x] = 1.0f;
}
