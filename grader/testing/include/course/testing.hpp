// Helpers for lesson tests: fresh random inputs from Catch2's seed, poisoned
// outputs, and error measures against a double-precision reference.
//   Run a lesson's tests with a new seed:   lesson13_tests --rng-seed time
//   Reproduce a failure:                    lesson13_tests --rng-seed <printed seed>
#pragma once

#include <catch2/catch.hpp>

#include <cmath>
#include <cstdint>
#include <functional>
#include <limits>
#include <random>
#include <string_view>
#include <vector>

#include "course/protocol.hpp"

namespace course {

// A generator for one test: the run's seed mixed with the test's own name, so
// tests draw different inputs but one --rng-seed reproduces all of them.
inline std::mt19937_64 test_rng(std::string_view test_name) {
  const std::uint64_t seed = Catch::rngSeed();
  return std::mt19937_64(seed * 0x9E3779B97F4A7C15ull ^ std::hash<std::string_view>{}(test_name));
}

// A line for INFO(): how to reproduce this run.
inline std::string seed_note() {
  return protocol::seed_line(Catch::rngSeed());
}

inline std::vector<float> random_matrix(std::mt19937_64& rng, long rows, long cols, double scale) {
  std::normal_distribution<float> dist(0.0f, static_cast<float>(scale));
  std::vector<float> m(static_cast<size_t>(rows * cols));
  for (auto& x : m) x = dist(rng);
  return m;
}

// NaN everywhere: an output the code under test forgets to write stays NaN.
inline void poison(std::vector<float>& out) {
  std::fill(out.begin(), out.end(), std::numeric_limits<float>::quiet_NaN());
}

inline bool all_finite(const std::vector<float>& v) {
  for (float x : v)
    if (!std::isfinite(x)) return false;
  return true;
}

// ||got - ref|| / ||ref|| (Frobenius), computed in double; +inf if got has a
// non-finite entry, so NaN never passes a comparison.
inline double relative_error(const std::vector<float>& got, const std::vector<double>& ref) {
  if (got.size() != ref.size()) return std::numeric_limits<double>::infinity();
  double diff = 0.0, norm = 0.0;
  for (size_t i = 0; i < got.size(); ++i) {
    if (!std::isfinite(got[i])) return std::numeric_limits<double>::infinity();
    const double e = static_cast<double>(got[i]) - ref[i];
    diff += e * e;
    norm += ref[i] * ref[i];
  }
  return std::sqrt(diff) / std::max(std::sqrt(norm), std::numeric_limits<double>::min());
}

}  // namespace course
