// Lab 4's kernel step by step, and what was tried beside it (wmma_steps.cu times them all).
// Each has lab 4's interface (lessons/lesson13/include/flash_attention_wmma.hpp): bf16 Q,
// K, V, O of heads x n x d, d = 64 or 128, O = softmax(Q K^T) V per head.
#pragma once

#include <cuda_bf16.h>

#include "flash_attention_wmma.hpp"

namespace wmma_steps {

using forward_fn = bool (*)(const __nv_bfloat16* Q, const __nv_bfloat16* K, const __nv_bfloat16* V,
                            __nv_bfloat16* O, int heads, int n, int d);

// Step 0: S and P through shared memory, copies before work (step0_scratch.cu).
bool wmma_step0_scratch(const __nv_bfloat16* Q, const __nv_bfloat16* K, const __nv_bfloat16* V,
                        __nv_bfloat16* O, int heads, int n, int d);
// Step 1: S and P in registers, copies still before work (step1_registers.cu).
bool wmma_step1_registers(const __nv_bfloat16* Q, const __nv_bfloat16* K, const __nv_bfloat16* V,
                          __nv_bfloat16* O, int heads, int n, int d);
// Step 2: step 1 with K_j's and V_j's loads in flight during the tensor-core work
// (step2_loads.cu).
bool wmma_step2_loads(const __nv_bfloat16* Q, const __nv_bfloat16* K, const __nv_bfloat16* V,
                      __nv_bfloat16* O, int heads, int n, int d);
// Step 3 is the lab's solution (solutions/lesson13/flash_attention_wmma.cu): 8 warps of 32
// query rows (two row tiles), Bc = 32, Q in shared memory, fragments filled by hand with
// 16-byte loads in a permuted order of the sum's index, V_j stored transposed: what
// tried-mtiles-regs measured.

// Tried on top of step 2 (tried_variants.cu): 32 query rows a warp (two m-tiles, each
// K/V fragment used twice), with key tiles of 64 or 32; fragments of K (and V) filled
// by hand with shared loads instead of load_matrix_sync.
bool wmma_tried_mtiles_bc64(const __nv_bfloat16* Q, const __nv_bfloat16* K, const __nv_bfloat16* V,
                            __nv_bfloat16* O, int heads, int n, int d);
bool wmma_tried_mtiles_bc32(const __nv_bfloat16* Q, const __nv_bfloat16* K, const __nv_bfloat16* V,
                            __nv_bfloat16* O, int heads, int n, int d);
bool wmma_tried_manual_k(const __nv_bfloat16* Q, const __nv_bfloat16* K, const __nv_bfloat16* V,
                         __nv_bfloat16* O, int heads, int n, int d);
// K's and V's fragments one 16-byte shared load each: K_j's columns permuted, V_j stored
// transposed (tried_permuted.cu).
bool wmma_tried_permuted(const __nv_bfloat16* Q, const __nv_bfloat16* K, const __nv_bfloat16* V,
                         __nv_bfloat16* O, int heads, int n, int d);
bool wmma_tried_permuted_late_v(const __nv_bfloat16* Q, const __nv_bfloat16* K,
                                const __nv_bfloat16* V, __nv_bfloat16* O, int heads, int n, int d);
// The same layouts with 16-byte stores only (4 x 4 words transposed in registers) and
// K_j's chunks XOR-swizzled.
bool wmma_tried_permuted_swizzled(const __nv_bfloat16* Q, const __nv_bfloat16* K,
                                  const __nv_bfloat16* V, __nv_bfloat16* O, int heads, int n,
                                  int d);
// The same with 8 warps, 128 query rows a block.
bool wmma_tried_permuted_swizzled_8w(const __nv_bfloat16* Q, const __nv_bfloat16* K,
                                     const __nv_bfloat16* V, __nv_bfloat16* O, int heads, int n,
                                     int d);
// tried_permuted_swizzled_8w with K_j and V_j^T double-buffered, one barrier a key tile.
bool wmma_tried_permuted_double(const __nv_bfloat16* Q, const __nv_bfloat16* K,
                                const __nv_bfloat16* V, __nv_bfloat16* O, int heads, int n, int d);
// tried-permuted-double with S_{j+1} and P_j V_j issued before S_{j+1}'s softmax, so that
// the softmax overlaps the tensor cores, and a leaner softmax (tried_overlap.cu); 8 warps,
// or 4 warps and two blocks an SM.
bool wmma_tried_overlap_8w(const __nv_bfloat16* Q, const __nv_bfloat16* K, const __nv_bfloat16* V,
                           __nv_bfloat16* O, int heads, int n, int d);
bool wmma_tried_overlap_4w(const __nv_bfloat16* Q, const __nv_bfloat16* K, const __nv_bfloat16* V,
                           __nv_bfloat16* O, int heads, int n, int d);
// The same leaner softmax in tried-permuted-double's order, without the overlap.
bool wmma_tried_lean_8w(const __nv_bfloat16* Q, const __nv_bfloat16* K, const __nv_bfloat16* V,
                        __nv_bfloat16* O, int heads, int n, int d);
// tried-lean-8w with K_j copied by cp.async, untouched, and Q's fragments permuted instead
// (tried_async.cu; on the emulator through emulator_shim/).
bool wmma_tried_async_k(const __nv_bfloat16* Q, const __nv_bfloat16* K, const __nv_bfloat16* V,
                        __nv_bfloat16* O, int heads, int n, int d);
// tried-async-k with 32 query rows a warp (two m-tiles), Q in shared memory, key tiles of 32
// (tried_mtiles_async.cu).
bool wmma_tried_mtiles_async(const __nv_bfloat16* Q, const __nv_bfloat16* K, const __nv_bfloat16* V,
                             __nv_bfloat16* O, int heads, int n, int d);
bool wmma_tried_mtiles_async_4w(const __nv_bfloat16* Q, const __nv_bfloat16* K,
                                const __nv_bfloat16* V, __nv_bfloat16* O, int heads, int n,
                                int d);
bool wmma_tried_mtiles_regs(const __nv_bfloat16* Q, const __nv_bfloat16* K, const __nv_bfloat16* V,
                            __nv_bfloat16* O, int heads, int n, int d);
bool wmma_tried_manual_kv(const __nv_bfloat16* Q, const __nv_bfloat16* K, const __nv_bfloat16* V,
                          __nv_bfloat16* O, int heads, int n, int d);

// Every kernel above, by the name the GPU timings and the emulator check print.
struct variant {
  const char* name;
  forward_fn fn;
};
inline constexpr variant kVariants[] = {
    {"step0-scratch", wmma_step0_scratch},
    {"step1-registers", wmma_step1_registers},
    {"step2-loads", wmma_step2_loads},
    {"step3-solution", lesson13::flash_attention_wmma_forward},
    {"tried-mtiles-bc64", wmma_tried_mtiles_bc64},
    {"tried-mtiles-bc32", wmma_tried_mtiles_bc32},
    {"tried-manual-k", wmma_tried_manual_k},
    {"tried-manual-kv", wmma_tried_manual_kv},
    {"tried-permuted", wmma_tried_permuted},
    {"tried-permuted-late-v", wmma_tried_permuted_late_v},
    {"tried-permuted-swizzled", wmma_tried_permuted_swizzled},
    {"tried-permuted-swizzled-8w", wmma_tried_permuted_swizzled_8w},
    {"tried-permuted-double", wmma_tried_permuted_double},
    {"tried-lean-8w", wmma_tried_lean_8w},
    {"tried-overlap-8w", wmma_tried_overlap_8w},
    {"tried-overlap-4w", wmma_tried_overlap_4w},
    {"tried-async-k", wmma_tried_async_k},
    {"tried-mtiles-async", wmma_tried_mtiles_async},
    {"tried-mtiles-async-4w", wmma_tried_mtiles_async_4w},
    {"tried-mtiles-regs", wmma_tried_mtiles_regs}};

}  // namespace wmma_steps
