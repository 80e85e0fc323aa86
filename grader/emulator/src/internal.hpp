// Emulator internals shared by its source files. One launch runs at a time, on
// the calling OS thread; every CUDA thread is a fiber on that thread.
#pragma once

#include <chrono>
#include <cstdint>
#include <exception>
#include <map>
#include <string>
#include <tuple>
#include <unordered_map>
#include <vector>

#include "cuda_emu/emulator.hpp"
#include "fiber.hpp"

namespace cuda_emu::detail {

enum class thread_state : uint8_t { runnable, barrier, warp_wait, finished };

struct thread {
  fiber context;  // runs the kernel for this CUDA thread
  thread_state state = thread_state::runnable;
  uint32_t linear = 0, lane = 0, warp = 0;
  uint3 idx{};
  uintptr_t stack_top = 0;  // where its fiber's stack starts (stack_top_of)
  uint32_t cursor = 0;      // next request group of its warp this thread may join
  bool exact = false;       // left the order of its warp's groups: match (pc, k) by search
  uint64_t global_reads = 0, global_writes = 0, shared_reads = 0, shared_writes = 0;
  uint64_t warp_value = 0, warp_result = 0;  // shuffle operand and result
  int warp_arg = 0;
};

enum class access_kind : uint8_t {
  global_load,
  global_store,
  shared_load,
  shared_store,
  global_atomic
};

// One warp-level memory request: the accesses of one instruction (pc) made by
// the lanes of a warp, the k-th execution of each lane together.
struct request_group {
  const void* pc;
  access_kind kind;
  uint8_t size;
  uint8_t n;
  uint32_t lanes;  // the lanes that have joined
  uintptr_t address[32];
  uint8_t lane[32];  // address[i]'s lane: a wide shared access is served by groups of lanes
};

// One pending warp-synchronous operation of a warp (shuffle, ballot, __syncwarp): the
// lanes of `mask` that have arrived at it. Since Volta, lanes of one warp may wait at
// operations with different masks at once (a reduction among some lanes while the others
// already wait at a full-mask broadcast), so a warp keeps one of these per mask.
struct warp_op {
  int op = -1;  // shfl_op value, or 10 ballot, 11 syncwarp
  unsigned mask = 0;
  int width = 32;
  uint32_t arrived_mask = 0;
};

struct warp_state {
  std::vector<request_group> groups;
  std::vector<warp_op> pending;  // at most one per mask; lanes in at most one
  uint32_t live = 0;             // lanes that exist and have not finished
  uint32_t completed = 0;        // operations completed: varies the poison of undefined reads
  uint32_t syncwarp_epoch = 0;   // completed __syncwarp()s: orders this warp's lanes for racecheck
};

// Racecheck state of one 4-byte word of global memory within one launch: its last
// writer and its readers. `stamp` is the launch that last touched it, so a new launch
// needs no reset.
struct global_word {
  uint32_t stamp;
  uint32_t owner;             // the allocation's serial: a pooled shadow's old words are stale
  uint32_t footprint;         // the reset() generation in which the word was last first written
  uint32_t w_block, r_block;  // the block's position in the launch's run order
  uint32_t w_epoch, r_epoch;  // barrier phase (machine::epoch) of that access
  uint16_t w_thread, r_thread;
  uint16_t w_warp_epoch, r_warp_epoch;
  uint8_t w_bytes, r_bytes;  // which of the word's 4 bytes were written, read
  uint8_t flags;             // kManyReaders (in one block and phase), kCrossBlockReads
  const void *w_pc, *r_pc;
};
constexpr uint8_t kManyReaders = 1, kCrossBlockReads = 2;
constexpr uint8_t kWritten = 4;  // stored to (or an atomic) in the launch `stamp` names

struct allocation {
  uintptr_t base;
  size_t size;
  bool live;
  uint32_t serial = 0;                    // global_word::owner (0: static data's words)
  mutable global_word* shadow = nullptr;  // mapped at the first access by a kernel
  mutable size_t shadow_bytes = 0;        // its mapping's size (a pooled one may be larger)
};
static_assert(sizeof(global_word) == 56, "the owner fits in the padding");

struct shadow_word {  // racecheck state of two bytes of shared memory (half a word)
  uint32_t writer, write_epoch, write_warp_epoch;
  uint32_t reader, read_epoch, read_warp_epoch;
  const void *write_pc, *read_pc;
  // reader and read_warp_epoch: the latest read's thread and __syncwarp phase; many_warps:
  // readers from more than one warp; many_in_phase: more than one reader in that phase.
  bool many_warps, many_in_phase;
};

// config: the launch broke a resource limit once running (its static shared memory).
enum class abort_reason { none, memcheck, synccheck, timeout, exception, config };

struct machine {
  // Device memory: one reserved range, bump-allocated with red zones, never reused.
  uintptr_t arena_lo = 0;
  size_t arena_size = 0, arena_used = 0;
  std::vector<allocation> allocations;  // sorted by base
  uint64_t bytes_in_use = 0, peak_bytes = 0;
  // The allocations hit last, each with its race-check shadow (null: none): a matmul's
  // accesses alternate between A, B and C, and a lookup in `allocations` for each was 11 %
  // of lab 1's time. forget_allocations() empties it.
  struct allocation_hit {
    uintptr_t lo = 0, hi = 0;
    global_word* shadow = nullptr;
    uint32_t owner = 0;
  };
  static constexpr unsigned kHits = 4;
  allocation_hit hits[kHits];
  unsigned next_hit = 0;  // the entry a miss replaces
  void forget_allocations() {
    for (allocation_hit& h : hits) h = allocation_hit{};
  }
  std::unordered_map<uintptr_t, global_word> static_shadow;  // __device__ variables' words

  // Shared memory: the "cuda_shared" section.
  uintptr_t shared_lo = 0;
  size_t shared_size = 0;
  std::vector<shadow_word> shadow;  // never cleared between blocks: see next_epoch()
  // Beside each shadow entry, 8 bytes that let most reads skip it (race_check's
  // read_summary): made in this phase or stale.
  std::vector<uint64_t> read_summary;
  uint32_t phase_tag = 1;  // 1..0xFFFF, new at each block start and barrier (next_epoch)

  // Fiber stacks: one mapping, one slot per thread of a block (stack_top_of).
  uintptr_t stacks_lo = 0;
  size_t stacks_size = 0, stack_slot = 0;
  uint32_t stack_slots = 0;

  // Static data of the executable (emulator state, __device__ variables).
  uintptr_t static_lo = 0;
  size_t static_size = 0;
  // threadIdx & co. (12 bytes each, not adjacent): static, but registers on a GPU,
  // so neither counted nor checked.
  uintptr_t builtins[4] = {};

  // The running launch.
  bool in_kernel = false;
  std::vector<thread> threads;
  std::vector<warp_state> warps;
  thread* current = nullptr;
  void (*entry)(void*) = nullptr;
  void* args = nullptr;
  uint32_t epoch = 0;       // barrier phase: new at each block start and barrier, never reused
  uint32_t launch_id = 0;   // counts launches: global_word::stamp
  uint32_t generation = 1;  // counts cuda_emu::reset() calls: global_word::footprint
  uint32_t block_seq = 0;   // the running block's position in the launch's run order
  // A seeded schedule (options::schedule != 0): its random state and the chance of a
  // switch at each memory access (out of 256).
  bool scheduled = false;
  bool grouping = false;  // this launch gathers requests (in order, and count_requests on)
  uint64_t rng = 0;
  launch_record* record = nullptr;
  abort_reason abort = abort_reason::none;
  std::exception_ptr exception;
  std::chrono::steady_clock::time_point deadline;
  uint32_t ticks = 0;
  bool warned_static = false;  // the static-data write warning, once per launch
  bool warned_mask = false;    // the shuffle-outside-its-mask warning, once per launch
  bool warned_exited = false;  // the shuffle-from-an-exited-lane warning, once per launch

  // Races found in this launch: (first pc, second pc, first kind, second kind, space:
  // 0 shared, 1 global within a block, 2 global between blocks) -> bytes.
  std::map<std::tuple<const void*, const void*, int, int, int>, uint64_t> races;

  cudaError_t sticky_error = cudaSuccess;  // illegal address, timeout: until cudaDeviceReset
  cudaError_t last_error = cudaSuccess;    // cleared by cudaGetLastError
  std::vector<launch_record> launches;
};

extern machine emu;  // the one emulator
extern options g_options;

// A word's shadow as this launch sees it: state from an earlier launch is cleared (the
// footprint, which counts since reset(), is kept).
// A word of another owner (a pooled shadow's previous allocation) starts afresh.
inline global_word& for_this_launch(global_word& s, uint32_t owner) {
  if (s.stamp != emu.launch_id || s.owner != owner) {
    const uint32_t footprint = s.owner == owner ? s.footprint : 0;
    s = global_word{};
    s.stamp = emu.launch_id;
    s.owner = owner;
    s.footprint = footprint;
  }
  return s;
}
// A block start or a barrier: a new barrier epoch and read-summary tag. Epochs count on
// across blocks and launches, so a shadow entry of an earlier block matches no later epoch
// and a block start clears nothing (clearing the entries written, 48 bytes for each 2 of
// shared memory, was a quarter of launch()'s own samples in lab 3 part 2's tests). Only a
// wrap of the count, 2^32 barriers on, clears them. The 16-bit summary tag wraps sooner,
// and then every summary is forgotten.
inline void next_epoch() {
  if (++emu.epoch == 0) {
    std::fill(emu.shadow.begin(), emu.shadow.end(), shadow_word{});
    emu.epoch = 1;
  }
  if (++emu.phase_tag > 0xFFFF) {
    std::fill(emu.read_summary.begin(), emu.read_summary.end(), uint64_t{0});
    emu.phase_tag = 1;
  }
}
std::string timeout_text();
void syncwarp(unsigned mask);
// wmma::mma_sync once every lane of `warp` arrived (src/wmma.cpp); `arrived`: their mask.
namespace wmma {
void resolve_mma(uint32_t warp, uint32_t arrived);
}

// Scheduler entry points used by the access hooks and device functions.
[[noreturn]] void abort_thread(abort_reason why, const std::string& message);
void yield_thread(thread_state new_state);
void check_deadline();
void maybe_switch();  // under a seeded schedule, sometimes lets other threads run first
uint64_t next_random();
global_word* shadow_of(const allocation& al);  // null when it cannot be mapped
uint32_t next_allocation_serial();             // 1, 2, ...: allocation::serial
void release_shadow(const allocation& al);
// The words [a, a + size) of an allocation's shadow as written in this launch.
void mark_written(const allocation& al, uintptr_t a, unsigned size);

// Device memory as a launch found it, to tell afterwards which bytes changed with no
// store the emulator saw (report_kind::unseen_write). Only with race checks on (they
// keep the shadow), and only up to a size worth copying.
struct memory_snapshot {
  std::vector<std::pair<uintptr_t, std::vector<unsigned char>>> copies;  // base, bytes
};
memory_snapshot snapshot_device_memory();
// "" or the report: which allocation changed where no instrumented store wrote.
std::string unseen_writes(const memory_snapshot& before, const std::string& kernel);

// sm_90 resource limits (src/limits.cpp). check_launch_limits() is called at each launch,
// before any thread runs; it also starts the launch's count of static shared memory.
struct limit_problem {
  cudaError_t error = cudaSuccess;
  std::string text;  // the report: the limit, the figure, what to do
};
limit_problem check_launch_limits(const launch_config& config, const std::string& kernel);
// After a launch's first block: "" or why its static shared memory, counting the
// namespace-scope arrays the block touched, is over a limit.
std::string file_shared_problem();
void reset_function_attributes();  // cudaDeviceReset(): no kernel opted in to more shared memory
std::string grouped(uint64_t v);   // 49280 -> "49,280"

// Memory.
void init_memory();
const allocation* find_allocation(uintptr_t address);          // nearest by base, or null
const allocation* containing(uintptr_t address, size_t size);  // live allocation holding it
const allocation* nearest_live(uintptr_t address);             // for reports; null if none

// Counters and reports.
void flush_groups();                   // turns finished request groups into counters
std::string location(const void* pc);  // "kernel+0x1c in file.cu:5", via addr2line
void emit(report_kind kind, const std::string& text);
std::string race_text(const race& r);  // racecheck's lines, "=========" included
void finish_races();
// At the end of each launch: prints what device printf kept (src/printf.cpp), and adds
// the launch's warning when some of it was dropped or not shown.
void finish_printf();

}  // namespace cuda_emu::detail
