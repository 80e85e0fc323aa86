// The emulator's C++ API for tests: each launch's result, Nsight-Compute-style
// counters and compute-sanitizer-style reports.
//   cuda_emu::reset();
//   my_kernel<<<grid, block>>>(...);
//   const auto& run = cuda_emu::last_launch();
//   CHECK(run.ok());
//   CHECK(run.counters.global_load_sectors_per_request() <= 4.0);
//   CHECK(run.races.empty());
#pragma once

#include <chrono>
#include <cstdint>
#include <string>
#include <vector>

#include "cuda_emu/counters.hpp"
#include "cuda_emu/cuda.hpp"

namespace cuda_emu {

// unseen_write: device memory changed during a launch with no store the emulator saw
// (inline assembly, a libc copy, code built without its instrumentation), so the
// launch's counters cannot be trusted.
enum class report_kind {
  memcheck,
  racecheck,
  synccheck,
  timeout,
  exception,
  config,
  warning,
  unseen_write
};

struct report {
  report_kind kind;
  std::string text;  // in the wording of compute-sanitizer (or the emulator's own)
};

struct race {
  std::string first, second;  // "Write access at kernel+0x1c in file.cu:5"
  uint64_t hazards = 0;       // counted per byte, as racecheck does
  // Global memory (racecheck itself checks only shared memory): two blocks, or two
  // threads of one block with no __syncthreads between, touched one word.
  bool global = false;
  bool across_blocks = false;  // global: the two accesses came from different blocks
};

struct launch_record {
  std::string kernel;
  dim3 grid, block;
  launch_counters counters;
  std::vector<report> reports;  // memcheck/synccheck/timeout/exception errors, and warnings
  std::vector<race> races;
  uint64_t device_bytes_at_launch = 0;
  uint64_t schedule = 0;  // options::schedule it ran under (0: in order)
  // False when options::count_requests was off (or a seeded schedule ran it): the counters
  // made from warp requests (requests, sectors, wavefronts, bank conflicts, bytes asked
  // for) then stay 0 and mean nothing.
  bool requests_counted = true;
  cudaError_t error = cudaSuccess;
  double seconds = 0;

  bool ok() const { return error == cudaSuccess && races.empty(); }
  // The counters under Nsight Compute's metric names, one per line.
  std::string ncu_metrics() const;
  // Every report and race as compute-sanitizer would print it.
  std::string sanitizer_text() const;
};

struct options {
  std::chrono::milliseconds time_limit{std::chrono::seconds(10)};  // per launch
  bool print_reports = true;  // echo reports to stderr as they happen
  bool check_races = true;    // shared and global memory
  // 0: blocks in (z, y, x) order, threads round-robin in order (counters are measured
  // so). Any other value is the seed of a schedule that exposes order bugs: blocks in
  // reverse, shuffled or interleaved order, warps resumed in shuffled order after every
  // pass, and a switch to another thread at random memory accesses. A correct kernel
  // gives the same results under every schedule; counters are meaningful only under 0.
  uint64_t schedule = 0;
  // Gather each warp's accesses into requests for the counters (sectors, wavefronts, bank
  // conflicts). A test that reads none of them may turn it off around its launches: they
  // then cost about a fifth less CPU (lab 3 part 2's tests), with the same results, races
  // and invalid accesses. launch_record::requests_counted says which it was.
  bool count_requests = true;
};

// What a schedule seed does, in words: "blocks in reverse order, warps shuffled, ...".
std::string describe_schedule(uint64_t seed);

options& settings();
const std::vector<launch_record>& launches();
const launch_record& last_launch();  // throws std::logic_error when there was none

// Every launch since the last reset() as one record: counters summed, every report and
// race kept, the first error; `kernel` lists the kernels. Empty when nothing ran. An
// exercise is judged on all its launches: an uncoalesced launch must not hide behind a
// tidy one that follows it.
inline launch_record all_launches() {
  launch_record all;
  for (const launch_record& l : launches()) {
    if (all.kernel.empty()) {
      all = l;
      continue;
    }
    all.kernel += ", " + l.kernel;
    all.counters += l.counters;
    all.reports.insert(all.reports.end(), l.reports.begin(), l.reports.end());
    all.races.insert(all.races.end(), l.races.begin(), l.races.end());
    if (all.error == cudaSuccess) all.error = l.error;
    if (all.schedule == 0) all.schedule = l.schedule;
    all.requests_counted = all.requests_counted && l.requests_counted;
    all.seconds += l.seconds;
  }
  return all;
}
void reset();  // forgets launches; keeps allocations

uint64_t device_bytes_in_use();
uint64_t peak_device_bytes();
void reset_peak_device_bytes();

// Launches that ran in another process (marking mode runs student kernels apart from
// the tests: course/remote_device.hpp) join this one's records, and the device memory
// they allocated above what was in use there joins this one's peak, as if run here.
void adopt_launch(launch_record l);
void adopt_device_peak(uint64_t bytes_above_in_use);

}  // namespace cuda_emu
