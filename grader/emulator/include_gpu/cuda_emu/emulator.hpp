// The emulator's test API for a real GPU (COURSE_CUDA=ON builds): the same names,
// so lesson tests compile unchanged, but a GPU has no emulator counters. Tests
// that need counters or sanitizer reports are tagged [emulator] and are not run
// on a GPU; the rest use launches()/last_launch() for the launch's error only.
#pragma once

// Tests may check this to run what only a GPU can (sizes too large to emulate).
#define CUDA_EMU_GPU_EDITION 1

#include <cuda_runtime.h>

#include "../../include/cuda_emu/counters.hpp"  // the one definition of the counters

#include <chrono>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

namespace cuda_emu {

enum class report_kind { memcheck, racecheck, synccheck, timeout, exception, config, warning };

struct report {
  report_kind kind;
  std::string text;
};

struct race {
  std::string first, second;
  uint64_t hazards = 0;
  bool global = false, across_blocks = false;
};

struct launch_record {
  std::string kernel = "(GPU)";
  dim3 grid, block;  // not recorded on a GPU: (1, 1, 1)
  launch_counters counters;
  std::vector<report> reports;  // none: use compute-sanitizer on a GPU
  std::vector<race> races;
  uint64_t schedule = 0;
  bool requests_counted = false;  // a GPU counts nothing here (ncu does)
  cudaError_t error = cudaSuccess;
  bool ok() const { return error == cudaSuccess; }
  std::string ncu_metrics() const { return "(counters come from the emulator or from ncu)\n"; }
  std::string sanitizer_text() const {
    return error == cudaSuccess ? "" : cudaGetErrorString(error);
  }
};

struct options {
  std::chrono::milliseconds time_limit{std::chrono::seconds(10)};
  bool print_reports = true;
  bool check_races = true;
  uint64_t schedule = 0;       // ignored: the GPU schedules its own way
  bool count_requests = true;  // ignored: nothing is counted on a GPU
};

inline options& settings() {
  static options o;
  return o;
}

inline std::string describe_schedule(uint64_t) {
  return "the GPU's own (a seeded schedule is the emulator's)";
}

namespace detail {
inline std::vector<launch_record>& records() {
  static std::vector<launch_record> r;
  return r;
}
}  // namespace detail

// On a GPU the "launch record" is the state after synchronising: one record, with
// the sticky or last error.
inline const std::vector<launch_record>& launches() {
  auto& r = detail::records();
  r.assign(1, launch_record{});
  r[0].error = cudaDeviceSynchronize();
  if (r[0].error == cudaSuccess) r[0].error = cudaGetLastError();
  return r;
}
inline const launch_record& last_launch() {
  return launches().back();
}
inline launch_record all_launches() {
  return last_launch();
}
inline void reset() {
  cudaDeviceSynchronize();
  cudaGetLastError();
}
inline uint64_t device_bytes_in_use() {
  return 0;
}
inline uint64_t peak_device_bytes() {
  return 0;
}
inline void reset_peak_device_bytes() {}

}  // namespace cuda_emu
