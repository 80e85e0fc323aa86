// nvcuda::wmma's warp-wide work for the emulator (include/mma.h, cuda_emu/wmma.hpp): the
// matrix product of mma_sync, computed once per warp when its last lane arrives, and the
// pointer checks of the loads and stores. Never instrumented: it reads and writes the
// lanes' fragments (each on its own fiber's stack) on their behalf, as the tensor core
// reads their registers.
#include <cstdint>
#include <cstdio>
#include <string>

#include "cuda_emu/bf16.hpp"
#include "cuda_emu/wmma.hpp"
#include "internal.hpp"

namespace cuda_emu::detail::wmma {

void resolve_mma(uint32_t warp, uint32_t arrived) {
  if (arrived != 0xffffffffu) return;  // each lane reports it (mma_sync in scheduler.cpp)
  emu.record->counters.wmma_mma_syncs++;
  // In double from the start: a bf16 value and a product of two are exact there, so
  // converting first changes no bit and leaves the loop below nothing but multiplies and adds.
  double A[16][16], B[16][16], C[16][16];
  const mma_operands* ops[32];
  for (int lane = 0; lane < 32; ++lane) {
    ops[lane] = reinterpret_cast<const mma_operands*>(emu.threads[warp * 32 + lane].warp_value);
    for (int i = 0; i < 8; ++i) {
      const position a = a_position(lane, i), b = b_position(lane, i), c = c_position(lane, i);
      A[a.row][a.col] = bf16_to_float(ops[lane]->a[i]);
      B[b.row][b.col] = bf16_to_float(ops[lane]->b[i]);
      C[c.row][c.col] = ops[lane]->c[i];
    }
  }
  // Products of two bf16 values are exact in float and their sums of 16 exact in double:
  // D is the exact result rounded once. (A tensor core may round its partial sums
  // differently; the probe in tests/wmma/ measures by how much.) Each element's sum adds its
  // products in k order, then C; k outermost lets a row's 16 sums go side by side (the
  // profile: one dependent chain per element, converting as it went, was 17 % of lab 4's
  // tests).
  float D[16][16];
  for (int r = 0; r < 16; ++r) {
    double sum[16] = {};
    for (int k = 0; k < 16; ++k)
      for (int col = 0; col < 16; ++col) sum[col] += A[r][k] * B[k][col];
    for (int col = 0; col < 16; ++col) D[r][col] = static_cast<float>(sum[col] + C[r][col]);
  }
  for (int lane = 0; lane < 32; ++lane)  // after every read: d may be c
    for (int i = 0; i < 8; ++i) {
      const position d = c_position(lane, i);
      ops[lane]->d[i] = D[d.row][d.col];
    }
}

void check_matrix(const char* call, const void* p, unsigned ldm, unsigned element_bytes) {
  if (!emu.in_kernel) return;
  const uintptr_t a = reinterpret_cast<uintptr_t>(p);
  const bool aligned = a % 32 == 0, ldm_ok = ldm > 0 && (uint64_t{ldm} * element_bytes) % 16 == 0;
  if (aligned && ldm_ok) return;
  emu.in_kernel = false;  // the message builds strings
  char where[32];
  std::snprintf(where, sizeof where, "0x%llx", static_cast<unsigned long long>(a));
  abort_thread(abort_reason::memcheck,
               std::string("Invalid arguments to ") + call + "\n    by thread " +
                   std::to_string(emu.current->lane) + " of its warp\n    " +
                   (aligned ? "ldm = " + std::to_string(ldm) + " is not a multiple of " +
                                  std::to_string(16 / element_bytes) +
                                  " elements (16 bytes), as the CUDA guide requires"
                            : std::string("the pointer ") + where +
                                  " is not 256-bit (32-byte) aligned, as the CUDA guide "
                                  "requires; a GPU stops with a misaligned address or "
                                  "returns wrong values"));
}

}  // namespace cuda_emu::detail::wmma
