// Runs the probe kernels of probes.cu, one after another, for the tools to count:
//   GPU:       nvcc -arch=sm_90 -lineinfo probe_driver.cu probes.cu -o probes
//              ncu --metrics <...> ./probes all
//              compute-sanitizer --tool racecheck ./probes race
//              compute-sanitizer --tool memcheck ./probes oob
//   emulator:  build/bin/emulator_probes all    (prints the emulator's counters)
#include <cuda_runtime.h>

#include <cstdio>
#include <cstring>

#include "probes.hpp"
#ifdef CUDA_EMU
#include "cuda_emu/emulator.hpp"
#endif

int main(int argc, char** argv) {
  const char* which = argc > 1 ? argv[1] : "all";
  const int n = 1 << 20;  // 4 MiB of floats
  float *in = nullptr, *out = nullptr, *small = nullptr;
  cudaMalloc(&in, sizeof(float) * 1024 * 256 * 32);
  cudaMalloc(&out, sizeof(float) * 1024 * 256);
  cudaMalloc(&small, sizeof(float) * n);
  cudaMemset(in, 0, sizeof(float) * 1024 * 256 * 32);
  struct {
    const char* name;
    probe p;
  } const probes[] = {{"copy", probe::copy},
                      {"strided", probe::strided},
                      {"bank_conflict", probe::bank_conflict},
                      {"race", probe::race},
                      {"oob", probe::out_of_bounds}};
  for (const auto& pr : probes) {
    const bool oob = pr.p == probe::out_of_bounds;
    if (oob ? std::strcmp(which, "oob") != 0
            : std::strcmp(which, "all") != 0 && std::strcmp(which, pr.name) != 0)
      continue;
    run_probe(pr.p, oob ? small : out, in, n);
    const cudaError_t e = cudaDeviceSynchronize();
    std::printf("probe %s: %s\n", pr.name, cudaGetErrorString(e));
#ifdef CUDA_EMU
    std::printf("%s%s", cuda_emu::last_launch().ncu_metrics().c_str(),
                cuda_emu::last_launch().sanitizer_text().c_str());
#endif
  }
  return 0;
}
