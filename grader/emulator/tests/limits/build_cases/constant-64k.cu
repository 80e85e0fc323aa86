// Build-limit case (check_build_limits.sh): exactly 64 KiB of __constant__ in one file.
// ptxas: ok
// emulator: ok
__constant__ float table[16384];
__global__ void k(float* out, int at) {
  out[threadIdx.x] = table[at];
}
