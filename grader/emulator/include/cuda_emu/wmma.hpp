// The emulator's side of nvcuda::wmma (<mma.h>): where each lane keeps each element of a
// 16 x 16 x 16 fragment, and the calls into the emulator. Plain C++, shared by <mma.h> and
// src/wmma.cpp.
//
// The layouts are sm_80+'s, as PTX documents them for mma.m16n8k16 (a 16 x 16 x 16 wmma
// is two such instructions side by side, n = 0..7 and 8..15); lane = 4 g + t:
//   matrix_a (m x k), element i:  row g + 8 (i/2 % 2),  column 2t + i % 2 + 8 (i/4)
//   matrix_b (k x n), element i:  row 2t + i % 2 + 8 (i/2 % 2),  column g + 8 (i/4)
//   accumulator (m x n), element i: row g + 8 (i/2 % 2),  column 2t + i % 2 + 8 (i/4)
// CUDA calls the mapping unspecified; these are what the GPU does, checked on one
// (grader/emulator/tests/wmma/, wmma_probe.gpu.txt), so code that reads x[i] by position
// behaves on the emulator as on the GPU.
#pragma once

#include <stdint.h>

namespace cuda_emu::detail::wmma {

struct position {
  int row, col;
};
constexpr position a_position(int lane, int i) {
  return {lane / 4 + 8 * (i / 2 % 2), 2 * (lane % 4) + i % 2 + 8 * (i / 4)};
}
constexpr position b_position(int lane, int i) {
  return {2 * (lane % 4) + i % 2 + 8 * (i / 2 % 2), lane / 4 + 8 * (i / 4)};
}
constexpr position c_position(int lane, int i) {
  return a_position(lane, i);
}

// One lane's operands of mma_sync: its 8 elements of A and B (bf16 bits) and of C, and
// where its 8 elements of D go.
struct mma_operands {
  const uint16_t* a;
  const uint16_t* b;
  const float* c;
  float* d;
};
// Every lane of the warp calls it; the last to arrive computes D for all 32 (float
// sums of exact bf16 products, rounded once) and writes each lane's elements.
void mma_sync(const mma_operands& ops);
// A pointer and leading dimension a wmma load or store may use: 256-bit aligned, and
// ldm a multiple of 16 bytes. Anything else stops the launch, as a misaligned access does.
void check_matrix(const char* call, const void* p, unsigned ldm, unsigned element_bytes);

}  // namespace cuda_emu::detail::wmma
