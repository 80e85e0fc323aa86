// Emulator stand-in for CUDA's <cooperative_groups/reduce.h>: cg::reduce over a
// thread_block_tile<N> with cg::plus, cg::less or cg::greater (a butterfly of
// shfl_xor, so every thread of the tile gets the result, as on a GPU).
#pragma once

#include <cooperative_groups.h>

namespace cooperative_groups {

template <class T>
struct plus {
  T operator()(T a, T b) const { return a + b; }
};
template <class T>
struct less {
  T operator()(T a, T b) const { return b < a ? b : a; }
};
template <class T>
struct greater {
  T operator()(T a, T b) const { return a < b ? b : a; }
};

template <unsigned N, class T, class Op>
T reduce(const thread_block_tile<N>& tile, T value, Op op) {
  for (unsigned mask = N / 2; mask > 0; mask /= 2) value = op(value, tile.shfl_xor(value, mask));
  return value;
}
template <class T, class Op>
T reduce(const thread_block&, T, Op) {
  static_assert(detail::unsupported<T>,
                "the course's emulator does not support cg::reduce over a whole thread_block; "
                "reduce a thread_block_tile<N>, or run `grader <lesson> --gpu` on a GPU machine");
  return {};
}

}  // namespace cooperative_groups
