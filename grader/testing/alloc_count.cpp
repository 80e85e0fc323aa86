// Heap accounting for lesson tests (see course/alloc_count.hpp): every global
// operator new/delete of the program is replaced here, and the C allocator is
// wrapped with the linker's --wrap=malloc etc. (the CMake target course_alloc_count
// adds those flags; without them __real_malloc is undefined and the link fails, so
// the accounting can never be silently off). Sizes come from malloc_usable_size, so
// a block freed here that was allocated elsewhere (inside the C library) is still
// accounted sensibly. Under AddressSanitizer __real_malloc is ASan's malloc: memory
// stays checked, only new/delete mismatches are no longer told apart from malloc.
#include "course/alloc_count.hpp"

#include <malloc.h>

#include <algorithm>
#include <atomic>
#include <cstdlib>
#include <new>

extern "C" {
void* __real_malloc(std::size_t size);
void* __real_calloc(std::size_t count, std::size_t size);
void* __real_realloc(void* p, std::size_t size);
void __real_free(void* p);
void* __real_aligned_alloc(std::size_t alignment, std::size_t size);
int __real_posix_memalign(void** out, std::size_t alignment, std::size_t size);
}

namespace {

// Zero-initialised before any constructor runs: allocations during static
// initialisation are counted too.
constinit std::atomic<std::int64_t> live_bytes{0};
constinit std::atomic<std::int64_t> peak_live_bytes{0};
constinit std::atomic<std::uint64_t> allocation_count{0};

void note_alloc(void* p) {
  if (!p) return;
  const auto bytes = static_cast<std::int64_t>(malloc_usable_size(p));
  const std::int64_t now = live_bytes.fetch_add(bytes, std::memory_order_relaxed) + bytes;
  allocation_count.fetch_add(1, std::memory_order_relaxed);
  std::int64_t peak = peak_live_bytes.load(std::memory_order_relaxed);
  while (now > peak &&
         !peak_live_bytes.compare_exchange_weak(peak, now, std::memory_order_relaxed)) {
  }
}

void note_free(void* p) {
  if (p)
    live_bytes.fetch_sub(static_cast<std::int64_t>(malloc_usable_size(p)),
                         std::memory_order_relaxed);
}

void* counted_malloc(std::size_t size) {
  void* p = __real_malloc(size);
  note_alloc(p);
  return p;
}

void counted_free(void* p) {
  note_free(p);
  __real_free(p);
}

// posix_memalign wants alignment >= sizeof(void*); ASan rejects aligned_alloc
// sizes that are not a multiple of the alignment, so it is not used for new.
void* counted_aligned(std::size_t size, std::align_val_t alignment) {
  void* p = nullptr;
  const std::size_t a = std::max(static_cast<std::size_t>(alignment), sizeof(void*));
  if (__real_posix_memalign(&p, a, size) != 0) return nullptr;
  note_alloc(p);
  return p;
}

// operator new's contract: never null (size 0 included); retry through the
// new-handler, else throw.
template <class Alloc>
void* new_or_throw(Alloc alloc) {
  for (;;) {
    if (void* p = alloc()) return p;
    std::new_handler handler = std::get_new_handler();
    if (!handler) throw std::bad_alloc();
    handler();
  }
}

void* plain_new(std::size_t size) {
  return new_or_throw([&] { return counted_malloc(size == 0 ? 1 : size); });
}

void* aligned_new(std::size_t size, std::align_val_t alignment) {
  return new_or_throw([&] { return counted_aligned(size == 0 ? 1 : size, alignment); });
}

}  // namespace

extern "C" {

void* __wrap_malloc(std::size_t size) {
  return counted_malloc(size);
}

void* __wrap_calloc(std::size_t count, std::size_t size) {
  void* p = __real_calloc(count, size);
  note_alloc(p);
  return p;
}

void* __wrap_realloc(void* p, std::size_t size) {
  const auto old_bytes = static_cast<std::int64_t>(p ? malloc_usable_size(p) : 0);
  void* q = __real_realloc(p, size);
  if (q || size == 0) live_bytes.fetch_sub(old_bytes, std::memory_order_relaxed);  // p is gone
  note_alloc(q);
  return q;
}

void __wrap_free(void* p) {
  counted_free(p);
}

void* __wrap_aligned_alloc(std::size_t alignment, std::size_t size) {
  void* p = __real_aligned_alloc(alignment, size);
  note_alloc(p);
  return p;
}

int __wrap_posix_memalign(void** out, std::size_t alignment, std::size_t size) {
  const int status = __real_posix_memalign(out, alignment, size);
  if (status == 0) note_alloc(*out);
  return status;
}

}  // extern "C"

void* operator new(std::size_t size) {
  return plain_new(size);
}
void* operator new[](std::size_t size) {
  return plain_new(size);
}
void* operator new(std::size_t size, const std::nothrow_t&) noexcept {
  return counted_malloc(size == 0 ? 1 : size);
}
void* operator new[](std::size_t size, const std::nothrow_t&) noexcept {
  return counted_malloc(size == 0 ? 1 : size);
}
void* operator new(std::size_t size, std::align_val_t alignment) {
  return aligned_new(size, alignment);
}
void* operator new[](std::size_t size, std::align_val_t alignment) {
  return aligned_new(size, alignment);
}
void* operator new(std::size_t size, std::align_val_t alignment, const std::nothrow_t&) noexcept {
  return counted_aligned(size == 0 ? 1 : size, alignment);
}
void* operator new[](std::size_t size, std::align_val_t alignment, const std::nothrow_t&) noexcept {
  return counted_aligned(size == 0 ? 1 : size, alignment);
}

void operator delete(void* p) noexcept {
  counted_free(p);
}
void operator delete[](void* p) noexcept {
  counted_free(p);
}
void operator delete(void* p, std::size_t) noexcept {
  counted_free(p);
}
void operator delete[](void* p, std::size_t) noexcept {
  counted_free(p);
}
void operator delete(void* p, const std::nothrow_t&) noexcept {
  counted_free(p);
}
void operator delete[](void* p, const std::nothrow_t&) noexcept {
  counted_free(p);
}
void operator delete(void* p, std::align_val_t) noexcept {
  counted_free(p);
}
void operator delete[](void* p, std::align_val_t) noexcept {
  counted_free(p);
}
void operator delete(void* p, std::size_t, std::align_val_t) noexcept {
  counted_free(p);
}
void operator delete[](void* p, std::size_t, std::align_val_t) noexcept {
  counted_free(p);
}
void operator delete(void* p, std::align_val_t, const std::nothrow_t&) noexcept {
  counted_free(p);
}
void operator delete[](void* p, std::align_val_t, const std::nothrow_t&) noexcept {
  counted_free(p);
}

namespace course {

std::int64_t heap_live_bytes() {
  return live_bytes.load(std::memory_order_relaxed);
}

std::uint64_t heap_allocations() {
  return allocation_count.load(std::memory_order_relaxed);
}

namespace {
constinit std::atomic<int> open_scopes{0};
}  // namespace

alloc_scope::alloc_scope() : base_bytes_(heap_live_bytes()), base_allocations_(heap_allocations()) {
  peak_live_bytes.store(base_bytes_, std::memory_order_relaxed);
  open_scopes.fetch_add(1, std::memory_order_relaxed);
}

alloc_scope::~alloc_scope() {
  open_scopes.fetch_sub(1, std::memory_order_relaxed);
}

bool alloc_scope_open() {
  return open_scopes.load(std::memory_order_relaxed) > 0;
}

std::size_t alloc_scope::peak_bytes() const {
  const std::int64_t above = peak_live_bytes.load(std::memory_order_relaxed) - base_bytes_;
  return above > 0 ? static_cast<std::size_t>(above) : 0;
}

void note_remote_peak(std::size_t bytes, std::uint64_t allocations) {
  // As if the call's blocks had been live here, on top of what the caller holds now.
  const std::int64_t now = heap_live_bytes() + static_cast<std::int64_t>(bytes);
  std::int64_t peak = peak_live_bytes.load(std::memory_order_relaxed);
  while (now > peak &&
         !peak_live_bytes.compare_exchange_weak(peak, now, std::memory_order_relaxed)) {
  }
  allocation_count.fetch_add(allocations, std::memory_order_relaxed);
}

std::uint64_t alloc_scope::allocations() const {
  return heap_allocations() - base_allocations_;
}

}  // namespace course
