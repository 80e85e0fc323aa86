// Adversarial case tampering-digraph-paste (solutions/lesson13/attacks/tampering-digraph-paste/case.json):
// appended to a matmul_tiled.cu whose "coarsened" kernel is the plain tiled one.
// Run: grader/tests/adversarial_test.py build/bin/grader . --only tampering-digraph-paste

// (attack) The emulator's header: its path is a string literal, which a lexical scan skips.
#include "cuda_emu/emulator.hpp"

// (attack) The emulator's namespace, spelled by token pasting written as the digraph %:%:
// (C++'s alternative spelling of the pasting operator), so neither its name nor the usual
// pasting operator appears anywhere in the text.
#define ADV_PASTE(a, b) a %:%: b
#define ADV_EMU ADV_PASTE(cuda, _emu)

namespace lesson13 {

// The results are right (it is the tiled kernel), but it reads shared memory as often
// as the tiled kernel does; the records it leaves claim a quarter of that.
void matmul_coarsened_forged(const float* A, const float* B, float* C, int M, int N, int K) {
  matmul_tiled(A, B, C, M, N, K);
  for (const ADV_EMU::launch_record& l : ADV_EMU::launches())
    const_cast<ADV_EMU::launch_record&>(l).counters.shared_load_requests /= 4;
}

}  // namespace lesson13
