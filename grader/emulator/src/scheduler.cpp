// Launches: blocks one after another, each CUDA thread a fiber (fiber.hpp) run
// round-robin until it blocks at a barrier or a warp-synchronous operation, or
// finishes. Deterministic: the same launch always runs the same way.
#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cstdio>
#include <cstring>
#include <stdexcept>
#include <thread>

#include "cuda_emu/device_api.hpp"
#include "cuda_emu/wmma.hpp"
#include "internal.hpp"

extern "C" {
// The linker's bounds of the shared-memory section and of the executable's image.
extern char __start_cuda_shared[] __attribute__((weak));
extern char __stop_cuda_shared[] __attribute__((weak));
extern char __executable_start[];
extern char _end[];

// Dynamic shared memory (`extern __shared__` arrays point here after the rewrite):
// the most a block may opt in to on an H200, in the shared section.
alignas(128) __attribute__((section("cuda_shared"),
                            used)) char cuda_emu_dynamic_shared[cuda_emu::kMaxDynamicSharedBytes];
// __shared__ arrays of template kernels: g++ ignores the section attribute on a
// template's static locals, so the rewrite gives each one a slot of this pool.
alignas(128)
    __attribute__((section("cuda_shared"),
                   used)) char cuda_emu_template_shared[cuda_emu::kTemplateSharedPoolBytes];
}

namespace cuda_emu::detail {

uint3 thread_idx, block_idx;
dim3 block_dim, grid_dim;
machine emu;
options g_options;

std::string timeout_text() {
  return "kernel " + (emu.record ? emu.record->kernel : std::string("?")) +
         " did not finish within its time limit of " +
         std::to_string(g_options.time_limit.count()) +
         " ms (an endless loop?); the launch was stopped";
}

namespace {

// Per CUDA thread: 33 pages, not 32, and each stack starts (t % 64) cache lines below its
// slot's top, so the threads' hot stack frames do not all fall in the same cache sets (with
// 128 KiB slots every switch between fibers missed in L1 and L2: 28 % of lab 3's time).
constexpr size_t kStackSlot = 132 * 1024;
uintptr_t stack_top_of(uint32_t t) {
  return emu.stacks_lo + (t + 1) * uintptr_t{kStackSlot} - (t % 64) * 64;
}
constexpr uint32_t kMaxThreads = kMaxThreadsPerBlock;

// Kills the process, with a message, when a kernel spins where no access or barrier
// lets the scheduler stop it. Normally the scheduler stops a late kernel itself.
std::atomic<int64_t> g_watch_deadline{0};  // steady-clock ns; 0 = no launch running
const char* g_watch_kernel = "";

void watchdog() {
  using namespace std::chrono;
  for (;;) {
    std::this_thread::sleep_for(milliseconds(200));
    const int64_t d = g_watch_deadline.load();
    if (d != 0 && steady_clock::now().time_since_epoch().count() >
                      d + duration_cast<nanoseconds>(seconds(2)).count()) {
      std::fprintf(
          stderr,
          "cuda_emu: kernel '%s' ran past its time limit without reaching a memory access or a "
          "barrier (an endless loop?); exiting.\n",
          g_watch_kernel);
      std::fflush(stderr);
      _exit(124);
    }
  }
}

void init_once() {
  static bool done = false;
  if (done) return;
  done = true;
  init_memory();
  emu.shared_lo = reinterpret_cast<uintptr_t>(__start_cuda_shared);
  emu.shared_size =
      __start_cuda_shared ? static_cast<size_t>(__stop_cuda_shared - __start_cuda_shared) : 0;
  emu.static_lo = reinterpret_cast<uintptr_t>(__executable_start);
  emu.static_size = static_cast<size_t>(_end - __executable_start);
  emu.stack_slot = kStackSlot;
  emu.stack_slots = kMaxThreads;
  emu.stacks_size = kStackSlot * kMaxThreads;
  void* stacks = mmap(nullptr, emu.stacks_size, PROT_READ | PROT_WRITE,
                      MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE | MAP_STACK, -1, 0);
  if (stacks == MAP_FAILED) throw std::runtime_error("cuda_emu: cannot map fiber stacks");
  emu.stacks_lo = reinterpret_cast<uintptr_t>(stacks);
  const long page = sysconf(_SC_PAGESIZE);
  for (uint32_t i = 0; i < kMaxThreads; ++i)  // a guard page under each stack
    mprotect(reinterpret_cast<char*>(stacks) + i * kStackSlot, page, PROT_NONE);
  std::thread(watchdog).detach();
}

// The entry of every CUDA thread's fiber: the kernel, for emu.current. When it
// returns, the fiber goes back to the scheduler for good.
void fiber_main() {
  try {
    emu.entry(emu.args);
  } catch (...) {
    if (emu.abort == abort_reason::none) {
      emu.abort = abort_reason::exception;
      emu.exception = std::current_exception();
      emu.in_kernel = false;  // see access.cpp, invalid()
      std::string what = "an exception";
      try {
        throw;
      } catch (const std::exception& e) {
        what = e.what();
      } catch (...) {
      }
      const uint3 t = emu.current->idx;
      emit(report_kind::exception, "Exception in device code by thread (" + std::to_string(t.x) +
                                       "," + std::to_string(t.y) + "," + std::to_string(t.z) +
                                       "): " + what);
    }
  }
  emu.current->state = thread_state::finished;
}

void resume(thread& th) {
  emu.current = &th;
  thread_idx = th.idx;
  emu.in_kernel = true;
  th.context.resume();
  emu.in_kernel = false;
}

std::string thread_text(const uint3& t) {
  return "(" + std::to_string(t.x) + "," + std::to_string(t.y) + "," + std::to_string(t.z) + ")";
}
std::string block_text() {
  return thread_text(block_idx);
}

const char* op_name(int op) {
  switch (op) {
    case static_cast<int>(shfl_op::idx):
      return "__shfl_sync";
    case static_cast<int>(shfl_op::up):
      return "__shfl_up_sync";
    case static_cast<int>(shfl_op::down):
      return "__shfl_down_sync";
    case static_cast<int>(shfl_op::bfly):
      return "__shfl_xor_sync";
    case 10:
      return "__ballot_sync";  // also __any_sync / __all_sync
    case 11:
      return "__syncwarp";
    case 12:
      return "wmma::mma_sync";
    default:
      return "a warp-synchronous operation";
  }
}

std::string mask_text(unsigned mask) {
  char text[16];
  std::snprintf(text, sizeof text, "0x%08x", mask);
  return text;
}

// "lane 3" or "lanes 0-15, 17".
std::string lanes_text(uint32_t bits) {
  std::string out;
  int count = 0;
  for (int lane = 0; lane < 32;) {
    if (!(bits >> lane & 1u)) {
      ++lane;
      continue;
    }
    int end = lane;
    while (end + 1 < 32 && (bits >> (end + 1) & 1u)) ++end;
    if (!out.empty()) out += ", ";
    out += std::to_string(lane);
    if (end > lane) out += "-" + std::to_string(end);
    count += end - lane + 1;
    lane = end + 1;
  }
  return (count == 1 ? "lane " : "lanes ") + out;
}

// An operation can complete once every lane of its mask that is still alive has arrived
// (lanes that exited, or that the block does not have, are not waited for).
bool complete(const warp_op& g, const warp_state& w) {
  return (g.mask & w.live & ~g.arrived_mask) == 0;
}

// The value a shuffle returns from a lane outside its mask: undefined on a GPU, so
// something that spoils a sum, a max or a product (NaN, or 3.4e38 as a float).
uint64_t poison(uint32_t k) {
  return k & 1u ? 0x7F7F7F7F7F7F7F7Full : ~uint64_t{0};
}

void mask_warning(const warp_op& g, uint32_t lane, int src) {
  const bool was = emu.in_kernel;
  emu.in_kernel = false;  // the message builds strings
  emu.warned_mask = true;
  emit(report_kind::warning,
       std::string("Warning: ") + op_name(g.op) + " with mask " + mask_text(g.mask) + ": lane " +
           std::to_string(lane) + " reads lane " + std::to_string(src) +
           ", which is not in the mask (undefined on a GPU: the emulator returns NaN or "
           "3.4e38, harmless only if the value is discarded)");
  emu.in_kernel = was;
}

// A shuffle read a lane of its mask that has already returned: undefined on a GPU (an
// inactive lane's register), so the reader gets a poison value and the report says why,
// instead of the reader's own value passing for a neutral one (a warp sum after an early
// `return` of the lanes past n).
void exited_warning(const warp_op& g, uint32_t lane, int src) {
  const bool was = emu.in_kernel;
  emu.in_kernel = false;  // the message builds strings
  emu.warned_exited = true;
  emit(report_kind::warning,
       std::string("Warning: ") + op_name(g.op) + " with mask " + mask_text(g.mask) + ": lane " +
           std::to_string(lane) + " reads lane " + std::to_string(src) +
           ", which has already returned (undefined on a GPU: the emulator returns NaN or "
           "3.4e38). Every lane of the mask must reach the shuffle: keep the lanes with no "
           "element in it, with a neutral value, instead of returning early");
  emu.in_kernel = was;
}

// Every live lane of pending operation `gi` has arrived: compute the results and let
// those lanes go on.
void resolve(warp_state& w, uint32_t warp, size_t gi) {
  const warp_op g = w.pending[gi];
  w.pending.erase(w.pending.begin() + static_cast<std::ptrdiff_t>(gi));
  const int width = g.width > 0 && g.width <= 32 ? g.width : 32;
  if (g.op == 12) wmma::resolve_mma(warp, g.arrived_mask);
  uint32_t ballot_bits = 0;
  for (uint32_t lane = 0; lane < 32; ++lane)
    if ((g.arrived_mask >> lane & 1u) && emu.threads[warp * 32 + lane].warp_value)
      ballot_bits |= 1u << lane;
  for (uint32_t lane = 0; lane < 32; ++lane) {
    if (!(g.arrived_mask >> lane & 1u)) continue;
    thread& th = emu.threads[warp * 32 + lane];
    const int base = static_cast<int>(lane) / width * width;
    int src = static_cast<int>(lane);
    switch (g.op) {
      case static_cast<int>(shfl_op::idx):
        src = base + ((th.warp_arg % width) + width) % width;
        break;
      case static_cast<int>(shfl_op::up):
        src = static_cast<int>(lane) - th.warp_arg;
        if (src < base) src = lane;
        break;
      case static_cast<int>(shfl_op::down):
        src = static_cast<int>(lane) + th.warp_arg;
        if (src >= base + width) src = lane;
        break;
      case static_cast<int>(shfl_op::bfly):
        src = static_cast<int>(lane) ^ th.warp_arg;
        if (src >= base + width) src = lane;
        break;
      default:
        break;
    }
    if (g.op == 10) {
      th.warp_result = ballot_bits;
    } else if (g.op == 12) {
      th.warp_result = ~g.arrived_mask;  // lanes mma_sync went without
    } else if (src >= 0 && src < 32 && (g.arrived_mask >> src & 1u)) {
      th.warp_result = emu.threads[warp * 32 + src].warp_value;
    } else if (g.op != 11 && src >= 0 && src < 32 && (w.live >> src & 1u)) {
      // A live lane outside the mask: it may be anywhere in its own code.
      th.warp_result = poison(static_cast<uint32_t>(src) + w.completed);
      if (!emu.warned_mask) mask_warning(g, lane, src);
    } else if (g.op <= static_cast<int>(shfl_op::bfly) && src >= 0 && src < 32 &&
               (g.mask >> src & 1u) &&
               warp * 32 + static_cast<uint32_t>(src) < emu.threads.size()) {
      // A lane of the mask that exists but has returned.
      th.warp_result = poison(static_cast<uint32_t>(src) + w.completed);
      if (!emu.warned_exited) exited_warning(g, lane, src);
    } else {
      th.warp_result = th.warp_value;  // a lane that the block lacks
    }
    th.state = thread_state::runnable;
  }
  if (g.op == 11) ++w.syncwarp_epoch;  // a completed __syncwarp orders the lanes' accesses
  ++w.completed;
}

// Completes every pending operation of the warp that can (after a lane finished).
void resolve_ready(warp_state& w, uint32_t warp) {
  for (size_t i = 0; i < w.pending.size();)
    if (complete(w.pending[i], w))
      resolve(w, warp, i);
    else
      ++i;
}

// A lane reaches a warp-synchronous operation: it joins the pending operation with the
// same mask, or opens one, and waits until every live lane of the mask has arrived.
// Lanes of one warp may wait at several operations with different masks at once.
uint64_t warp_rendezvous(int op, unsigned mask, uint64_t value, int arg, int width) {
  if (!emu.in_kernel) return value;
  thread* th = emu.current;
  warp_state& w = emu.warps[th->warp];
  if (!(mask >> th->lane & 1u)) {
    emu.in_kernel = false;  // the message builds strings
    abort_thread(abort_reason::synccheck,
                 "Barrier error detected. Invalid arguments\n    by thread " +
                     thread_text(th->idx) + " in block " + block_text() +
                     ": its own lane is not in the warp-synchronous operation's mask");
  }
  size_t gi = 0;
  while (gi < w.pending.size() && w.pending[gi].mask != mask) ++gi;
  if (gi == w.pending.size()) {
    w.pending.push_back(warp_op{op, mask, width, 0});
  } else if (w.pending[gi].op != op) {
    emu.in_kernel = false;
    abort_thread(abort_reason::synccheck,
                 "Barrier error detected. Divergent thread(s) in warp\n    by thread " +
                     thread_text(th->idx) + " in block " + block_text() +
                     ": lanes of one warp reached different warp-synchronous operations");
  }
  th->warp_value = value;
  th->warp_arg = arg;
  w.pending[gi].arrived_mask |= 1u << th->lane;
  if (complete(w.pending[gi], w)) {
    resolve(w, th->warp, gi);
    yield_thread(thread_state::runnable);  // keep the warp's lanes together
  } else {
    yield_thread(thread_state::warp_wait);
  }
  return th->warp_result;
}

// Why a block's lanes wait at warp operations that cannot complete: the first warp
// with such lanes, each of its pending operations, and where the lanes they wait for are.
std::string stuck_warp_text(uint32_t waiting) {
  for (uint32_t warp = 0; warp < emu.warps.size(); ++warp) {
    const warp_state& w = emu.warps[warp];
    if (w.pending.empty()) continue;
    uint32_t waiting_here = 0;
    for (const warp_op& g : w.pending) waiting_here |= g.arrived_mask;
    std::string detail;
    for (const warp_op& g : w.pending) {
      const uint32_t missing = g.mask & w.live & ~g.arrived_mask;
      detail += "\n    " + lanes_text(g.arrived_mask) + " wait at " + op_name(g.op) +
                " with mask " + mask_text(g.mask) + " for " + lanes_text(missing);
      const uint32_t at_barrier = missing & ~waiting_here;
      if (at_barrier) detail += " (" + lanes_text(at_barrier) + " at __syncthreads())";
    }
    if (waiting_here == w.live)
      return "Barrier error detected. Deadlock in warp " + std::to_string(warp) +
             "\n    in block " + block_text() +
             ": every live lane of the warp waits at a warp-synchronous operation, and none "
             "can complete (each mask names lanes waiting elsewhere):" +
             detail;
    return "Barrier error detected. Divergent thread(s) in warp\n    in block " + block_text() +
           ": " + std::to_string(waiting) +
           " lane(s) wait at a warp-synchronous operation that lanes of their mask never reach "
           "(warp " +
           std::to_string(warp) + "):" + detail;
  }
  return "Barrier error detected. Divergent thread(s) in warp\n    in block " + block_text() +
         ": " + std::to_string(waiting) +
         " lane(s) wait at a warp-synchronous operation that lanes of their mask never reach";
}

void fail_block(abort_reason why, const std::string& text) {
  emu.abort = why;
  emit(why == abort_reason::timeout ? report_kind::timeout : report_kind::synccheck, text);
}

size_t g_dynamic_bytes = 0;         // the running launch's dynamic shared memory
bool g_nan_poison = true;           // this block's shared memory starts as NaN, else 1.19e30
size_t g_template_shared_used = 0;  // bytes of the template pool handed out

// Calls fn(offset, bytes) for the parts of the shared section a block uses: all of
// it but the unused tails of the dynamic buffer and of the template pool, so a
// launch does not poison and reset half a MiB per block.

template <class Fn>
void for_used_shared(Fn fn) {
  struct part {
    size_t offset, used, size;
  } parts[2] = {{reinterpret_cast<uintptr_t>(cuda_emu_dynamic_shared) - emu.shared_lo,
                 g_dynamic_bytes, sizeof(cuda_emu_dynamic_shared)},
                {reinterpret_cast<uintptr_t>(cuda_emu_template_shared) - emu.shared_lo,
                 g_template_shared_used, sizeof(cuda_emu_template_shared)}};
  if (parts[0].offset > parts[1].offset) std::swap(parts[0], parts[1]);
  size_t at = 0;
  for (const part& p : parts) {
    fn(at, p.offset + p.used - at);
    at = p.offset + p.size;
  }
  fn(at, emu.shared_size - at);
}

// A seeded schedule's order of threads for one pass: warps in random order, the lanes
// of each forwards or backwards.
std::vector<uint32_t> g_order, g_warp_order;

void shuffle_order(uint32_t n) {
  const uint32_t warps = (n + 31) / 32;
  g_warp_order.resize(warps);
  for (uint32_t w = 0; w < warps; ++w) g_warp_order[w] = w;
  for (uint32_t w = warps; w > 1; --w)
    std::swap(g_warp_order[w - 1], g_warp_order[next_random() % w]);
  g_order.clear();
  for (uint32_t w : g_warp_order) {
    const uint32_t lo = w * 32, hi = std::min(n, lo + 32);
    if (next_random() & 1)
      for (uint32_t t = lo; t < hi; ++t) g_order.push_back(t);
    else
      for (uint32_t t = hi; t-- > lo;) g_order.push_back(t);
  }
}

// The order a launch runs its blocks in: the i-th block to run, as a linear index in
// (z, y, x) order. In order, or under a seeded schedule reversed, shuffled (grids up to
// 2^20 blocks; larger ones interleave), or interleaved from both ends.
struct block_order {
  uint64_t total = 0, kind = 0;
  std::vector<uint32_t> shuffled;

  block_order(uint64_t blocks, uint64_t schedule) : total(blocks) {
    kind = schedule == 0 ? 0 : 1 + schedule % 3;  // 1 reverse, 2 shuffle, 3 interleave
    if (kind == 2 && total > (uint64_t{1} << 20)) kind = 3;
    if (kind == 2) {
      shuffled.resize(total);
      for (uint32_t i = 0; i < total; ++i) shuffled[i] = i;
      for (uint64_t i = total; i > 1; --i) std::swap(shuffled[i - 1], shuffled[next_random() % i]);
    }
  }
  uint64_t operator[](uint64_t i) const {
    switch (kind) {
      case 1:
        return total - 1 - i;
      case 2:
        return shuffled[i];
      case 3:
        return i % 2 == 0 ? total - 1 - i / 2 : i / 2;
      default:
        return i;
    }
  }
};

// Runs one block to the end. False when the launch must stop.
bool run_block(uint32_t n) {
  static uint64_t blocks_run = 0;
  g_nan_poison = blocks_run++ % 2 == 0;
  for_used_shared([](size_t offset, size_t bytes) {
    if (bytes == 0) return;
    // Poison, alternating block by block (across launches too, so a one-block launch gets
    // either): all NaN (0xFF bytes: wrong in any sum or product) or all 1.19e30 (0x71
    // bytes: wrong in a max, where fmaxf skips a NaN; a score against such a row is huge
    // but finite, so every exp(s - m) underflows). A kernel that uses a word no thread of
    // the block wrote gets a wrong answer either way; a GPU leaves whatever an earlier
    // block wrote there.
    std::memset(reinterpret_cast<void*>(emu.shared_lo + offset), g_nan_poison ? 0xFF : 0x71, bytes);
  });
  // Nothing of the race checks' shadow is cleared: an entry from an earlier block or launch
  // carries an older barrier epoch, and every check compares epochs first.
  next_epoch();
  for (uint32_t t = 0; t < n; ++t) {
    thread& th = emu.threads[t];
    th.state = thread_state::runnable;
    th.cursor = 0;
    th.exact = false;
    th.global_reads = th.global_writes = th.shared_reads = th.shared_writes = 0;
    th.context.create(reinterpret_cast<void*>(th.stack_top),
                      th.stack_top - emu.stacks_lo - t * emu.stack_slot - 4096, fiber_main);
  }
  for (auto& w : emu.warps) {
    w.groups.clear();
    w.pending.clear();
    w.live = 0;
    w.completed = 0;
  }
  for (uint32_t t = 0; t < n; ++t) emu.warps[t / 32].live |= 1u << (t % 32);
  for (;;) {
    uint32_t finished = 0, waiting = 0, at_barrier = 0, runnable = 0;
    const thread* first_waiting = nullptr;
    auto count = [&](const thread& th) {
      switch (th.state) {
        case thread_state::finished:
          ++finished;
          break;
        case thread_state::warp_wait:
          ++waiting;
          break;
        case thread_state::barrier:
          ++at_barrier;
          if (!first_waiting) first_waiting = &th;
          break;
        case thread_state::runnable:
          ++runnable;
          break;
      }
    };
    if (emu.scheduled) shuffle_order(n);
    for (uint32_t i = 0; i < n; ++i) {
      thread& th = emu.threads[emu.scheduled ? g_order[i] : i];
      if (th.state == thread_state::runnable) {
        resume(th);
        if (emu.abort != abort_reason::none) return false;
        if (th.state == thread_state::finished) {
          warp_state& w = emu.warps[th.warp];
          w.live &= ~(1u << th.lane);  // the operations it was in no longer wait for it
          if (!w.pending.empty()) resolve_ready(w, th.warp);
        }
      }
      count(th);
    }
    if (waiting) {  // a warp operation resolved late in the pass may have freed lanes counted above
      finished = waiting = at_barrier = runnable = 0;
      first_waiting = nullptr;
      for (const thread& th : emu.threads) count(th);
    }
    flush_groups();
    if (std::chrono::steady_clock::now() > emu.deadline) {
      fail_block(abort_reason::timeout, timeout_text());
      return false;
    }
    if (finished == n) return true;
    if (runnable) continue;
    if (waiting) {
      fail_block(abort_reason::synccheck, stuck_warp_text(waiting));
      return false;
    }
    if (finished) {
      fail_block(abort_reason::synccheck,
                 "Barrier error detected. Divergent thread(s) in block\n    in block " +
                     block_text() + ": " + std::to_string(finished) + " thread(s) exited while " +
                     std::to_string(at_barrier) +
                     " wait at __syncthreads() (first waiting: thread " +
                     thread_text(first_waiting->idx) + ")");
      return false;
    }
    for (thread& th : emu.threads)
      th.state = thread_state::runnable;  // everyone reached the barrier
    next_epoch();
  }
}

}  // namespace

void yield_thread(thread_state new_state) {
  thread* th = emu.current;
  th->state = new_state;
  fiber::yield();
}

[[noreturn]] void abort_thread(abort_reason why, const std::string& message) {
  emu.in_kernel = false;  // no access tracking while reporting (see access.cpp, invalid())
  if (emu.abort == abort_reason::none) {
    emu.abort = why;
    emit(why == abort_reason::memcheck  ? report_kind::memcheck
         : why == abort_reason::timeout ? report_kind::timeout
         : why == abort_reason::config  ? report_kind::config
                                        : report_kind::synccheck,
         message);
  }
  emu.current->state = thread_state::finished;
  fiber::yield();  // a finished thread is never resumed
  __builtin_unreachable();
}

uint64_t next_random() {  // splitmix64
  uint64_t z = (emu.rng += 0x9E3779B97F4A7C15ull);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

void maybe_switch() {
  if ((next_random() & 7) == 0) yield_thread(thread_state::runnable);  // one access in eight
}

void check_deadline() {
  if (std::chrono::steady_clock::now() > emu.deadline)
    abort_thread(abort_reason::timeout, timeout_text());
}

uint64_t shuffle(shfl_op op, unsigned mask, uint64_t value, int lane_arg, int width) {
  return warp_rendezvous(static_cast<int>(op), mask, value, lane_arg, width);
}

void syncwarp(unsigned mask) {
  warp_rendezvous(11, mask, 0, 0, 32);
}

unsigned ballot(unsigned mask, bool predicate) {
  return static_cast<unsigned>(warp_rendezvous(10, mask, predicate ? 1 : 0, 0, 32));
}

void wmma::mma_sync(const mma_operands& ops) {
  if (!emu.in_kernel) return;
  const uint32_t missing = static_cast<uint32_t>(
      warp_rendezvous(12, 0xffffffffu, reinterpret_cast<uint64_t>(&ops), 0, 32));
  if (missing == 0) return;
  emu.in_kernel = false;  // the message builds strings
  abort_thread(
      abort_reason::synccheck,
      "Barrier error detected. wmma::mma_sync needs all 32 lanes of the warp\n    by thread " +
          thread_text(emu.current->idx) + " in block " + block_text() + ": " + lanes_text(missing) +
          " did not take part (returned, or past the block's last thread)");
}

void launch(const launch_config& config, const char* name, void (*entry)(void*), void* args) {
  init_once();
  const auto start = std::chrono::steady_clock::now();
  launch_record rec;
  rec.kernel = name;
  rec.grid = config.grid;
  rec.block = config.block;
  rec.device_bytes_at_launch = emu.bytes_in_use;
  emu.record = &rec;
  emu.abort = abort_reason::none;
  emu.exception = nullptr;
  emu.races.clear();
  emu.warned_static = false;
  emu.warned_mask = false;
  emu.warned_exited = false;
  emu.forget_allocations();  // check_races may have changed since: the shadows with it
  ++emu.launch_id;
  rec.schedule = g_options.schedule;

  const uint64_t n = uint64_t{config.block.x} * config.block.y * config.block.z;
  // Resource limits first, as the driver checks them: a launch over one fails and its
  // kernel does not run (src/limits.cpp).
  const limit_problem limits = check_launch_limits(config, rec.kernel);
  if (emu.sticky_error != cudaSuccess) {
    rec.error = emu.sticky_error;
  } else if (limits.error != cudaSuccess) {
    rec.error = emu.last_error = limits.error;
    emit(report_kind::config, limits.text);
  } else {
    emu.threads.assign(n, thread{});
    emu.warps.assign((n + 31) / 32, warp_state{});
    for (uint32_t t = 0; t < n; ++t) {
      thread& th = emu.threads[t];
      th.linear = t;
      th.lane = t % 32;
      th.warp = t / 32;
      th.stack_top = stack_top_of(t);
      th.idx = {t % config.block.x, t / config.block.x % config.block.y,
                t / (config.block.x * config.block.y)};
    }
    if (g_options.check_races) {
      emu.shadow.resize(emu.shared_size / 2 + 1);
      emu.read_summary.resize(emu.shadow.size());
    }
    g_dynamic_bytes = config.shared_bytes;
    grid_dim = config.grid;
    block_dim = config.block;
    emu.entry = entry;
    emu.args = args;
    emu.deadline = start + g_options.time_limit;
    g_watch_kernel = name;
    g_watch_deadline = emu.deadline.time_since_epoch().count();
    // Each launch of a seeded schedule draws its own order from the seed and its place
    // among the launches since reset(), so a re-run repeats it exactly.
    emu.scheduled = g_options.schedule != 0;
    // A seeded schedule splits requests (its counters would mean nothing): none gathered.
    emu.grouping = !emu.scheduled && g_options.count_requests;
    rec.requests_counted = emu.grouping;
    emu.rng = g_options.schedule * 0x2545F4914F6CDD1Dull + emu.launches.size();
    emu.block_seq = 0;
    const uint64_t blocks = uint64_t{config.grid.x} * config.grid.y * config.grid.z;
    const block_order order(blocks, g_options.schedule);
    const memory_snapshot before =
        g_options.check_races ? snapshot_device_memory() : memory_snapshot{};
    bool ok = true;
    for (uint64_t i = 0; i < blocks; ++i) {
      const uint64_t b = order[i];
      block_idx = {static_cast<uint32_t>(b % config.grid.x),
                   static_cast<uint32_t>(b / config.grid.x % config.grid.y),
                   static_cast<uint32_t>(b / (uint64_t{config.grid.x} * config.grid.y))};
      ok = run_block(static_cast<uint32_t>(n));
      if (ok && i == 0)  // now it is known which namespace-scope __shared__ arrays it uses
        if (const std::string why = file_shared_problem(); !why.empty()) {
          emu.abort = abort_reason::config;
          emit(report_kind::config, why);
          ok = false;
        }
      ++emu.block_seq;
      for (const thread& th : emu.threads) {
        auto& c = rec.counters;
        c.max_thread_global_reads = std::max(c.max_thread_global_reads, th.global_reads);
        c.max_thread_global_writes = std::max(c.max_thread_global_writes, th.global_writes);
        c.max_thread_shared_reads = std::max(c.max_thread_shared_reads, th.shared_reads);
        c.max_thread_shared_writes = std::max(c.max_thread_shared_writes, th.shared_writes);
      }
      if (!ok) break;
    }
    emu.scheduled = emu.grouping = false;
    g_watch_deadline = 0;
    finish_races();
    switch (emu.abort) {
      case abort_reason::none:
        if (const std::string why = unseen_writes(before, rec.kernel); !why.empty()) {
          emit(report_kind::unseen_write, why);
          rec.error = emu.last_error = cudaErrorLaunchFailure;
        }
        break;
      case abort_reason::memcheck:
        rec.error = emu.sticky_error = cudaErrorIllegalAddress;
        break;
      case abort_reason::timeout:
        rec.error = emu.sticky_error = cudaErrorLaunchTimeout;
        break;
      case abort_reason::synccheck:
        rec.error = emu.sticky_error = cudaErrorLaunchFailure;
        break;
      case abort_reason::exception:
        rec.error = emu.last_error = cudaErrorLaunchFailure;
        break;
      case abort_reason::config:  // over a shared-memory limit: as if it never ran
        rec.error = emu.last_error = cudaErrorInvalidValue;
        rec.counters = launch_counters{};
        break;
    }
  }
  finish_printf();  // the launch's device printf, as a GPU flushes its FIFO at the sync
  rec.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  emu.record = nullptr;
  emu.launches.push_back(std::move(rec));
  if (emu.exception) {
    std::exception_ptr e = emu.exception;
    emu.exception = nullptr;
    std::rethrow_exception(e);
  }
}

void* template_shared(size_t bytes, size_t align) {
  const size_t at = (g_template_shared_used + align - 1) / align * align;
  if (at + bytes > sizeof(cuda_emu_template_shared)) {
    std::fprintf(stderr,
                 "cuda_emu: the __shared__ arrays of template kernels need more than %zu bytes; "
                 "run `grader <lesson> --gpu` on a GPU machine\n",
                 sizeof(cuda_emu_template_shared));
    std::abort();
  }
  g_template_shared_used = at + bytes;
  return cuda_emu_template_shared + at;
}

}  // namespace cuda_emu::detail

void __syncthreads() {
  using namespace cuda_emu::detail;
  if (emu.in_kernel) yield_thread(thread_state::barrier);
}

void __syncwarp(unsigned mask) {
  cuda_emu::detail::syncwarp(mask);
}

namespace cuda_emu {

std::string describe_schedule(uint64_t seed) {
  if (seed == 0) return "blocks in order, threads round-robin in order";
  static const char* blocks[] = {"blocks in reverse order", "blocks in shuffled order",
                                 "blocks interleaved from both ends"};
  return std::string(blocks[seed % 3]) +
         ", warps in shuffled order after each barrier, a switch to another thread at random "
         "memory accesses (schedule " +
         std::to_string(seed) + ")";
}

options& settings() {
  return detail::g_options;
}
const std::vector<launch_record>& launches() {
  return detail::emu.launches;
}
const launch_record& last_launch() {
  if (detail::emu.launches.empty())
    throw std::logic_error("cuda_emu::last_launch: no kernel was launched");
  return detail::emu.launches.back();
}
void adopt_launch(launch_record l) {
  detail::emu.launches.push_back(std::move(l));
}
void reset() {
  detail::emu.launches.clear();
  detail::emu.static_shadow.clear();  // and every word's footprint, by a new generation
  ++detail::emu.generation;
  detail::emu.sticky_error = detail::emu.last_error = cudaSuccess;
}

}  // namespace cuda_emu
