// Kernels of wide_banks.hpp: which lanes a 16- or 8-byte shared-memory access is served
// together with, and so when it has bank conflicts.
#include "wide_banks.hpp"

#include <cuda_runtime.h>

namespace {

template <int PAD>
__global__ void float4_kernel(float* out) {
  constexpr int LD = 64 + PAD, LDP = 128 + PAD;
  __shared__ __align__(16) float s[16 * (LDP > LD ? LDP : LD)];
  const int t = threadIdx.x;
  for (int i = t; i < 16 * LD; i += 32) s[i] = float(i);
  __syncthreads();
  const float4 v = *reinterpret_cast<const float4*>(&s[(t % 16) * LD]);
  __syncthreads();
  *reinterpret_cast<float4*>(&s[(t % 16) * LDP + 8 * (t / 16)]) = v;
  __syncthreads();
  out[t] = s[t];
}

__global__ void float2_kernel(float* out) {
  __shared__ __align__(16) float s[128];
  const int t = threadIdx.x;
  for (int i = t; i < 128; i += 32) s[i] = float(i);
  __syncthreads();
  const float2 v =
      *reinterpret_cast<const float2*>(&s[(t % 8) * 2 + (t / 8 % 2) * 32 + (t / 16) * 16]);
  out[t] = v.x + v.y;
}

}  // namespace

void wide_banks_float4(float* out, int pad) {
  switch (pad) {
    case 0:
      float4_kernel<0><<<1, 32>>>(out);
      break;
    case 4:
      float4_kernel<4><<<1, 32>>>(out);
      break;
    case 8:
      float4_kernel<8><<<1, 32>>>(out);
      break;
    case 12:
      float4_kernel<12><<<1, 32>>>(out);
      break;
    default:
      float4_kernel<16><<<1, 32>>>(out);
      break;
  }
}
void wide_banks_float2(float* out) {
  float2_kernel<<<1, 32>>>(out);
}
