// Emulator stand-in for CUDA's <mma.h>: nvcuda::wmma for bf16 inputs and float
// accumulators at the 16 x 16 x 16 shape (fragment, fill_fragment, load_matrix_sync,
// store_matrix_sync, mma_sync), which is what lesson 13's tensor-core lab uses. Other
// shapes and types are a compile-time error that names what is missing.
//
// Each lane holds 8 elements of a fragment, where the GPU holds them (cuda_emu/wmma.hpp),
// so element-wise code on x[i] means the same on both. Loads and stores are the lane's
// own accesses, checked and counted like any other (the GPU's instructions for them
// differ, so their counters are not Nsight Compute's); mma_sync meets the whole warp,
// like a shuffle, and computes in float from exact bf16 products.
#pragma once

#include "cuda_emu/cuda.hpp"
#include "cuda_emu/bf16.hpp"
#include "cuda_emu/wmma.hpp"

namespace nvcuda::wmma {

struct matrix_a {};
struct matrix_b {};
struct accumulator {};
struct row_major {};
struct col_major {};
enum layout_t { mem_row_major, mem_col_major };

namespace detail {
template <class T>
inline constexpr bool always_false = false;
template <class Use, class T>
inline constexpr bool supported_type =
    std::is_same_v<Use, accumulator> ? std::is_same_v<T, float> : std::is_same_v<T, __nv_bfloat16>;
}  // namespace detail

template <class Use, int m, int n, int k, class T, class Layout = void>
class fragment {
  static_assert(m == 16 && n == 16 && k == 16,
                "the course's emulator supports wmma's 16 x 16 x 16 shape only; other shapes "
                "run with `grader <lesson> --gpu` on a GPU machine");
  static_assert(detail::supported_type<Use, T>,
                "the course's emulator supports wmma with __nv_bfloat16 matrix_a/matrix_b and "
                "float accumulators only");
  static_assert(std::is_same_v<Use, accumulator> ? std::is_same_v<Layout, void>
                                                 : !std::is_same_v<Layout, void>,
                "matrix_a and matrix_b fragments name their layout (row_major or col_major); "
                "accumulators take it at load and store");

 public:
  using element_type = T;
  using storage_element_type = T;
  static constexpr int num_elements = 8;
  T x[num_elements];
};

template <class Use, int m, int n, int k, class T, class Layout, class V>
inline void fill_fragment(fragment<Use, m, n, k, T, Layout>& f, const V& value) {
  const T v = static_cast<T>(value);
  for (int i = 0; i < f.num_elements; ++i) f.x[i] = v;
}

namespace detail {
inline int lane_id() {
  return static_cast<int>((threadIdx.x + blockDim.x * (threadIdx.y + blockDim.y * threadIdx.z)) %
                          32);
}
}  // namespace detail

namespace detail {
// A lane's 8 bf16 elements at `position(lane, i)` = (row, col) of the matrix, stored at
// p[row * ldm + col] (row_major) or p[col * ldm + row] (col_major).
template <class Layout, class Fragment, class Position>
inline void load_bf16(Fragment& f, const __nv_bfloat16* p, unsigned ldm, Position position) {
  ::cuda_emu::detail::wmma::check_matrix("wmma::load_matrix_sync", p, ldm, 2);
  const int lane = lane_id();
  for (int i = 0; i < 8; ++i) {
    const auto [r, c] = position(lane, i);
    f.x[i] = std::is_same_v<Layout, row_major> ? p[r * ldm + c] : p[c * ldm + r];
  }
}
}  // namespace detail

// matrix_a holds A (m x k) and matrix_b B (k x n), row by row or column by column.
template <class Layout>
inline void load_matrix_sync(fragment<matrix_a, 16, 16, 16, __nv_bfloat16, Layout>& a,
                             const __nv_bfloat16* p, unsigned ldm) {
  detail::load_bf16<Layout>(a, p, ldm, ::cuda_emu::detail::wmma::a_position);
}
template <class Layout>
inline void load_matrix_sync(fragment<matrix_b, 16, 16, 16, __nv_bfloat16, Layout>& b,
                             const __nv_bfloat16* p, unsigned ldm) {
  detail::load_bf16<Layout>(b, p, ldm, ::cuda_emu::detail::wmma::b_position);
}
inline void load_matrix_sync(fragment<accumulator, 16, 16, 16, float>& c, const float* p,
                             unsigned ldm, layout_t layout) {
  ::cuda_emu::detail::wmma::check_matrix("wmma::load_matrix_sync", p, ldm, 4);
  const int lane = detail::lane_id();
  for (int i = 0; i < 8; ++i) {
    const auto [r, col] = ::cuda_emu::detail::wmma::c_position(lane, i);
    c.x[i] = layout == mem_row_major ? p[r * ldm + col] : p[col * ldm + r];
  }
}
inline void store_matrix_sync(float* p, const fragment<accumulator, 16, 16, 16, float>& c,
                              unsigned ldm, layout_t layout) {
  ::cuda_emu::detail::wmma::check_matrix("wmma::store_matrix_sync", p, ldm, 4);
  const int lane = detail::lane_id();
  for (int i = 0; i < 8; ++i) {
    const auto [r, col] = ::cuda_emu::detail::wmma::c_position(lane, i);
    (layout == mem_row_major ? p[r * ldm + col] : p[col * ldm + r]) = c.x[i];
  }
}

// D = A B + C for the whole warp: every lane of it must call it, with its own fragments.
template <class LayoutA, class LayoutB>
inline void mma_sync(fragment<accumulator, 16, 16, 16, float>& d,
                     const fragment<matrix_a, 16, 16, 16, __nv_bfloat16, LayoutA>& a,
                     const fragment<matrix_b, 16, 16, 16, __nv_bfloat16, LayoutB>& b,
                     const fragment<accumulator, 16, 16, 16, float>& c, bool satf = false) {
  static_cast<void>(satf);  // it saturates only half and integer results
  ::cuda_emu::detail::wmma::mma_sync(
      {reinterpret_cast<const uint16_t*>(a.x), reinterpret_cast<const uint16_t*>(b.x), c.x, d.x});
}

}  // namespace nvcuda::wmma
