// Host entry points of wmma.cu (nvcuda::wmma and bf16 on the emulator).
//   build/bin/emulator_tests -# "[#test_wmma]"
#pragma once

#include <cuda_bf16.h>

// D (16 x 16, row-major, ldd floats a row) = A B + C, with A and B loaded in the given
// layouts from 16 x 16 matrices of ld elements a row, C loaded row- or column-major.
void wmma_product(const __nv_bfloat16* A, bool a_row_major, const __nv_bfloat16* B,
                  bool b_row_major, const float* C, bool c_row_major, float* D, int ld);
// Each warp of a block of `warps` computes its own 16 x 16 tile of A (16 warps x 16 rows) times
// B: A's rows staged in shared memory by the warp, read with load_matrix_sync.
void wmma_tiles(const __nv_bfloat16* A, const __nv_bfloat16* B, float* D, int warps);
// Doubles every accumulator element through x[i] before storing: element-wise code.
void wmma_scale_elements(const float* C, float* D);
// Lanes 16..31 return before mma_sync.
void wmma_lanes_missing(float* D);
// load_matrix_sync from p + offset elements, with leading dimension ld.
void wmma_load_at(const __nv_bfloat16* p, int offset, int ld, float* D);
// A warp reads a tile another warp writes, with no barrier between them.
void wmma_unsynchronised(const __nv_bfloat16* A, float* D);
