// Every load and store of a kernel file compiled with -fsanitize=thread calls one
// of the __tsan_* functions below (we provide them; libtsan is never linked). Here
// each access is classified (shared, global, the thread's own stack, static data,
// or a stray host pointer), checked like memcheck, checked for shared-memory races
// like racecheck, and gathered into warp-level requests for the counters.
#include <dlfcn.h>

#include <algorithm>
#include <bit>
#include <cstdio>
#include <string>

#include "internal.hpp"

namespace cuda_emu::detail {
namespace {

std::string hex(uintptr_t a) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "0x%lx", static_cast<unsigned long>(a));
  return buf;
}

// An address as a message may quote it and still read the same in every run: device
// memory sits at a fixed base (init_memory), shared memory is told as an offset into the
// block's shared memory, and anything else (a host pointer, static data) moves with ASLR,
// so it is not quoted at all.
std::string where_is(uintptr_t a) {
  if (a - emu.arena_lo < emu.arena_size) return hex(a);
  if (a - emu.shared_lo < emu.shared_size) return "shared memory offset " + hex(a - emu.shared_lo);
  return "a host address";
}

std::string who() {
  const uint3 t = thread_idx, b = block_idx;
  return "by thread (" + std::to_string(t.x) + "," + std::to_string(t.y) + "," +
         std::to_string(t.z) + ") in block (" + std::to_string(b.x) + "," + std::to_string(b.y) +
         "," + std::to_string(b.z) + ")";
}

[[noreturn]] void invalid(const char* space, uintptr_t /*address*/, unsigned size, bool write,
                          const void* pc, const std::string& why) {
  // The linker may pick a kernel file's instrumented copy of inline library code
  // (std::string's, say) for the emulator too: stop tracking before formatting.
  emu.in_kernel = false;
  abort_thread(abort_reason::memcheck, std::string("Invalid ") + space +
                                           (write ? " write" : " read") + " of size " +
                                           std::to_string(size) + " bytes\n    at " + location(pc) +
                                           "\n    " + who() + "\n    " + why);
}

// Any address that is no live allocation's, however far out: named relative to the
// nearest live allocation, as memcheck does.
[[noreturn]] void bad_global(uintptr_t a, unsigned size, bool write, const void* pc) {
  emu.in_kernel = false;  // see invalid()
  const allocation* freed = find_allocation(a);
  if (freed && !freed->live && a >= freed->base && a < freed->base + freed->size)
    invalid("__global__", a, size, write, pc,
            "Access to " + where_is(a) + " is inside an allocation already freed by cudaFree, at " +
                hex(freed->base) + " of size " + grouped(freed->size) + " bytes");
  const allocation* al = nearest_live(a);
  const bool device = a - emu.arena_lo < emu.arena_size;
  std::string why = "Access to " + where_is(a) + " is out of bounds";
  if (!device) {  // how far from an allocation would change with ASLR, and mean nothing
    why += " (not device memory: a host pointer passed to a kernel?)";
    invalid("__global__", a, size, write, pc, why);
  }
  if (al && a >= al->base + al->size) {
    why += "\n    and is " + grouped(a - (al->base + al->size) + 1) +
           " bytes after the nearest allocation at " + hex(al->base) + " of size " +
           grouped(al->size) + " bytes";
  } else if (al && a < al->base) {
    why += "\n    and is " + grouped(al->base - a) + " bytes before the nearest allocation at " +
           hex(al->base) + " of size " + grouped(al->size) + " bytes";
  } else if (al) {  // starts inside, runs past the end
    why += "\n    and runs past the end of the allocation at " + hex(al->base) + " of size " +
           grouped(al->size) + " bytes";
  }
  invalid("__global__", a, size, write, pc, why);
}

void account(const request_group& g, launch_counters& c);

// A request is the k-th execution of one instruction by each lane of a warp. Lanes
// usually meet the warp's groups in the order the first lane made them (the fast
// path). A lane that departs from that order (it skipped an access, or looped a
// different number of times) finds, from then on, the first group of its
// instruction it has not joined yet: that is its k-th.
void add_to_group(thread* th, const void* pc, access_kind kind, uintptr_t a, unsigned size) {
  if (!emu.grouping) return;  // a seeded schedule, or counters nobody reads
  auto& groups = emu.warps[th->warp].groups;
  const uint32_t bit = 1u << th->lane, n = static_cast<uint32_t>(groups.size());
  uint32_t i = th->cursor;
  auto matches = [&](uint32_t k) {
    return groups[k].pc == pc && groups[k].kind == kind && !(groups[k].lanes & bit);
  };
  if (th->exact || !(i == n || matches(i))) {
    th->exact = true;
    for (i = 0; i < n && !matches(i); ++i) {
    }
  }
  // The warp's only live lane (a one-thread block, a last warp's lone thread): no other
  // lane can join its new request, so it is counted at once, and a serial loop does not hold
  // one group per access until the scheduler's pass ends (1M loads: 270 MB).
  const bool lone = i == n && emu.warps[th->warp].live == bit;
  request_group single;
  if (i == n) {
    request_group& g = lone ? single : groups.emplace_back();
    g.pc = pc;
    g.kind = kind;
    g.size = static_cast<uint8_t>(size);
    g.n = 0;
    g.lanes = 0;
  }
  request_group& g = lone ? single : groups[i];
  g.lanes |= bit;
  if (g.n < 32) g.lane[g.n] = static_cast<uint8_t>(th->lane), g.address[g.n++] = a;
  if (lone) {
    account(g, emu.record->counters);
    th->cursor = n;
    return;
  }
  th->cursor = i + 1;
}

void tick() {
  if ((++emu.ticks & 0xFFF) == 0) check_deadline();
}

void note_race(const void* first_pc, int first_kind, const void* second_pc, int second_kind,
               uint64_t bytes, int global = 0) {
  // One entry per pair of instructions, the write first, as racecheck prints them.
  if (first_kind != 1 && second_kind == 1) {
    std::swap(first_pc, second_pc);
    std::swap(first_kind, second_kind);
  }
  emu.races[{first_pc, second_pc, first_kind, second_kind, global}] += bytes;
}

// Accesses by two threads conflict unless a barrier separates them: __syncthreads
// (the block epoch) or, for lanes of one warp, a __syncwarp since the first access.
bool ordered(uint32_t other_tid, uint32_t other_warp_epoch, const thread* th) {
  const uint32_t other = other_tid - 1;
  return other / 32 == th->warp && emu.warps[th->warp].syncwarp_epoch != other_warp_epoch;
}

// A small number for each instruction that reads shared memory (1..4095; 0 once the
// table is full), for the read summaries: an open-addressed table of return addresses.
uint64_t read_pc_id(const void* pc) {
  static const void* last_pc = nullptr;
  static uint64_t last_id = 0;
  if (pc == last_pc) return last_id;
  constexpr uint32_t kSlots = 4096;
  static const void* table[kSlots] = {};
  static uint32_t used = 0;
  uint32_t i =
      static_cast<uint32_t>((reinterpret_cast<uintptr_t>(pc) * 0x9E3779B97F4A7C15ull) >> 52);
  for (;; i = (i + 1) % kSlots) {
    if (i == 0) continue;  // 0 is "no id"
    if (table[i] == pc) break;
    if (table[i] == nullptr) {
      if (used + 1 >= kSlots * 3 / 4) return 0;
      table[i] = pc;
      ++used;
      break;
    }
  }
  last_pc = pc;
  return last_id = i;
}

// What a read summary holds: the phase's tag (bits 48-63) and the last read's instruction
// (36-47), for an entry unwritten in this phase whose readers are either in several warps
// (the rest 0) or several lanes of one warp in one __syncwarp phase (bits 30-35 the warp
// + 1, 0-29 that phase; 2^30 __syncwarps in one barrier phase would outrun any time limit).
// A read that finds its own value there changes nothing a report can show: a later write
// conflicts whichever lane read, and read_pc stays. Any other value is stale.
uint64_t summary_value(uint64_t pc_id, uint32_t warp, uint32_t warp_epoch) {
  const uint64_t many = uint64_t{emu.phase_tag} << 48 | pc_id << 36;
  return warp == ~0u ? many : many | uint64_t{warp + 1} << 30 | (warp_epoch & 0x3FFFFFFFu);
}

void race_check(uintptr_t a, unsigned size, bool write, const void* pc, const thread* th) {
  const uint32_t tid = th->linear + 1;  // 0 means nobody
  const uint32_t wepoch = emu.warps[th->warp].syncwarp_epoch;
  // Two bytes a shadow entry: threads writing neighbouring bf16 or half elements of one
  // word do not conflict (byte-wide shared arrays written by neighbours still do).
  const size_t end = std::min<size_t>(((a + size - 1 - emu.shared_lo) >> 1) + 1, emu.shadow.size());
  const uint64_t bytes = std::min(size, 2u);
  const uint64_t id = write ? 0 : read_pc_id(pc);
  const uint64_t by_warps = id ? summary_value(id, ~0u, 0) : 1;  // 1: never a summary
  const uint64_t by_lanes = id ? summary_value(id, th->warp, wepoch) : 1;
  uint64_t* const summaries = emu.read_summary.data();
  // Most reads find every entry's summary current (a float4 spans 8): skip those first,
  // in a loop that reloads nothing (profile: the general loop re-read the vectors' bounds
  // at each entry, half of on_access in lab 3 part 2's tests).
  size_t w = (a - emu.shared_lo) >> 1;
  if (id)
    while (w < end && (summaries[w] == by_warps || summaries[w] == by_lanes)) ++w;
  for (; w < end; ++w) {
    uint64_t& summary = summaries[w];
    if (summary == by_warps || summary == by_lanes) continue;
    shadow_word& s = emu.shadow[w];
    const bool written =
        s.write_epoch == emu.epoch && s.writer != tid && !ordered(s.writer, s.write_warp_epoch, th);
    if (write) {
      if (written) note_race(s.write_pc, 1, pc, 1, bytes);
      // Reads since the barrier conflict unless they all come from this warp and either a
      // __syncwarp followed the latest of them or, in this phase, only this thread read.
      if (s.read_epoch == emu.epoch &&
          (s.many_warps || (s.reader - 1) / 32 != th->warp ||
           (s.read_warp_epoch == wepoch && (s.many_in_phase || s.reader != tid))))
        note_race(s.read_pc, 0, pc, 1, bytes);
      s.writer = tid;
      s.write_epoch = emu.epoch;
      s.write_warp_epoch = wepoch;
      s.write_pc = pc;
      summary = 0;
    } else {
      if (written) note_race(s.write_pc, 1, pc, 0, bytes);
      if (s.read_epoch != emu.epoch) {
        s.read_epoch = emu.epoch;
        s.many_warps = s.many_in_phase = false;
      } else {
        s.many_warps |= (s.reader - 1) / 32 != th->warp;
        s.many_in_phase = s.read_warp_epoch == wepoch && (s.many_in_phase || s.reader != tid);
      }
      s.reader = tid;
      s.read_warp_epoch = wepoch;
      s.read_pc = pc;
      summary = !id || s.write_epoch == emu.epoch ? 0
                : s.many_warps                    ? by_warps
                : s.many_in_phase                 ? by_lanes
                                                  : 0;
    }
  }
}

// Global memory. Blocks are never ordered within a launch, so any two accesses to one
// byte by different blocks conflict unless both only read; threads of one block
// conflict as in shared memory. Atomics never reach here. Blocks run one after another:
// an earlier block's access is one the GPU may run at the same time as this one. Each
// word keeps which of its bytes were written and read, so threads writing neighbouring
// chars do not conflict.
void global_race_check(global_word* words, uint32_t owner, size_t count, uintptr_t base,
                       uintptr_t a, unsigned size, bool write, const void* pc, const thread* th) {
  const uint32_t block = emu.block_seq, epoch = emu.epoch;
  const uint16_t me = static_cast<uint16_t>(th->linear);
  const uint16_t wepoch = static_cast<uint16_t>(emu.warps[th->warp].syncwarp_epoch);
  auto unordered = [&](uint32_t other_block, uint16_t other, uint32_t other_epoch,
                       uint16_t other_wepoch) {
    if (other_block != block) return true;
    if (other == me || other_epoch != epoch) return false;
    return !(other / 32u == th->warp && other_wepoch != wepoch);  // a __syncwarp between
  };
  const size_t w0 = (a - base) >> 2, w1 = (a + size - 1 - base) >> 2;
  for (size_t w = w0; w <= w1 && w < count; ++w) {
    global_word& s = for_this_launch(words[w], owner);
    const uintptr_t lo = std::max(a, base + 4 * w), hi = std::min(a + size, base + 4 * w + 4);
    const uint8_t mask = static_cast<uint8_t>(((1u << (hi - lo)) - 1) << ((lo - base) & 3));
    const bool same_writer = s.w_block == block && s.w_thread == me;
    const uint8_t wrote = s.w_bytes & mask;
    if (wrote && unordered(s.w_block, s.w_thread, s.w_epoch, s.w_warp_epoch))
      note_race(s.w_pc, 1, pc, write, std::popcount(wrote), s.w_block != block ? 2 : 1);
    if (write) {
      s.flags |= kWritten;
      if (s.footprint != emu.generation) {
        s.footprint = emu.generation;
        emu.record->counters.global_written_bytes += 4;
      }
      if (const uint8_t read = s.r_bytes & mask) {
        const bool other_block = (s.flags & kCrossBlockReads) || s.r_block != block;
        const bool conflict =
            other_block || ((s.flags & kManyReaders)
                                ? s.r_epoch == epoch
                                : unordered(s.r_block, s.r_thread, s.r_epoch, s.r_warp_epoch));
        if (conflict) note_race(s.r_pc, 0, pc, 1, std::popcount(read), other_block ? 2 : 1);
      }
      // The last writer; bytes written before by an ordered or disjoint writer stay
      // marked (a later conflict with them is then reported against this writer).
      s.w_bytes = same_writer || !wrote ? static_cast<uint8_t>(s.w_bytes | mask) : mask;
      s.w_block = block;
      s.w_thread = me;
      s.w_epoch = epoch;
      s.w_warp_epoch = wepoch;
      s.w_pc = pc;
    } else {
      if (!s.r_bytes || s.r_block != block || s.r_epoch != epoch) {
        // A read by another block stays a conflict for any later write (sticky); a
        // read in an earlier phase of this block is ordered before everything now.
        if (s.r_bytes && s.r_block != block) s.flags |= kCrossBlockReads;
        s.flags &= static_cast<uint8_t>(~kManyReaders);
        s.r_bytes = (s.flags & kCrossBlockReads) ? static_cast<uint8_t>(s.r_bytes | mask) : mask;
        s.r_block = block;
        s.r_thread = me;
        s.r_epoch = epoch;
        s.r_warp_epoch = wepoch;
        s.r_pc = pc;
      } else {
        if (s.r_thread != me) s.flags |= kManyReaders;
        s.r_bytes |= mask;
      }
    }
  }
}

// " (the variable `name`)" when the dynamic symbol table names it, else "": its address
// would change from run to run.
std::string static_name(uintptr_t a) {
  Dl_info info{};
  if (dladdr(reinterpret_cast<void*>(a), &info) && info.dli_sname)
    return std::string(" (the variable `") + info.dli_sname + "`)";
  return "";
}

// A kernel wrote static data: a __device__ variable, or a __shared__ array that g++
// left out of the shared section (it does so for static locals of templates).
void static_write_warning(uintptr_t a, const void* pc) {
  emu.in_kernel = false;  // see invalid()
  emu.warned_static = true;
  emit(report_kind::warning,
       "Warning: a kernel wrote static data" + static_name(a) + "\n    at " + location(pc) +
           "\n    If this is a __shared__ array declared inside a template kernel, the emulator "
           "cannot see it"
           "\n    (no poisoning, no race checks): declare it outside the template.");
  emu.in_kernel = true;
}

// threadIdx, blockIdx, blockDim, gridDim.
inline bool is_builtin(uintptr_t a) {
  static_assert(sizeof(uint3) == 12 && sizeof(dim3) == 12);
  return a - emu.builtins[0] < 12 || a - emu.builtins[1] < 12 || a - emu.builtins[2] < 12 ||
         a - emu.builtins[3] < 12;
}

inline void on_access(const void* address, unsigned size, bool write, const void* pc) {
  if (!emu.in_kernel) return;         // host code in the kernel's file
  if (emu.scheduled) maybe_switch();  // before the access: others may go first
  const uintptr_t a = reinterpret_cast<uintptr_t>(address);
  thread* th = emu.current;
  {  // local memory in use: g++ does not instrument a kernel's own local arrays, but
     // this frame lies below them on the thread's stack (plus ~1 KiB of the emulator's)
    const uintptr_t top = th->stack_top;
    uint64_t& deepest = emu.record->counters.max_thread_local_bytes;
    deepest =
        std::max<uint64_t>(deepest, top - reinterpret_cast<uintptr_t>(__builtin_frame_address(0)));
  }
  // The GPU faults on an access not aligned to its size (and a misaligned 16-byte
  // SSE load would crash the CPU first): report it before it happens.
  if ((a & (size - 1)) != 0 && size <= 16 && (size & (size - 1)) == 0 &&
      (a - emu.shared_lo < emu.shared_size || a - emu.arena_lo < emu.arena_size)) {
    emu.in_kernel = false;  // see invalid()
    invalid(a - emu.shared_lo < emu.shared_size ? "__shared__" : "__global__", a, size, write, pc,
            "Address " + where_is(a) + " is misaligned (a " + std::to_string(size) +
                "-byte access needs a multiple of " + std::to_string(size) + ")");
  }
  if (a - emu.shared_lo < emu.shared_size) {
    if (a + size > emu.shared_lo + emu.shared_size) {
      emu.in_kernel = false;  // see invalid()
      invalid("__shared__", a, size, write, pc,
              "Access to " + where_is(a) + " runs past the end of shared memory");
    }
    write ? ++th->shared_writes : ++th->shared_reads;
    add_to_group(th, pc, write ? access_kind::shared_store : access_kind::shared_load, a, size);
    if (g_options.check_races) race_check(a, size, write, pc, th);
    tick();
    return;
  }
  if (a - emu.arena_lo < emu.arena_size) {
    const machine::allocation_hit* hit = emu.hits;
    while (hit != emu.hits + machine::kHits && (a < hit->lo || a + size > hit->hi)) ++hit;
    if (hit == emu.hits + machine::kHits) {
      const allocation* al = containing(a, size);
      if (!al) bad_global(a, size, write, pc);
      machine::allocation_hit& h = emu.hits[emu.next_hit++ % machine::kHits];
      h = {al->base, al->base + al->size, g_options.check_races ? shadow_of(*al) : nullptr,
           al->serial};
      hit = &h;
    }
    write ? ++th->global_writes : ++th->global_reads;
    add_to_group(th, pc, write ? access_kind::global_store : access_kind::global_load, a, size);
    if (hit->shadow)
      global_race_check(hit->shadow, hit->owner, (hit->hi - hit->lo + 3) / 4, hit->lo, a, size,
                        write, pc, th);
    tick();
    return;
  }
  if (a - emu.stacks_lo < emu.stacks_size) {  // local memory: the thread's own stack only
    const uintptr_t slot = emu.stacks_lo + th->linear * emu.stack_slot;  // its guard page
    if (a >= th->stack_top || a < slot) bad_global(a, size, write, pc);
    return;
  }
  if (a - emu.static_lo < emu.static_size) {  // __device__ and __constant__ variables
    if (is_builtin(a)) {
      tick();
      return;
    }
    if (write && !emu.warned_static) static_write_warning(a, pc);
    write ? ++th->global_writes : ++th->global_reads;
    add_to_group(th, pc, write ? access_kind::global_store : access_kind::global_load, a, size);
    if (g_options.check_races)
      for (uintptr_t w = a & ~uintptr_t{3}; w < a + size; w += 4) {
        const uintptr_t lo = std::max(a, w), hi = std::min(a + size, w + 4);
        global_race_check(&emu.static_shadow[w], 0, 1, w, lo, static_cast<unsigned>(hi - lo), write,
                          pc, th);
      }
    tick();  // a spin on a __device__ flag must still meet the time limit
    return;
  }
  bad_global(a, size, write, pc);
}

// How many distinct values the first n of `v` hold, which it leaves sorted and unique at
// the front. Lanes mostly go up in address (coalesced, strided, a broadcast), so the sort
// is skipped when they are in order already (the profile's 7-8 % of a matmul suite).
std::size_t distinct_count(uintptr_t* v, int n) {
  if (!std::is_sorted(v, v + n)) std::sort(v, v + n);
  return static_cast<std::size_t>(std::unique(v, v + n) - v);
}

// Stats of one finished request.
void account(const request_group& g, launch_counters& c) {
  uintptr_t keys[128];
  int k = 0;
  if (g.kind == access_kind::global_load || g.kind == access_kind::global_store ||
      g.kind == access_kind::global_atomic) {
    for (int i = 0; i < g.n; ++i) {
      const uintptr_t s0 = g.address[i] >> 5, s1 = (g.address[i] + g.size - 1) >> 5;
      keys[k++] = s0;
      if (s1 != s0) keys[k++] = s1;
    }
    const uint64_t sectors = distinct_count(keys, k);
    uintptr_t addr[32];
    std::copy(g.address, g.address + g.n, addr);
    const uint64_t distinct = distinct_count(addr, g.n);
    const uint64_t ideal = (distinct * g.size + 31) / 32;
    // Bytes the lanes asked for (a broadcast's 32 times): the labs compare these
    // between kernels; the memory traffic is the sectors.
    const uint64_t bytes = uint64_t{g.n} * g.size;
    if (g.kind ==
        access_kind::global_atomic) {  // ncu's op_atom / op_red: read and written in place
      c.global_atomic_requests++;
      c.global_atomic_sectors += sectors;
      c.global_atomic_coalesced_sectors += g.size;
      c.global_load_bytes += bytes;
      c.global_store_bytes += bytes;
    } else if (g.kind == access_kind::global_load) {
      c.global_load_requests++;
      c.global_load_sectors += sectors;
      c.global_load_ideal_sectors += ideal;
      c.global_load_coalesced_sectors += g.size;  // 32 lanes x size bytes / 32-byte sectors
      c.global_load_bytes += bytes;
    } else {
      c.global_store_requests++;
      c.global_store_sectors += sectors;
      c.global_store_ideal_sectors += ideal;
      c.global_store_coalesced_sectors += g.size;
      c.global_store_bytes += bytes;
    }
    return;
  }
  // Shared: 32 banks of 4-byte words; a wavefront serves at most one word per bank. A
  // 16-byte access is served a quarter-warp at a time (8 lanes, 128 bytes): each group of
  // lanes needs as many wavefronts as the words of its busiest bank, and only those past one
  // a group are conflicts (ncu on an H100, tests/probes/ncu_wide_banks.h100.txt). An 8-byte
  // access is taken a half-warp at a time by the same rule (128 bytes a group), not yet
  // measured: the probe's float2 kernel is for that.
  const int group_lanes = g.size >= 16 ? 8 : g.size >= 8 ? 16 : 32;
  uint64_t wavefronts = 0, ideal = 0;
  for (int first = 0; first < 32; first += group_lanes) {
    k = 0;
    for (int i = 0; i < g.n; ++i) {
      if (g.lane[i] < first || g.lane[i] >= first + group_lanes) continue;
      for (uintptr_t w = g.address[i] >> 2; w <= (g.address[i] + g.size - 1) >> 2 && k < 128; ++w)
        keys[k++] = w;
    }
    if (k == 0) continue;
    k = static_cast<int>(distinct_count(keys, k));
    uint32_t per_bank[32] = {};
    uint64_t busiest = 1;
    for (int i = 0; i < k; ++i) busiest = std::max<uint64_t>(busiest, ++per_bank[keys[i] & 31]);
    wavefronts += busiest;
    ++ideal;
  }
  if (ideal == 0) wavefronts = ideal = 1;
  if (g.kind == access_kind::shared_load) {
    c.shared_load_requests++;
    c.shared_load_wavefronts += wavefronts;
    c.shared_load_bank_conflicts += wavefronts - ideal;
  } else {
    c.shared_store_requests++;
    c.shared_store_wavefronts += wavefronts;
    c.shared_store_bank_conflicts += wavefronts - ideal;
  }
}

}  // namespace

void flush_groups() {
  launch_counters& c = emu.record->counters;
  for (size_t i = 0; i < emu.warps.size(); ++i) {
    auto& w = emu.warps[i];
    if (w.groups.empty()) continue;
    for (const auto& g : w.groups) account(g, c);
    w.groups.clear();
    // The groups are gone, so every lane is back in their order: a lane that left it (a
    // guard that skipped an access) searched every group of the phase at each access
    // until the launch ended (a third of lab 2's time).
    for (size_t t = i * 32; t < std::min(emu.threads.size(), i * 32 + 32); ++t) {
      emu.threads[t].cursor = 0;
      emu.threads[t].exact = false;
    }
  }
}

// An atomic on global memory (or a __device__ variable) is a checked access and a
// request of its own; on shared memory it is never a race.
void note_atomic(const void* address, unsigned size, const void* pc) {
  if (!emu.in_kernel) return;
  tick();  // a spin on an atomic must still meet the time limit
  const uintptr_t a = reinterpret_cast<uintptr_t>(address);
  if (a - emu.shared_lo < emu.shared_size || a - emu.stacks_lo < emu.stacks_size) return;
  const bool device = a - emu.arena_lo < emu.arena_size
                          ? containing(a, size) != nullptr
                          : a - emu.static_lo < emu.static_size && !is_builtin(a);
  if (!device) bad_global(a, size, true, pc);
  if (g_options.check_races && a - emu.arena_lo < emu.arena_size)
    if (const allocation* al = containing(a, size)) mark_written(*al, a, size);
  thread* th = emu.current;
  ++th->global_reads;
  ++th->global_writes;
  add_to_group(th, pc, access_kind::global_atomic, a, size);
}

void finish_races() {
  for (const auto& [key, bytes] : emu.races) {
    const auto& [first_pc, second_pc, first_kind, second_kind, space] = key;
    race r;
    r.global = space != 0;
    r.across_blocks = space == 2;
    r.first = std::string(first_kind == 1 ? "Write" : "Read") + " access at " + location(first_pc);
    r.second =
        std::string(second_kind == 1 ? "Write" : "Read") + " access at " + location(second_pc);
    r.hazards = bytes;
    if (emu.record) {
      emu.record->races.push_back(r);
      if (g_options.print_reports) std::fprintf(stderr, "%s", race_text(r).c_str());
    }
  }
  emu.races.clear();
}

}  // namespace cuda_emu::detail

// ---- the instrumentation's entry points ------------------------------------
using cuda_emu::detail::on_access;
#define CUDA_EMU_HOOK(name, size, write)                    \
  extern "C" void name(void* a) {                           \
    on_access(a, size, write, __builtin_return_address(0)); \
  }
CUDA_EMU_HOOK(__tsan_read1, 1, false)
CUDA_EMU_HOOK(__tsan_read2, 2, false)
CUDA_EMU_HOOK(__tsan_read4, 4, false)
CUDA_EMU_HOOK(__tsan_read8, 8, false)
CUDA_EMU_HOOK(__tsan_read16, 16, false)
CUDA_EMU_HOOK(__tsan_write1, 1, true)
CUDA_EMU_HOOK(__tsan_write2, 2, true)
CUDA_EMU_HOOK(__tsan_write4, 4, true)
CUDA_EMU_HOOK(__tsan_write8, 8, true)
CUDA_EMU_HOOK(__tsan_write16, 16, true)
CUDA_EMU_HOOK(__tsan_unaligned_read2, 2, false)
CUDA_EMU_HOOK(__tsan_unaligned_read4, 4, false)
CUDA_EMU_HOOK(__tsan_unaligned_read8, 8, false)
CUDA_EMU_HOOK(__tsan_unaligned_read16, 16, false)
CUDA_EMU_HOOK(__tsan_unaligned_write2, 2, true)
CUDA_EMU_HOOK(__tsan_unaligned_write4, 4, true)
CUDA_EMU_HOOK(__tsan_unaligned_write8, 8, true)
CUDA_EMU_HOOK(__tsan_unaligned_write16, 16, true)
CUDA_EMU_HOOK(__tsan_volatile_read1, 1, false)
CUDA_EMU_HOOK(__tsan_volatile_read2, 2, false)
CUDA_EMU_HOOK(__tsan_volatile_read4, 4, false)
CUDA_EMU_HOOK(__tsan_volatile_read8, 8, false)
CUDA_EMU_HOOK(__tsan_volatile_write1, 1, true)
CUDA_EMU_HOOK(__tsan_volatile_write2, 2, true)
CUDA_EMU_HOOK(__tsan_volatile_write4, 4, true)
CUDA_EMU_HOOK(__tsan_volatile_write8, 8, true)
#undef CUDA_EMU_HOOK

// A wide access (a struct copy) is checked and counted in full, 16 bytes at a time.
static void range_access(void* a, unsigned long size, bool write, const void* pc) {
  for (unsigned long off = 0; off < size; off += 16)
    on_access(static_cast<char*>(a) + off, static_cast<unsigned>(std::min(size - off, 16ul)), write,
              pc);
}

extern "C" {
void __tsan_init() {}
void __tsan_func_entry(void*) {}
void __tsan_func_exit() {}
void __tsan_vptr_update(void**, void*) {}
void __tsan_vptr_read(void**) {}
void __tsan_read_range(void* a, unsigned long size) {
  range_access(a, size, false, __builtin_return_address(0));
}
void __tsan_write_range(void* a, unsigned long size) {
  range_access(a, size, true, __builtin_return_address(0));
}
void __tsan_atomic_thread_fence(int) {
  __atomic_thread_fence(__ATOMIC_SEQ_CST);
}
void __tsan_atomic_signal_fence(int) {
  __atomic_signal_fence(__ATOMIC_SEQ_CST);
}
}

// std::atomic in a kernel file's host code (say, from <iostream>) compiles to these.
#define CUDA_EMU_ATOMICS(bits, T)                                                                  \
  extern "C" T __tsan_atomic##bits##_load(const volatile T* a, int) {                              \
    return __atomic_load_n(a, __ATOMIC_SEQ_CST);                                                   \
  }                                                                                                \
  extern "C" void __tsan_atomic##bits##_store(volatile T* a, T v, int) {                           \
    __atomic_store_n(a, v, __ATOMIC_SEQ_CST);                                                      \
  }                                                                                                \
  extern "C" T __tsan_atomic##bits##_exchange(volatile T* a, T v, int) {                           \
    return __atomic_exchange_n(a, v, __ATOMIC_SEQ_CST);                                            \
  }                                                                                                \
  extern "C" T __tsan_atomic##bits##_fetch_add(volatile T* a, T v, int) {                          \
    return __atomic_fetch_add(a, v, __ATOMIC_SEQ_CST);                                             \
  }                                                                                                \
  extern "C" T __tsan_atomic##bits##_fetch_sub(volatile T* a, T v, int) {                          \
    return __atomic_fetch_sub(a, v, __ATOMIC_SEQ_CST);                                             \
  }                                                                                                \
  extern "C" T __tsan_atomic##bits##_fetch_and(volatile T* a, T v, int) {                          \
    return __atomic_fetch_and(a, v, __ATOMIC_SEQ_CST);                                             \
  }                                                                                                \
  extern "C" T __tsan_atomic##bits##_fetch_or(volatile T* a, T v, int) {                           \
    return __atomic_fetch_or(a, v, __ATOMIC_SEQ_CST);                                              \
  }                                                                                                \
  extern "C" T __tsan_atomic##bits##_fetch_xor(volatile T* a, T v, int) {                          \
    return __atomic_fetch_xor(a, v, __ATOMIC_SEQ_CST);                                             \
  }                                                                                                \
  extern "C" int __tsan_atomic##bits##_compare_exchange_strong(volatile T* a, T* c, T v, int,      \
                                                               int) {                              \
    return __atomic_compare_exchange_n(a, c, v, false, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST);        \
  }                                                                                                \
  extern "C" int __tsan_atomic##bits##_compare_exchange_weak(volatile T* a, T* c, T v, int, int) { \
    return __atomic_compare_exchange_n(a, c, v, true, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST);         \
  }                                                                                                \
  extern "C" T __tsan_atomic##bits##_compare_exchange_val(volatile T* a, T c, T v, int, int) {     \
    __atomic_compare_exchange_n(a, &c, v, false, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST);              \
    return c;                                                                                      \
  }
CUDA_EMU_ATOMICS(8, unsigned char)
CUDA_EMU_ATOMICS(16, unsigned short)
CUDA_EMU_ATOMICS(32, unsigned int)
CUDA_EMU_ATOMICS(64, unsigned long long)
#undef CUDA_EMU_ATOMICS
