// Build-limit case (check_build_limits.sh): 2 x 32 KiB of static __shared__ in two
// __device__ functions one kernel calls. ptxas sums them; the emulator's per-function
// assert cannot, so its build passes and the launch fails instead (test_limits.cpp).
// ptxas: refused
// emulator: ok
__device__ float half_a(int at) {
  __shared__ float a[8192];
  a[at] = 1;
  return a[at ^ 1];
}
__device__ float half_b(int at) {
  __shared__ float b[8192];
  b[at] = 1;
  return b[at ^ 1];
}
__global__ void k(float* out, int at) {
  out[threadIdx.x] = half_a(at) + half_b(at);
}
