// Kernels for test_wmma.cpp: nvcuda::wmma's fragments, loads, stores and mma_sync on
// the emulator (include/mma.h), in the ways lesson 13's tensor-core lab uses them.
#include "wmma.hpp"

#include <mma.h>

using namespace nvcuda;

namespace {
using frag_c = wmma::fragment<wmma::accumulator, 16, 16, 16, float>;
template <class L>
using frag_a = wmma::fragment<wmma::matrix_a, 16, 16, 16, __nv_bfloat16, L>;
template <class L>
using frag_b = wmma::fragment<wmma::matrix_b, 16, 16, 16, __nv_bfloat16, L>;

template <class LA, class LB>
__global__ void product_kernel(const __nv_bfloat16* A, const __nv_bfloat16* B, const float* C,
                               bool c_row, float* D, int ld) {
  frag_a<LA> a;
  frag_b<LB> b;
  frag_c c;
  wmma::load_matrix_sync(a, A, ld);
  wmma::load_matrix_sync(b, B, ld);
  wmma::load_matrix_sync(c, C, ld, c_row ? wmma::mem_row_major : wmma::mem_col_major);
  wmma::mma_sync(c, a, b, c);
  wmma::store_matrix_sync(D, c, 16, wmma::mem_row_major);
}

__global__ void tiles_kernel(const __nv_bfloat16* A, const __nv_bfloat16* B, float* D) {
  __shared__ __align__(32) __nv_bfloat16 As[16][16 * 16];
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  for (int i = lane; i < 256; i += 32) As[warp][i] = A[warp * 256 + i];
  __syncwarp();
  frag_a<wmma::row_major> a;
  frag_b<wmma::row_major> b;
  frag_c c;
  wmma::fill_fragment(c, 0.0f);
  wmma::load_matrix_sync(a, As[warp], 16);
  wmma::load_matrix_sync(b, B, 16);
  wmma::mma_sync(c, a, b, c);
  wmma::store_matrix_sync(D + warp * 256, c, 16, wmma::mem_row_major);
}

__global__ void scale_kernel(const float* C, float* D) {
  frag_c c;
  wmma::load_matrix_sync(c, C, 16, wmma::mem_row_major);
  for (int i = 0; i < c.num_elements; ++i) c.x[i] *= 2.0f;
  wmma::store_matrix_sync(D, c, 16, wmma::mem_col_major);
}

__global__ void missing_kernel(float* D) {
  if (threadIdx.x >= 16) return;
  frag_a<wmma::row_major> a;
  frag_b<wmma::col_major> b;
  frag_c c;
  wmma::fill_fragment(a, 1.0f);
  wmma::fill_fragment(b, 1.0f);
  wmma::fill_fragment(c, 0.0f);
  wmma::mma_sync(c, a, b, c);
  wmma::store_matrix_sync(D, c, 16, wmma::mem_row_major);
}

__global__ void load_at_kernel(const __nv_bfloat16* p, int offset, int ld, float* D) {
  frag_a<wmma::row_major> a;
  frag_b<wmma::col_major> b;
  frag_c c;
  wmma::load_matrix_sync(a, p + offset, ld);
  wmma::fill_fragment(b, 1.0f);
  wmma::fill_fragment(c, 0.0f);
  wmma::mma_sync(c, a, b, c);
  wmma::store_matrix_sync(D, c, 16, wmma::mem_row_major);
}

// Warp 1 fills the tile; warp 0 reads it with no __syncthreads between.
__global__ void unsynchronised_kernel(const __nv_bfloat16* A, float* D) {
  __shared__ __align__(32) __nv_bfloat16 tile[256];
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  if (warp == 1)
    for (int i = lane; i < 256; i += 32) tile[i] = A[i];
  if (warp == 0) {
    frag_a<wmma::row_major> a;
    frag_b<wmma::col_major> b;
    frag_c c;
    wmma::load_matrix_sync(a, tile, 16);
    wmma::fill_fragment(b, 1.0f);
    wmma::fill_fragment(c, 0.0f);
    wmma::mma_sync(c, a, b, c);
    wmma::store_matrix_sync(D, c, 16, wmma::mem_row_major);
  }
}
}  // namespace

void wmma_product(const __nv_bfloat16* A, bool a_row_major, const __nv_bfloat16* B,
                  bool b_row_major, const float* C, bool c_row_major, float* D, int ld) {
  if (a_row_major && b_row_major)
    product_kernel<wmma::row_major, wmma::row_major><<<1, 32>>>(A, B, C, c_row_major, D, ld);
  else if (a_row_major)
    product_kernel<wmma::row_major, wmma::col_major><<<1, 32>>>(A, B, C, c_row_major, D, ld);
  else if (b_row_major)
    product_kernel<wmma::col_major, wmma::row_major><<<1, 32>>>(A, B, C, c_row_major, D, ld);
  else
    product_kernel<wmma::col_major, wmma::col_major><<<1, 32>>>(A, B, C, c_row_major, D, ld);
}
void wmma_tiles(const __nv_bfloat16* A, const __nv_bfloat16* B, float* D, int warps) {
  tiles_kernel<<<1, 32 * warps>>>(A, B, D);
}
void wmma_scale_elements(const float* C, float* D) {
  scale_kernel<<<1, 32>>>(C, D);
}
void wmma_lanes_missing(float* D) {
  missing_kernel<<<1, 32>>>(D);
}
void wmma_load_at(const __nv_bfloat16* p, int offset, int ld, float* D) {
  load_at_kernel<<<1, 32>>>(p, offset, ld, D);
}
void wmma_unsynchronised(const __nv_bfloat16* A, float* D) {
  unsynchronised_kernel<<<1, 64>>>(A, D);
}
