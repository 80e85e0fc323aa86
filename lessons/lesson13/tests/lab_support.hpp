// Shared helpers for the lesson 13 CUDA lab tests: run a kernel on the emulator
// with poisoned outputs, and compare it with the double-precision matmul
// reference (reference/matmul_reference.hpp).
#pragma once

#include <algorithm>
#include <array>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <random>
#include <set>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include <catch2/catch.hpp>

#include "course/testing.hpp"
#include "course/device_buffer.hpp"
#include "cuda_emu/emulator.hpp"
#include "matmul_reference.hpp"

namespace lesson13::labs {

// Reports stay in the launch records (the tests print what matters); a hung
// kernel is stopped well inside the grader's own time limit. `schedule` 0 runs blocks
// and threads in order (the counters are measured so); see schedules(). Races are
// checked in order only: the checker follows barriers and lanes, not the order it ran
// them in, so a draw's seeded twin (which comes after it) would find the same ones. The
// twin checks outputs, invalid accesses and time.
inline void quiet_emulator(uint64_t schedule = 0) {
  cuda_emu::settings().print_reports = false;
  cuda_emu::settings().time_limit = std::chrono::seconds(4);
  cuda_emu::settings().schedule = schedule;
  cuda_emu::settings().check_races = schedule == 0;
  cuda_emu::reset();
}

// Correctness draws read no request counters (sectors, wavefronts, bank conflicts), so
// their launches skip gathering them: lab 3 part 2's tests cost about a fifth less CPU.
// One lives for each loop of draws; a counting test runs outside any (and its launches'
// requests_counted says so).
class outputs_only {
 public:
  outputs_only() { cuda_emu::settings().count_requests = false; }
  ~outputs_only() { cuda_emu::settings().count_requests = true; }
  outputs_only(const outputs_only&) = delete;
  outputs_only& operator=(const outputs_only&) = delete;
};

// The schedules a correctness test runs its i-th shape under: in order, then one
// seeded from the test's seed, the block order cycling with i (reversed, shuffled,
// interleaved from both ends), with warps shuffled and threads switching at random
// accesses. A GPU promises no order, so a correct kernel gives the same results under
// every one; one seeded schedule per shape keeps the cost at twice an in-order run.
inline std::array<uint64_t, 2> schedules(std::mt19937_64& rng, size_t i) {
  return {0, (rng() >> 16) * 3 + 3 + i % 3};  // nonzero; its value mod 3 picks the order
}

// What went wrong in a launch that must fail a correctness item whatever its results
// (a race, an invalid access, a timeout, a failed launch), as a cause line for the
// report (course::protocol::cause_prefix). Empty when nothing did.
inline std::string launch_problem(const cuda_emu::launch_record& l) {
  if (l.kernel.empty() || l.ok()) return "";
  const std::string text = l.sanitizer_text();
  std::string why;
  if (!l.races.empty())
    why = "the kernel has a data race (a result the GPU may or may not give)";
  else if (l.error == cudaErrorLaunchTimeout)
    why = "a launch timed out after " +
          std::to_string(cuda_emu::settings().time_limit.count() / 1000) + " s";
  else
    why = std::string("a launch failed (") + cudaGetErrorName(l.error) + ")";
  return std::string(course::protocol::cause_prefix) + why + ":\n" + text;
}

// The emulator's warnings (a __shared__ array it cannot see, a kernel writing static
// data) reach the report through WARN, once each, whatever the verdict.
// Device printf's warning (its figures differ launch by launch) is said once per test
// process: the policy (docs/grader.md, "Judgment calls") needs it told, not repeated.
inline void pass_on_warnings(const cuda_emu::launch_record& l) {
  static std::set<std::string> said;
  static bool printf_said = false;
  for (const auto& rep : l.reports) {
    if (rep.kind != cuda_emu::report_kind::warning) continue;
    const bool device_printf = rep.text.find("device printf:") != std::string::npos;
    if (device_printf ? std::exchange(printf_said, true) : !said.insert(rep.text).second) continue;
    WARN("the CUDA emulator: " << rep.text);
  }
}

// Said when results are wrong only under a seeded schedule.
inline std::string schedule_note(uint64_t schedule) {
  if (schedule == 0) return "schedule: " + cuda_emu::describe_schedule(0);
  return "schedule: " + cuda_emu::describe_schedule(schedule) +
         ". If the results are right in order but wrong here, the kernel depends on the order "
         "its threads or blocks run in: a missing __syncthreads(), a __syncwarp() where the "
         "whole block must wait, or blocks writing the same outputs. A GPU gives no order.";
}

// The first element of a rows x cols output that misses the reference (issue 24: the
// failing element, not only a norm): where it is, what it should be and what came back,
// whether it was ever written (outputs are poisoned with 0xFF bytes, a NaN, first), and
// for a one-thread-per-element launch the block and thread that the usual mapping (x along
// columns, y along rows) gives it. "" when every element is within `tolerance` of the
// reference, relative to the reference's largest magnitude.
inline std::string first_wrong_element(const std::vector<float>& got,
                                       const std::vector<double>& want, int rows, int cols,
                                       double tolerance, const char* name,
                                       const cuda_emu::launch_record* launch = nullptr) {
  double scale = 0;
  for (double w : want) scale = std::max(scale, std::abs(w));
  for (int r = 0; r < rows; ++r)
    for (int c = 0; c < cols; ++c) {
      const size_t i = size_t(r) * cols + c;
      const float g = got[i];
      if (std::abs(g - want[i]) <= tolerance * scale) continue;
      uint32_t bits;
      std::memcpy(&bits, &g, sizeof bits);
      std::ostringstream os;
      os.precision(7);
      os << "first wrong element: " << name << "[" << r << "][" << c << "]: expected " << want[i]
         << ", got ";
      if (bits == 0xFFFFFFFFu)
        os << "nothing (never written: it still holds the poison the test filled it with)";
      else
        os << g;
      if (launch && launch->block.x * launch->block.y > 1 && launch->grid.z == 1) {
        const unsigned bx = launch->block.x, by = launch->block.y;
        os << "; with your launch of grid (" << launch->grid.x << ", " << launch->grid.y
           << ") x block (" << bx << ", " << by << "), one thread per element would be block ("
           << c / bx << ", " << r / by << "), thread (" << c % bx << ", " << r % by << ")";
      }
      return os.str();
    }
  return {};
}

struct matmul_result {
  std::vector<float> C;
  std::vector<double> reference;   // in double
  double error = 0;                // relative to the reference's norm
  cuda_emu::launch_record launch;  // every launch the exercise made, summed
  size_t launches = 0;
};

using matmul_fn = void (*)(const float*, const float*, float*, int, int, int);

// Runs one matmul on fresh random inputs, with C poisoned first.
inline matmul_result run_matmul(matmul_fn f, std::mt19937_64& rng, int M, int N, int K,
                                uint64_t schedule = 0) {
  const std::vector<float> A = course::random_matrix(rng, M, K, 1.0),
                           B = course::random_matrix(rng, K, N, 1.0);
  device_buffer<float> dA(A), dB(B), dC(static_cast<size_t>(M) * N);
  dC.poison();
  quiet_emulator(schedule);
  f(dA.ptr, dB.ptr, dC.ptr, M, N, K);
  cuda_emu::settings().schedule = 0;
  matmul_result r;
  r.C = dC.download();
  r.reference = reference::matmul_reference(A, B, M, N, K);
  r.error = course::relative_error(r.C, r.reference);
  r.launches = cuda_emu::launches().size();
  r.launch = cuda_emu::all_launches();
  pass_on_warnings(r.launch);
  return r;
}

// One correctness check of a matmul kernel: every shape in order and under the seeded
// schedules; each run must launch cleanly (no invalid access, no timeout, no race in order) and
// match the reference.
inline void check_matmul_correct(matmul_fn f, std::mt19937_64& rng,
                                 const std::vector<std::array<int, 3>>& shapes) {
  const outputs_only outputs;
  for (size_t i = 0; i < shapes.size(); ++i) {
    const auto [M, N, K] = shapes[i];
    for (uint64_t schedule : schedules(rng, i)) {
      INFO("M=" << M << " N=" << N << " K=" << K);
      INFO(schedule_note(schedule));
      const matmul_result r = run_matmul(f, rng, M, N, K, schedule);
      const std::string problem = launch_problem(r.launch);
      INFO(problem);
      REQUIRE(problem.empty());
      INFO("relative error " << r.error << " (at most 1e-5)");
      if (r.error > 1e-5) {
        const auto launches = cuda_emu::launches();
        INFO(first_wrong_element(r.C, r.reference, M, N, 1e-5, "C",
                                 launches.empty() ? nullptr : &launches.front()));
        REQUIRE(r.error <= 1e-5);
      }
    }
  }
}

#ifdef CUDA_EMU_GPU_EDITION
// Only on a GPU (grader --gpu): C of 46,341 x 46,341 floats has more than 2^31
// elements (8.6 GB), so an index computed in int, row * N + col, overflows past the
// middle of C. K is small to keep the run short. Checks three whole rows (the first,
// the middle and the last) and 100,000 random entries against the reference.
inline void check_matmul_large(matmul_fn f, std::mt19937_64& rng) {
  const int M = 46341, N = 46341, K = 8;
  const std::vector<float> A = course::random_matrix(rng, M, K, 1.0),
                           B = course::random_matrix(rng, K, N, 1.0);
  device_buffer<float> dA(A), dB(B), dC(static_cast<size_t>(M) * N);
  if (!dC.ptr) {  // a smaller GPU: no verdict at this size, and no other failure hidden
    WARN("not run: the GPU has no room for C (8.6 GB)");
    CHECK(cudaGetLastError() == cudaErrorMemoryAllocation);
    return;
  }
  dC.poison();
  quiet_emulator();
  f(dA.ptr, dB.ptr, dC.ptr, M, N, K);
  const std::string problem = launch_problem(cuda_emu::all_launches());
  INFO("M=" << M << " N=" << N << " K=" << K << ": M * N = " << size_t(M) * N
            << " > 2^31, so row * N + col must be computed in 64 bits (size_t)");
  INFO(problem);
  REQUIRE(problem.empty());
  // Three whole rows and 100,000 random entries, read back a band of rows at a time
  // (C is 8.6 GB; the host holds 1024 rows of it, 190 MB, at once).
  std::vector<std::pair<int, int>> at;
  for (int row : {0, M / 2, M - 1})
    for (int col = 0; col < N; ++col) at.push_back({row, col});
  std::uniform_int_distribution<int> r(0, M - 1), c(0, N - 1);
  for (int i = 0; i < 100000; ++i) at.push_back({r(rng), c(rng)});
  std::sort(at.begin(), at.end());
  constexpr int kBand = 1024;
  std::vector<float> got, band;
  std::vector<double> want;
  int band_first = -1;
  for (auto [row, col] : at) {
    if (band_first < 0 || row >= band_first + kBand) {
      band_first = row;
      band = dC.download(size_t(row) * N, size_t(std::min(kBand, M - row)) * N);
    }
    double sum = 0;
    for (int k = 0; k < K; ++k) sum += double(A[size_t(row) * K + k]) * B[size_t(k) * N + col];
    want.push_back(sum);
    got.push_back(band[size_t(row - band_first) * N + col]);
  }
  const double error = course::relative_error(got, want);
  INFO("relative error on the sampled entries " << error << " (at most 1e-5)");
  REQUIRE(error <= 1e-5);
}
#endif

// The work must happen in kernels: a counting item about a kernel fails, saying so,
// when no kernel ran or the kernels read no global memory (the product computed on the
// host and copied back, say), instead of dividing by zero or counting nothing.
template <class Result>  // matmul_result, or lab 3's flash_result
void require_kernel_work(const Result& r) {
  // Before the note below, which would name a wrong cause: this one is the test's own fault
  // (its counting run inside an outputs_only scope), never the student's.
  REQUIRE(r.launch.requests_counted);
  INFO(std::string(course::protocol::cause_prefix) +
       (r.launch.kernel.empty()
            ? "no kernel was launched: the work must run on the device, in the kernel"
            : "the kernels (" + r.launch.kernel +
                  ") read no global memory: the work must happen in the kernel, not on the "
                  "host"));
  REQUIRE(r.launch.counters.global_load_requests > 0);
}

// A counting test's precondition, checked in its own scope so the note does not cling
// to the counting checks after it: this run's results right and its launches clean. On
// failure the report names the item it depends on and what this launch itself reported
// (a time limit, an invalid access, a race), so the real cause is not hidden.
template <class Result>  // matmul_result, or lab 3's flash_result
void require_precondition(const Result& r, const char* item, double tolerance) {
  const std::string own = r.launch.sanitizer_text();
  INFO(std::string(course::protocol::cause_prefix) +
       "first the results at this size must be right and the launch clean (see " + item + ")" +
       (own.empty() ? std::string() : "; this launch reported:\n" + own));
  REQUIRE(r.error <= tolerance);
  REQUIRE(launch_problem(r.launch).empty());
}

}  // namespace lesson13::labs
