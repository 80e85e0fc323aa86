// CUDA's warp-level primitives for the CPU emulator: the four shuffles, ballot,
// any and all. Each lane of the mask waits until all of them arrive, as on the
// GPU (operations with different masks may be pending in one warp at once); lanes
// that never do are reported as divergent or deadlocked. Part of cuda_emu/cuda.hpp;
// include that, not this.
#pragma once

#include <stdint.h>

#include <cstring>
#include <type_traits>

#include "cuda_emu/launch.hpp"  // warpSize

namespace cuda_emu::detail {
enum class shfl_op { idx, up, down, bfly };
uint64_t shuffle(shfl_op op, unsigned mask, uint64_t value, int lane_arg, int width);
unsigned ballot(unsigned mask, bool predicate);
}  // namespace cuda_emu::detail

#define CUDA_EMU_SHUFFLE(name, op)                                                    \
  template <class T>                                                                  \
  T name(unsigned mask, T var, int lane_arg, int width = warpSize) {                  \
    static_assert(sizeof(T) <= 8 && std::is_trivially_copyable_v<T>, "shuffle type"); \
    uint64_t raw = 0;                                                                 \
    std::memcpy(&raw, &var, sizeof(T));                                               \
    raw = ::cuda_emu::detail::shuffle(op, mask, raw, lane_arg, width);                \
    std::memcpy(&var, &raw, sizeof(T));                                               \
    return var;                                                                       \
  }
CUDA_EMU_SHUFFLE(__shfl_sync, ::cuda_emu::detail::shfl_op::idx)
CUDA_EMU_SHUFFLE(__shfl_up_sync, ::cuda_emu::detail::shfl_op::up)
CUDA_EMU_SHUFFLE(__shfl_down_sync, ::cuda_emu::detail::shfl_op::down)
CUDA_EMU_SHUFFLE(__shfl_xor_sync, ::cuda_emu::detail::shfl_op::bfly)
#undef CUDA_EMU_SHUFFLE

inline unsigned __ballot_sync(unsigned mask, int predicate) {
  return ::cuda_emu::detail::ballot(mask, predicate != 0);
}
inline int __any_sync(unsigned mask, int predicate) {
  return __ballot_sync(mask, predicate) != 0;
}
inline int __all_sync(unsigned mask, int predicate) {
  return __ballot_sync(mask, predicate) == __ballot_sync(mask, 1);
}
