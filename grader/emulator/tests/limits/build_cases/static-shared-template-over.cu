// Build-limit case (check_build_limits.sh): a template kernel whose 80 x 81 tiles (two
// of them, 51,840 bytes) are over 48 KiB only in the instantiation that is launched.
// ptxas: refused
// emulator: refused
template <int T>
__global__ void k(float* out, int at) {
  __shared__ float a[T][T + 1];
  __shared__ float b[T][T + 1];
  a[threadIdx.y][threadIdx.x] = out[threadIdx.x];
  b[threadIdx.y][threadIdx.x] = out[threadIdx.y];
  __syncthreads();
  out[threadIdx.x] = a[at][at] + b[at][at];
}
void launch(float* out) {
  k<16><<<1, dim3(16, 16)>>>(out, 3);
  k<80><<<1, dim3(16, 16)>>>(out, 3);
}
