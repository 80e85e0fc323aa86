// For emulator_check.sh only (the GPU build never sees this folder): cp.async's primitives
// as plain copies made at once, which the course's emulator runs and checks for races and
// bounds like any other access. A kernel that reads a copy before waiting for it is not
// caught here; the GPU timing's check against a double-precision attention catches it.
#pragma once

#include <cstddef>
#include <cstdint>

inline void __pipeline_memcpy_async(void* dst, const void* src, size_t size, size_t zfill = 0) {
  auto* d = static_cast<uint32_t*>(dst);
  const auto* s = static_cast<const uint32_t*>(src);
  for (size_t i = 0; i < size / 4; ++i) d[i] = i < (size - zfill) / 4 ? s[i] : 0u;
}
inline void __pipeline_commit() {}
inline void __pipeline_wait_prior(size_t) {}
