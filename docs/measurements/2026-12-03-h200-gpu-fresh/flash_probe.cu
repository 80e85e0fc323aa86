// Runs one lab-3 kernel file's flash_attention_forward once at flash.global_reads'
// size (n = 256, d = 32), so that Nsight Compute can count its global sectors on a GPU
// and ncu_flash.sh can set them beside the emulator's count (issue 21: the bound's
// tolerance comes from this agreement). Built with the kernel file by ncu_flash.sh.
#include <cuda_runtime.h>

#include <cstdio>
#include <random>
#include <vector>

#include "flash_attention_lab.hpp"

int main() {
  const int n = 256, d = 32;
  const size_t count = size_t(n) * d;
  std::mt19937 rng(7);
  std::uniform_real_distribution<float> u(-1.0f, 1.0f);
  std::vector<float> host(count);
  float* buffers[4] = {};
  for (float*& b : buffers) {
    for (float& x : host) x = u(rng);
    cudaMalloc(&b, count * sizeof(float));
    cudaMemcpy(b, host.data(), count * sizeof(float), cudaMemcpyHostToDevice);
  }
  const bool accepted =
      lesson13::flash_attention_forward(buffers[0], buffers[1], buffers[2], buffers[3], n, d);
  const cudaError_t e = cudaDeviceSynchronize();
  std::printf("accepted %d, %s\n", accepted, cudaGetErrorString(e));
  return accepted && e == cudaSuccess ? 0 : 1;
}
