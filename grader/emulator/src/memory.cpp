// Device memory: one large reserved range, allocations spread far apart (wide
// unallocated gaps, reused only when the range runs out), so an access far out of
// bounds, or after cudaFree, lands where nothing is allocated and is recognisable.
// Also the runtime API calls that move or report memory and errors.
#include <sys/mman.h>

#include <algorithm>
#include <bit>
#include <cstdio>
#include <cstring>
#include <stdexcept>

#include "internal.hpp"

namespace cuda_emu::detail {
namespace {

constexpr size_t kAlign = 256;    // cudaMalloc's alignment
constexpr size_t kRedZone = 512;  // the least unallocated gap before each allocation

void api_error(const std::string& text) {
  emit(report_kind::config, text);
}

bool is_device(const void* p) {
  const uintptr_t a = reinterpret_cast<uintptr_t>(p);
  return a - emu.arena_lo < emu.arena_size;
}

}  // namespace

void init_memory() {
  if (emu.arena_lo) return;
  // Reserve as much address space as the system grants (no memory is committed), at a
  // fixed address when it is free: device pointers, and the messages that quote them,
  // are then the same in every run, whatever ASLR does. 0x500000000000 is clear of the
  // program, its libraries and stacks (near 0x7f...) and of AddressSanitizer's shadow
  // and allocator (below 0x100000000000 and at 0x600000000000).
  constexpr uintptr_t kFixedBase = 0x500000000000;
  for (size_t size = size_t{64} << 30; size >= (size_t{256} << 20); size /= 2) {
    void* p = mmap(reinterpret_cast<void*>(kFixedBase), size, PROT_READ | PROT_WRITE,
                   MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE | MAP_FIXED_NOREPLACE, -1, 0);
    if (p == MAP_FAILED)  // taken, or a kernel older than 4.17: anywhere will do
      p = mmap(nullptr, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE,
               -1, 0);
    if (p != MAP_FAILED) {
      emu.arena_lo = reinterpret_cast<uintptr_t>(p);
      emu.arena_size = size;
      emu.builtins[0] = reinterpret_cast<uintptr_t>(&thread_idx);
      emu.builtins[1] = reinterpret_cast<uintptr_t>(&block_idx);
      emu.builtins[2] = reinterpret_cast<uintptr_t>(&block_dim);
      emu.builtins[3] = reinterpret_cast<uintptr_t>(&grid_dim);
      return;
    }
  }
  throw std::runtime_error("cuda_emu: cannot reserve address space for device memory");
}

const allocation* find_allocation(uintptr_t a) {
  const auto& all = emu.allocations;
  if (all.empty()) return nullptr;
  auto it = std::upper_bound(all.begin(), all.end(), a,
                             [](uintptr_t x, const allocation& al) { return x < al.base; });
  const allocation* after = it == all.end() ? nullptr : &*it;
  const allocation* before = it == all.begin() ? nullptr : &*(it - 1);
  if (!before) return after;
  if (!after || a < before->base + before->size) return before;
  return a - (before->base + before->size) <= after->base - a ? before : after;
}

const allocation* containing(uintptr_t a, size_t size) {
  const auto& all = emu.allocations;
  auto it = std::upper_bound(all.begin(), all.end(), a,
                             [](uintptr_t x, const allocation& al) { return x < al.base; });
  if (it == all.begin()) return nullptr;
  const allocation& al = *(it - 1);
  return al.live && a + size <= al.base + al.size ? &al : nullptr;
}

namespace {
// Freed allocations' shadows, kept for the next ones: a fresh mapping costs a page fault
// and a page cleared by the kernel for every 4 KiB touched (a tenth of a lab test's
// time), and the owner serial makes the old words stale without clearing them.
struct pooled_shadow {
  void* p;
  size_t bytes;
};
std::vector<pooled_shadow> g_pool;
size_t g_pool_bytes = 0;
constexpr size_t kPoolCap = size_t{256} << 20;  // mapped bytes kept; the resident part is less
uint32_t g_next_serial = 1;
}  // namespace

uint32_t next_allocation_serial() {
  return g_next_serial++;
}

// One global_word per 4 bytes, mapped lazily (pages the kernels never touch cost
// nothing) in a power-of-two size, so that the tests' shapes, which differ a little from
// draw to draw, find a pooled one. Null when the system refuses the mapping: that
// allocation is then not race-checked.
global_word* shadow_of(const allocation& al) {
  if (!al.shadow) {
    const size_t bytes =
        std::bit_ceil(std::max<size_t>((al.size + 3) / 4 * sizeof(global_word), size_t{64} << 10));
    auto best = g_pool.end();
    for (auto it = g_pool.begin(); it != g_pool.end(); ++it)
      if (it->bytes == bytes) best = it;
    if (best != g_pool.end()) {
      al.shadow = static_cast<global_word*>(best->p);
      al.shadow_bytes = best->bytes;
      g_pool_bytes -= best->bytes;
      g_pool.erase(best);
      return al.shadow;
    }
    void* p = mmap(nullptr, bytes, PROT_READ | PROT_WRITE,
                   MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (p == MAP_FAILED) return nullptr;
    al.shadow = static_cast<global_word*>(p);
    al.shadow_bytes = bytes;
  }
  return al.shadow;
}

void release_shadow(const allocation& al) {
  if (!al.shadow) return;
  if (g_pool_bytes + al.shadow_bytes <= kPoolCap) {
    g_pool.push_back({al.shadow, al.shadow_bytes});
    g_pool_bytes += al.shadow_bytes;
  } else {
    munmap(al.shadow, al.shadow_bytes);
  }
  al.shadow = nullptr;
}

void mark_written(const allocation& al, uintptr_t a, unsigned size) {
  global_word* words = shadow_of(al);
  if (!words) return;
  const size_t count = (al.size + 3) / 4;
  for (size_t w = (a - al.base) >> 2; w <= (a + size - 1 - al.base) >> 2 && w < count; ++w)
    for_this_launch(words[w], al.serial).flags |= kWritten;
}

memory_snapshot snapshot_device_memory() {
  constexpr size_t kMostBytes = size_t{256} << 20;  // past this, no check: too costly to copy
  memory_snapshot snap;
  size_t total = 0;
  for (const auto& al : emu.allocations)
    if (al.live) total += al.size;
  if (total > kMostBytes) return snap;
  for (const auto& al : emu.allocations) {
    if (!al.live) continue;
    const auto* p = reinterpret_cast<const unsigned char*>(al.base);
    snap.copies.emplace_back(al.base, std::vector<unsigned char>(p, p + al.size));
  }
  return snap;
}

std::string unseen_writes(const memory_snapshot& before, const std::string& kernel) {
  for (const auto& [base, bytes] : before.copies) {
    const allocation* al = containing(base, 1);
    if (!al || al->base != base || al->size != bytes.size()) continue;  // freed in the kernel?
    const auto* now = reinterpret_cast<const unsigned char*>(base);
    if (std::memcmp(now, bytes.data(), bytes.size()) == 0) continue;
    // No shadow yet: no instrumented access touched it, unless it cannot be mapped at
    // all (then this allocation goes unchecked, as it went unchecked for races).
    const global_word* words = al->shadow ? al->shadow : shadow_of(*al);
    if (!words) continue;
    for (size_t i = 0; i < bytes.size(); ++i) {
      if (now[i] == bytes[i]) continue;
      const global_word& s = words[i / 4];
      if (s.stamp == emu.launch_id && s.owner == al->serial && (s.flags & kWritten)) continue;
      char at[32];
      std::snprintf(at, sizeof at, "0x%lx", static_cast<unsigned long>(base));
      return "Unseen write: byte " + std::to_string(i) + " of the " + std::to_string(al->size) +
             "-byte allocation at " + at + " changed during " + kernel +
             " with no store the emulator saw\n    (inline assembly, a libc call such as memcpy "
             "or write, or code built without the emulator's instrumentation): the launch's "
             "memory counters cannot be trusted";
    }
  }
  return "";
}

const allocation* nearest_live(uintptr_t a) {
  const allocation* best = nullptr;
  uintptr_t best_d = ~uintptr_t{0};
  for (const auto& al : emu.allocations) {
    if (!al.live) continue;
    const uintptr_t d = a < al.base              ? al.base - a
                        : a >= al.base + al.size ? a - al.base - al.size
                                                 : 0;
    if (d < best_d) best = &al, best_d = d;
  }
  return best;
}

namespace {

// The gap before an allocation: as wide as the range allows for some 256
// allocations, at most 1 GiB; narrower only when the range fills up.
size_t gap_for(size_t shrink) {
  return std::max(kRedZone, std::min(size_t{1} << 30, emu.arena_size / 256) >> shrink);
}

// First address after `lo` where `bytes` fit with `gap` before and after, below `hi`.
uintptr_t fit(uintptr_t lo, uintptr_t hi, size_t bytes, size_t gap) {
  const uintptr_t base = (lo + gap + kAlign - 1) & ~(kAlign - 1);
  return base + bytes + gap <= hi && base > lo ? base : 0;
}

// Bump first; once the range is used up, the first hole between live
// allocations (freed ones are forgotten there: use-after-free of them is lost).
uintptr_t place(size_t bytes) {
  const uintptr_t end = emu.arena_lo + emu.arena_size;
  if (bytes > emu.arena_size) return 0;
  for (size_t shrink = 0; shrink < 24; ++shrink) {
    const size_t gap = gap_for(shrink);
    if (uintptr_t b = fit(emu.arena_lo + emu.arena_used, end, bytes, gap)) return b;
    uintptr_t lo = emu.arena_lo;
    for (const auto& al : emu.allocations) {
      if (!al.live) continue;
      if (uintptr_t b = fit(lo, al.base, bytes, gap)) return b;
      lo = al.base + al.size;
    }
    if (uintptr_t b = fit(lo, end, bytes, gap)) return b;
  }
  return 0;
}

}  // namespace

}  // namespace cuda_emu::detail

using namespace cuda_emu::detail;

cudaError_t cudaMalloc(void** ptr, size_t bytes) {
  if (!ptr) return cudaErrorInvalidValue;
  init_memory();
  if (bytes == 0) {
    *ptr = nullptr;
    return cudaSuccess;
  }
  const uintptr_t base = place(bytes);
  if (!base) {
    emu.last_error = cudaErrorMemoryAllocation;
    return cudaErrorMemoryAllocation;
  }
  auto& all = emu.allocations;
  if (base >= emu.arena_lo + emu.arena_used) {
    emu.arena_used = base + bytes - emu.arena_lo;
    all.push_back({base, bytes, true, next_allocation_serial()});
  } else {  // reused: drop the freed allocations the new one (with its gaps) covers
    std::erase_if(all, [&](const allocation& al) {
      return !al.live && al.base < base + bytes + kRedZone && base < al.base + al.size + kRedZone;
    });
    all.insert(std::lower_bound(all.begin(), all.end(), base,
                                [](const allocation& al, uintptr_t x) { return al.base < x; }),
               {base, bytes, true, next_allocation_serial()});
    emu.forget_allocations();
  }
  emu.bytes_in_use += bytes;
  emu.peak_bytes = std::max(emu.peak_bytes, emu.bytes_in_use);
  *ptr = reinterpret_cast<void*>(base);
  return cudaSuccess;
}

cudaError_t cudaFree(void* ptr) {
  if (!ptr) return cudaSuccess;
  const uintptr_t a = reinterpret_cast<uintptr_t>(ptr);
  auto& all = emu.allocations;
  auto it = std::lower_bound(all.begin(), all.end(), a,
                             [](const allocation& al, uintptr_t x) { return al.base < x; });
  if (it == all.end() || it->base != a || !it->live) {
    api_error(it != all.end() && it->base == a
                  ? "cudaFree: the pointer was already freed"
                  : "cudaFree: the pointer is not the start of a device allocation");
    emu.last_error = cudaErrorInvalidValue;
    return cudaErrorInvalidValue;
  }
  it->live = false;
  release_shadow(*it);
  emu.bytes_in_use -= it->size;
  emu.forget_allocations();
  // Give the pages back; the range stays reserved, so later accesses are caught.
  const uintptr_t page = 4096, lo = (a + page - 1) & ~(page - 1), hi = (a + it->size) & ~(page - 1);
  if (hi > lo) madvise(reinterpret_cast<void*>(lo), hi - lo, MADV_DONTNEED);
  return cudaSuccess;
}

cudaError_t cudaMemcpy(void* dst, const void* src, size_t bytes, cudaMemcpyKind kind) {
  if (emu.sticky_error != cudaSuccess) return emu.sticky_error;
  if (kind == cudaMemcpyDefault)
    kind = is_device(dst) ? (is_device(src) ? cudaMemcpyDeviceToDevice : cudaMemcpyHostToDevice)
                          : (is_device(src) ? cudaMemcpyDeviceToHost : cudaMemcpyHostToHost);
  const bool dst_dev = kind == cudaMemcpyHostToDevice || kind == cudaMemcpyDeviceToDevice;
  const bool src_dev = kind == cudaMemcpyDeviceToHost || kind == cudaMemcpyDeviceToDevice;
  auto check = [&](const void* p, bool device, const char* which) -> bool {
    const uintptr_t a = reinterpret_cast<uintptr_t>(p);
    if (!p && bytes) {
      api_error(std::string("cudaMemcpy: the ") + which + " pointer is null");
      return false;
    }
    if (device && bytes && !containing(a, bytes)) {
      api_error(std::string("cudaMemcpy: the ") + which + " range of " + std::to_string(bytes) +
                " bytes is not inside one live device allocation");
      return false;
    }
    if (!device && is_device(p)) {
      api_error(
          std::string("cudaMemcpy: the ") + which +
          " pointer is device memory, but the copy kind says host (check the cudaMemcpyKind)");
      return false;
    }
    return true;
  };
  if (!check(dst, dst_dev, "destination") || !check(src, src_dev, "source")) {
    emu.last_error = cudaErrorInvalidValue;
    return cudaErrorInvalidValue;
  }
  if (bytes) std::memmove(dst, src, bytes);
  return cudaSuccess;
}

cudaError_t cudaMemset(void* ptr, int value, size_t bytes) {
  if (emu.sticky_error != cudaSuccess) return emu.sticky_error;
  if (bytes && !containing(reinterpret_cast<uintptr_t>(ptr), bytes)) {
    api_error("cudaMemset: the range of " + std::to_string(bytes) +
              " bytes is not inside one live device allocation");
    emu.last_error = cudaErrorInvalidValue;
    return cudaErrorInvalidValue;
  }
  if (bytes) std::memset(ptr, value, bytes);
  return cudaSuccess;
}

cudaError_t cudaDeviceSynchronize() {
  return emu.sticky_error;
}

cudaError_t cudaGetLastError() {
  const cudaError_t e = emu.sticky_error != cudaSuccess ? emu.sticky_error : emu.last_error;
  emu.last_error = cudaSuccess;
  return e;
}

cudaError_t cudaPeekAtLastError() {
  return emu.sticky_error != cudaSuccess ? emu.sticky_error : emu.last_error;
}

cudaError_t cudaDeviceReset() {
  for (auto& al : emu.allocations)
    if (al.live) cudaFree(reinterpret_cast<void*>(al.base));
  emu.sticky_error = emu.last_error = cudaSuccess;
  reset_function_attributes();  // a new context: no kernel has opted in to more shared memory
  return cudaSuccess;
}

const char* cudaGetErrorName(cudaError_t error) {
  switch (error) {
    case cudaSuccess:
      return "cudaSuccess";
    case cudaErrorInvalidValue:
      return "cudaErrorInvalidValue";
    case cudaErrorMemoryAllocation:
      return "cudaErrorMemoryAllocation";
    case cudaErrorInvalidConfiguration:
      return "cudaErrorInvalidConfiguration";
    case cudaErrorInvalidDevicePointer:
      return "cudaErrorInvalidDevicePointer";
    case cudaErrorInvalidMemcpyDirection:
      return "cudaErrorInvalidMemcpyDirection";
    case cudaErrorIllegalAddress:
      return "cudaErrorIllegalAddress";
    case cudaErrorLaunchTimeout:
      return "cudaErrorLaunchTimeout";
    case cudaErrorLaunchFailure:
      return "cudaErrorLaunchFailure";
  }
  return "cudaErrorUnknown";
}

const char* cudaGetErrorString(cudaError_t error) {
  switch (error) {
    case cudaSuccess:
      return "no error";
    case cudaErrorInvalidValue:
      return "invalid argument";
    case cudaErrorMemoryAllocation:
      return "out of memory";
    case cudaErrorInvalidConfiguration:
      return "invalid configuration argument";
    case cudaErrorInvalidDevicePointer:
      return "invalid device pointer";
    case cudaErrorInvalidMemcpyDirection:
      return "invalid copy direction for memcpy";
    case cudaErrorIllegalAddress:
      return "an illegal memory access was encountered";
    case cudaErrorLaunchTimeout:
      return "the launch timed out and was terminated";
    case cudaErrorLaunchFailure:
      return "unspecified launch failure";
  }
  return "unknown error";
}

namespace cuda_emu {
uint64_t device_bytes_in_use() {
  return detail::emu.bytes_in_use;
}
uint64_t peak_device_bytes() {
  return detail::emu.peak_bytes;
}
void reset_peak_device_bytes() {
  detail::emu.peak_bytes = detail::emu.bytes_in_use;
}
void adopt_device_peak(uint64_t bytes_above_in_use) {
  detail::emu.peak_bytes =
      std::max(detail::emu.peak_bytes, detail::emu.bytes_in_use + bytes_above_in_use);
}
}  // namespace cuda_emu
