// Heap accounting for lesson tests: how many bytes a call to student code keeps
// live on the heap at its peak (e.g. to tell one Br x Bc block of scores from an
// n x n matrix). Link the CMake target course_alloc_count: it replaces the global
// operator new/delete and wraps malloc, calloc, realloc, free, aligned_alloc and
// posix_memalign with the linker's --wrap, so C allocations are counted too.
//   course::alloc_scope scope;  f();  scope.peak_bytes();  // peak of f's heap
#pragma once

#include <cstddef>
#include <cstdint>
#include <utility>

namespace course {

// Bytes allocated and not yet freed, over the whole program. Blocks the C library
// allocates for itself are not counted, so this may drift a little below zero.
std::int64_t heap_live_bytes();

// Heap allocations made so far (every successful malloc, new, realloc ...).
std::uint64_t heap_allocations();

// Measures the heap from its construction on: the peak of live bytes above the
// level at the start, and the allocations made. One scope at a time: a scope
// resets the program-wide peak, so scopes do not nest.
class alloc_scope {
 public:
  alloc_scope();
  ~alloc_scope();
  alloc_scope(const alloc_scope&) = delete;
  alloc_scope& operator=(const alloc_scope&) = delete;

  std::size_t peak_bytes() const;     // largest live heap above the start, so far
  std::uint64_t allocations() const;  // allocations since the start

 private:
  std::int64_t base_bytes_;
  std::uint64_t base_allocations_;
};

// Whether an alloc_scope is open: a call to another process (course/remote.hpp) then has
// its memory measured by this one.
bool alloc_scope_open();

// A call that ran in another process (course/remote.hpp) peaked at `bytes` above its
// start and made `allocations`: counted as if it had run here, so alloc_scope sees it.
void note_remote_peak(std::size_t bytes, std::uint64_t allocations);

// The peak heap (bytes above the level before the call) while f() runs.
template <class F>
std::size_t peak_heap_of(F&& f) {
  alloc_scope scope;
  std::forward<F>(f)();
  return scope.peak_bytes();
}

}  // namespace course
