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

#include "cuda_emu/cuda.hpp"

namespace cuda_emu {

// Summed over the launch. Requests are warp-level instructions: the k-th
// execution of one access by each lane of a warp is one request.
struct launch_counters {
  uint64_t global_load_requests = 0, global_load_sectors = 0, global_load_ideal_sectors = 0;
  uint64_t global_store_requests = 0, global_store_sectors = 0, global_store_ideal_sectors = 0;
  uint64_t shared_load_requests = 0, shared_load_wavefronts = 0, shared_load_bank_conflicts = 0;
  uint64_t shared_store_requests = 0, shared_store_wavefronts = 0, shared_store_bank_conflicts = 0;
  uint64_t global_load_bytes = 0, global_store_bytes = 0;  // bytes the threads asked for
  // GPU-Puzzles style: the most any single thread did.
  uint64_t max_thread_global_reads = 0, max_thread_global_writes = 0;
  uint64_t max_thread_shared_reads = 0, max_thread_shared_writes = 0;

  double global_load_sectors_per_request() const;
  double global_store_sectors_per_request() const;
  // Sectors beyond what the requested bytes need if they were contiguous (ncu's
  // "excessive sectors").
  uint64_t global_excessive_sectors() const;
};

enum class report_kind { memcheck, racecheck, synccheck, timeout, exception, config, warning };

struct report {
  report_kind kind;
  std::string text;  // in the wording of compute-sanitizer (or the emulator's own)
};

struct race {
  std::string first, second;  // "Write access at kernel+0x1c in file.cu:5"
  uint64_t hazards = 0;       // counted per byte, as racecheck does
};

struct launch_record {
  std::string kernel;
  dim3 grid, block;
  launch_counters counters;
  std::vector<report> reports;  // memcheck/synccheck/timeout/exception errors, and warnings
  std::vector<race> races;
  uint64_t device_bytes_at_launch = 0;
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
  bool check_races = true;
};

options& settings();
const std::vector<launch_record>& launches();
const launch_record& last_launch();  // throws std::logic_error when there was none
void reset();                        // forgets launches; keeps allocations

uint64_t device_bytes_in_use();
uint64_t peak_device_bytes();
void reset_peak_device_bytes();

}  // namespace cuda_emu
