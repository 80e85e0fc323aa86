// Helpers for lab 0's tests (test_warmup.cpp, and the hidden tests that reuse them): run
// one of the warm-up functions on the emulator with its output poisoned, and compare the
// output with a double-precision reference element by element, naming the first wrong
// element with the block and thread that the lab's launch gives it.
#pragma once

#include <cmath>
#include <cstdint>
#include <cstring>
#include <functional>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "lab_support.hpp"
#include "warmup_lab.hpp"

namespace lesson13::warmup {

using labs::launch_problem;
using labs::pass_on_warnings;
using labs::quiet_emulator;

inline std::vector<float> random_vector(std::mt19937_64& rng, size_t n, float lo, float hi) {
  std::uniform_real_distribution<float> u(lo, hi);
  std::vector<float> v(n);
  for (float& e : v) e = u(rng);
  return v;
}

// What a run gave back: the poisoned-then-written output and every launch, summed.
struct run_result {
  std::vector<float> out;
  cuda_emu::launch_record launch;
};

// Runs `call` under `schedule` (labs::schedules) with `out` poisoned first.
inline run_result run(const std::function<void()>& call, device_buffer<float>& out,
                      uint64_t schedule) {
  out.poison();
  quiet_emulator(schedule);
  call();
  cuda_emu::settings().schedule = 0;
  run_result r;
  r.out = out.download();
  r.launch = cuda_emu::all_launches();
  pass_on_warnings(r.launch);
  return r;
}

// Where element `index` of an output sits, for the report. `cols` 0: a vector of which
// block b owns [b * per_block, (b + 1) * per_block); otherwise a rows x cols matrix.
struct layout {
  const char* name;
  int cols = 0;
  int per_block = kWarmupBlock;
  bool threads = true;  // name the thread that the lab's one-per-element launch gives it
};

inline std::string position(const layout& at, size_t index) {
  std::ostringstream os;
  if (at.cols == 0) {
    os << at.name << "[" << index << "]";
    if (at.threads)
      os << " (block " << index / at.per_block << ", thread " << index % at.per_block << ")";
  } else {
    const size_t r = index / at.cols, c = index % at.cols;
    os << at.name << "[" << r << "][" << c << "]";
    if (at.threads)
      os << " (block (" << c / 32 << ", " << r / 8 << "), thread (" << c % 32 << ", " << r % 8
         << ") of the 32 x 8 blocks)";
  }
  return os.str();
}

// The first element of `got` further than `tolerance[i]` from `want[i]`, as a line for
// the report; "" when every element is close. NaN never is: outputs start as NaN.
inline std::string first_wrong(const std::vector<float>& got, const std::vector<double>& want,
                               const std::vector<double>& tolerance, const layout& at) {
  if (got.size() != want.size()) return "the output has the wrong size";
  for (size_t i = 0; i < got.size(); ++i) {
    if (std::abs(double(got[i]) - want[i]) <= tolerance[i]) continue;
    uint32_t bits;
    std::memcpy(&bits, &got[i], sizeof bits);
    std::ostringstream os;
    os.precision(8);
    os << "first wrong element: " << position(at, i) << ": expected " << want[i] << ", got ";
    if (bits == 0xFFFFFFFFu)
      os << "nothing (never written: it still holds the poison the test filled it with)";
    else
      os << got[i];
    return os.str();
  }
  return {};
}

// One correctness check: the run's launches clean (no race, no invalid access, no time
// out) and every element within its tolerance.
inline void require_right(const run_result& r, const std::vector<double>& want,
                          const std::vector<double>& tolerance, const layout& at) {
  const std::string problem = launch_problem(r.launch);
  INFO(problem);
  REQUIRE(problem.empty());
  const std::string wrong = first_wrong(r.out, want, tolerance, at);
  INFO(wrong);
  REQUIRE(wrong.empty());
}

// A relative tolerance for each element of a float result of moderate size.
inline std::vector<double> relative(const std::vector<double>& want, double rel) {
  std::vector<double> t(want.size());
  for (size_t i = 0; i < want.size(); ++i) t[i] = rel * std::abs(want[i]) + 1e-30;
  return t;
}

// Expected sums in double, each with the tolerance its float computation gets.
struct segment_sums {
  std::vector<double> sum, tolerance;
};

// Sums of each `per_block` elements of x (block sums and warp sums): float additions in
// any order stay within 1e-5 of the sum of |x|.
inline segment_sums sums_of(const std::vector<float>& x, int per_block) {
  segment_sums s;
  for (size_t b = 0; b * per_block < x.size(); ++b) {
    double sum = 0, magnitude = 0;
    for (size_t i = b * per_block; i < std::min(x.size(), (b + 1) * per_block); ++i) {
      sum += x[i];
      magnitude += std::abs(double(x[i]));
    }
    s.sum.push_back(sum);
    s.tolerance.push_back(1e-5 * magnitude + 1e-6);
  }
  return s;
}

// A + B element by element, in double, and a tolerance for each float sum.
inline segment_sums elementwise_sums(const std::vector<float>& A, const std::vector<float>& B) {
  segment_sums s;
  for (size_t i = 0; i < A.size(); ++i) {
    s.sum.push_back(double(A[i]) + B[i]);
    s.tolerance.push_back(1e-6 * (std::abs(A[i]) + std::abs(B[i])) + 1e-30);
  }
  return s;
}

// Inclusive prefix sums within each block of kWarmupBlock elements, and tolerances.
inline segment_sums prefix_sums(const std::vector<float>& x) {
  segment_sums s;
  double sum = 0, magnitude = 0;
  for (size_t i = 0; i < x.size(); ++i) {
    if (i % kWarmupBlock == 0) sum = magnitude = 0;
    sum += x[i];
    magnitude += std::abs(double(x[i]));
    s.sum.push_back(sum);
    s.tolerance.push_back(1e-5 * magnitude + 1e-6);
  }
  return s;
}

}  // namespace lesson13::warmup
