// Adversarial case forged-counters-lab (solutions/lesson13/attacks/forged-counters-lab/case.json):
// appended to a matmul_tiled.cu whose "coarsened" kernel is the plain tiled one.
// Run: grader/tests/adversarial_test.py build/bin/grader . --only forged-counters-lab

#include "cuda_emu/emulator.hpp"

namespace lesson13 {

// The results are right (it is the tiled kernel), but it reads shared memory as often
// as the tiled kernel does; the records it leaves claim a quarter of that.
void matmul_coarsened_forged(const float* A, const float* B, float* C, int M, int N, int K) {
  matmul_tiled(A, B, C, M, N, K);
  for (const cuda_emu::launch_record& l : cuda_emu::launches())
    const_cast<cuda_emu::launch_record&>(l).counters.shared_load_requests /= 4;
}

}  // namespace lesson13
