// Shared by the online_softmax exercise's test files (test_online_softmax.cpp: the update
// and the normalisation; test_online_softmax.attention.cpp: flash_attention on whole
// problems): the tolerances, the kinds of score rows, and the comparisons and sentinel
// both read their results with.
#pragma once

#include <algorithm>
#include <cmath>
#include <limits>
#include <sstream>
#include <string>
#include <vector>

namespace lesson13::softmax_tests {

inline constexpr double kInf = std::numeric_limits<double>::infinity();
inline constexpr float kNegInf = -std::numeric_limits<float>::infinity();

// ---------------------------------------------------------------------------
// Tolerances: float's worst-case rounding error for the shape, so that no correct
// program fails on any draw, whatever its order of operations (double accumulators,
// log-sum-exp state, exp2(x * log2 e), merged partial blocks, a guard on l), while
// the real bugs miss by orders of magnitude. A value may be off by kSafety * budget *
// u (u = 2^-24) times the magnitude it is summed from: l itself; sum_c w_c |V[c][k]|
// for the update's O[k]; M = sum_c P[r][c] |V[c][k]| for an output element. In ulps:
//   exp's argument: a d-term dot product is off by <= d u A, A = max_c sum_k |q_k k_ck|;
//       subtracting m and the chain of exp(m_old - m_new) add <= 6 u R (R the row's
//       score range <= 2 A; exp2 with a rounded log2(e) included): (d + 12) A, or 8 R
//       when the scores are given exactly. A weight off by e^eta moves a normalised
//       O by <= 2 eta M, hence 2 (d + 12) A for flash_attention's output;
//   2 Bc: summing one block into l and into O;
//   (8 + ln(1 + keys)) per block: exp, scale, the multiply-adds that merge the block,
//       and the rounding of ln l for log-sum-exp state;
//   40: exp and the final division, and a guard eps <= 2^-19 added to l >= 1 (l ends
//       >= 1: the max's own weight is exp(0) = 1).
// kSafety = 4 covers second-order terms and libm's exp (a few ulp).
inline constexpr double kUnitRoundoff = 0x1p-24;
inline constexpr double kSafety = 4.0;
inline constexpr double kFinalUlps = 40.0;

inline double per_block_ulps(int keys) {
  return 8.0 + std::log1p(static_cast<double>(keys));
}

// flash_attention's output row: n keys in blocks of block_size, d-term dot products.
inline double flash_budget(int n, int d, int block_size, double A) {
  const int Bc = std::min(block_size, n), blocks = (n + block_size - 1) / block_size;
  return 2.0 * (d + 12) * A + 2.0 * Bc + per_block_ulps(n) * blocks + kFinalUlps;
}

// The update's state after `blocks` blocks (widest Bc_max) of exact scores with range R.
inline double update_budget(double R, int Bc_max, int blocks, int keys) {
  return 8.0 * R + 2.0 * Bc_max + per_block_ulps(keys) * blocks + kFinalUlps;
}

inline double tolerance(double budget, double magnitude) {
  return kSafety * budget * kUnitRoundoff * magnitude + 1e-30;
}

inline std::string fmt_num(double x) {
  std::ostringstream os;
  os.precision(7);
  os << x;
  return os.str();
}

// ---------------------------------------------------------------------------
// Rows of scores: the kinds a correct update must handle.
enum class row_kind { ordinary, wide, ties, late_max, far_below, far_above, jump_up };
inline constexpr row_kind kAllKinds[] = {
    row_kind::ordinary,  row_kind::wide,      row_kind::ties,   row_kind::late_max,
    row_kind::far_below, row_kind::far_above, row_kind::jump_up};

inline const char* describe(row_kind k) {
  switch (k) {
    case row_kind::ordinary:
      return "ordinary scores";
    case row_kind::wide:
      return "scores spread over +-100 (the max moves a lot)";
    case row_kind::ties:
      return "repeated scores and tied maxima";
    case row_kind::late_max:
      return "the max arrives in the last block";
    case row_kind::far_below:
      return "all scores ~ -1000";
    case row_kind::far_above:
      return "all scores ~ +1000";
    case row_kind::jump_up:
      return "scores ~ -1000, then ~ +1000 in the last block";
  }
  return "?";
}

// Comparisons for the diagnoses: got within 1e-3 of want (a scalar, or a vector in norm).
inline bool close(double got, double want) {
  return std::isfinite(want) && std::abs(got - want) <= 1e-3 * std::abs(want) + 1e-30;
}

inline bool close(const std::vector<double>& got, const std::vector<double>& want) {
  double diff = 0.0, norm = 0.0;
  for (size_t k = 0; k < got.size(); ++k) {
    diff += (got[k] - want[k]) * (got[k] - want[k]);
    norm += want[k] * want[k];
  }
  return std::isfinite(diff) && std::sqrt(diff) <= 1e-3 * std::sqrt(norm) + 1e-30;
}

inline constexpr float kSentinel = 7.25f;  // after O's n x d elements: must stay untouched

inline bool sentinel_intact(const std::vector<float>& O_with_sentinel) {
  return std::all_of(O_with_sentinel.end() - 8, O_with_sentinel.end(),
                     [](float x) { return x == kSentinel; });
}

}  // namespace lesson13::softmax_tests
