// Shared-memory float4 reads and writes in the patterns of lesson 13's register-tiled
// FlashAttention (lab 3 part 2), for PAD = 0, 4, 8, 12, 16: does a warp's 16-byte request
// conflict when its quarter-warps are conflict-free, or only when the whole warp's words
// pile up in a bank? Run under Nsight Compute on a GPU (ncu_float4_banks.txt holds the
// counts) and on the emulator, which prints its own counters for the same launches.
//   read:  lanes t and t + 16 read row t % 16 (d + PAD floats a row), 16 bytes at column 0
//   write: lane t writes row t % 16 (128 + PAD floats a row), 16 bytes at column 8 (t / 16)
#include <cuda_runtime.h>

#include <cstdio>

#ifdef CUDA_EMU
#include "cuda_emu/emulator.hpp"
#endif

template <int PAD>
__global__ void float4_banks(float* out) {
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

template <int PAD>
void run(float* out) {
#ifdef CUDA_EMU
  cuda_emu::reset();
#endif
  float4_banks<PAD><<<1, 32>>>(out);
  cudaDeviceSynchronize();
#ifdef CUDA_EMU
  const auto c = cuda_emu::all_launches().counters;
  std::printf("PAD %2d: emulator load conflicts %llu, store conflicts %llu\n", PAD,
              (unsigned long long)c.shared_load_bank_conflicts,
              (unsigned long long)c.shared_store_bank_conflicts);
#else
  std::printf("PAD %2d: launched (read the counts with ncu)\n", PAD);
#endif
}

int main() {
  float* out = nullptr;
  cudaMalloc(&out, 32 * sizeof(float));
  run<0>(out);
  run<4>(out);
  run<8>(out);
  run<12>(out);
  run<16>(out);
  cudaFree(out);
  return 0;
}
