// Emulator stand-in for CUDA's <cooperative_groups.h>: the common subset, i.e.
// this_thread_block() (sync, thread_rank, size, thread_index, group_index) and
// tiled_partition<N>() tiles of 1..32 threads (sync, thread_rank, size,
// meta_group_rank, shfl, shfl_up, shfl_down, shfl_xor, any, all, ballot).
// Anything else is a compile-time error naming the unsupported feature.
#pragma once

#include "cuda_emu/cuda.hpp"

namespace cooperative_groups {

namespace detail {
template <class T>
inline constexpr bool unsupported = false;
inline unsigned block_threads() {
  return blockDim.x * blockDim.y * blockDim.z;
}
inline unsigned block_rank() {
  return (threadIdx.z * blockDim.y + threadIdx.y) * blockDim.x + threadIdx.x;
}
}  // namespace detail

class thread_block {
 public:
  void sync() const { __syncthreads(); }
  unsigned long long thread_rank() const { return detail::block_rank(); }
  unsigned long long size() const { return detail::block_threads(); }
  unsigned long long num_threads() const { return detail::block_threads(); }
  dim3 group_dim() const { return blockDim; }
  dim3 dim_threads() const { return blockDim; }
  uint3 thread_index() const { return threadIdx; }
  uint3 group_index() const { return blockIdx; }
};

inline thread_block this_thread_block() {
  return {};
}

// All 32 lanes of the warp take part in a tile's warp operations (with width N),
// so the emulator sees one warp-wide operation, as when every tile is active.
template <unsigned N>
class thread_block_tile {
  static_assert(N >= 1 && N <= 32 && (N & (N - 1)) == 0,
                "the course's emulator does not support tiles other than 1, 2, 4, 8, 16 or 32 "
                "threads; run `grader <lesson> --gpu` on a GPU machine");

 public:
  void sync() const { __syncwarp(); }
  unsigned long long thread_rank() const { return detail::block_rank() % N; }
  unsigned long long size() const { return N; }
  unsigned long long num_threads() const { return N; }
  unsigned long long meta_group_rank() const { return detail::block_rank() / N; }
  unsigned long long meta_group_size() const { return (detail::block_threads() + N - 1) / N; }
  template <class T>
  T shfl(T v, int src) const {
    return __shfl_sync(0xffffffffu, v, src, N);
  }
  template <class T>
  T shfl_up(T v, unsigned delta) const {
    return __shfl_up_sync(0xffffffffu, v, delta, N);
  }
  template <class T>
  T shfl_down(T v, unsigned delta) const {
    return __shfl_down_sync(0xffffffffu, v, delta, N);
  }
  template <class T>
  T shfl_xor(T v, unsigned mask) const {
    return __shfl_xor_sync(0xffffffffu, v, mask, N);
  }
  unsigned ballot(int predicate) const {
    const unsigned all = __ballot_sync(0xffffffffu, predicate);
    const unsigned shift = detail::block_rank() % 32 / N * N;
    return N == 32 ? all : (all >> shift) & ((1u << N) - 1);
  }
  int any(int predicate) const { return ballot(predicate) != 0; }
  int all(int predicate) const { return ballot(predicate) == ballot(1); }
};

template <unsigned N>
thread_block_tile<N> tiled_partition(const thread_block&) {
  return {};
}

inline void sync(const thread_block& g) {
  g.sync();
}
template <unsigned N>
void sync(const thread_block_tile<N>& g) {
  g.sync();
}

// Grid-wide groups need a cooperative launch, which the emulator does not have.
class grid_group {
 public:
  void sync() const {}
};
template <class T = void>
grid_group this_grid() {
  static_assert(detail::unsupported<T>,
                "the course's emulator does not support cooperative_groups::this_grid() (grid "
                "sync); run `grader <lesson> --gpu` on a GPU machine");
  return {};
}
// tiled_partition(block, n) with a run-time size returns a thread_group on a GPU.
template <class T = void>
thread_block tiled_partition(const thread_block&, unsigned) {
  static_assert(
      detail::unsupported<T>,
      "the course's emulator does not support tiled_partition(group, n) with a "
      "run-time size; use tiled_partition<N>(group), or run `grader <lesson> --gpu` on a GPU "
      "machine");
  return {};
}
template <class T = void>
void coalesced_threads() {
  static_assert(detail::unsupported<T>,
                "the course's emulator does not support cooperative_groups::coalesced_threads(); "
                "run `grader <lesson> --gpu` on a GPU machine");
}

}  // namespace cooperative_groups
