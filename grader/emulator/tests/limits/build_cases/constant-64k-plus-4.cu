// Build-limit case (check_build_limits.sh): 64 KiB and one float of __constant__ in two
// variables, one in a namespace; ptxas counts them even unused.
// ptxas: refused
// emulator: refused
__constant__ float table[16384];
namespace extra {
__constant__ float one;
}
__global__ void k(float* out, int at) {
  out[threadIdx.x] = table[at];
}
