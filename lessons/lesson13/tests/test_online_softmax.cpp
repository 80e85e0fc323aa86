// Tests for the lesson 13 C++ exercise (online_softmax.cpp) against the
// double-precision references. Each test's tag is the rubric item it earns
// (lessons/lesson13/manifest.json); [veto:exam:<id>] tests detect a misconception.
// Every property runs over many draws (block widths 1..160, n 1..300, d 1..64, rows
// far below and far above zero, ties, a max that arrives in the last block), with
// tolerances from float's rounding-error bound of each shape (see "Tolerances").
//   build/bin/lesson13_online_softmax_tests --rng-seed time   # all, fresh inputs
//   build/bin/lesson13_online_softmax_tests "[code.update]"   # one rubric item
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <iterator>
#include <limits>
#include <sstream>
#include <string>
#include <vector>

#include "attention_reference.hpp"
#include "course/alloc_count.hpp"
#include "course/testing.hpp"
#include "online_softmax.hpp"

namespace ref = lesson13::reference;
using course::random_matrix;
using course::relative_error;

namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();
constexpr float kNegInf = -std::numeric_limits<float>::infinity();

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
constexpr double kUnitRoundoff = 0x1p-24;
constexpr double kSafety = 4.0;
constexpr double kFinalUlps = 40.0;

double per_block_ulps(int keys) {
  return 8.0 + std::log1p(static_cast<double>(keys));
}

// flash_attention's output row: n keys in blocks of block_size, d-term dot products.
double flash_budget(int n, int d, int block_size, double A) {
  const int Bc = std::min(block_size, n), blocks = (n + block_size - 1) / block_size;
  return 2.0 * (d + 12) * A + 2.0 * Bc + per_block_ulps(n) * blocks + kFinalUlps;
}

// The update's state after `blocks` blocks (widest Bc_max) of exact scores with range R.
double update_budget(double R, int Bc_max, int blocks, int keys) {
  return 8.0 * R + 2.0 * Bc_max + per_block_ulps(keys) * blocks + kFinalUlps;
}

double tolerance(double budget, double magnitude) {
  return kSafety * budget * kUnitRoundoff * magnitude + 1e-30;
}

std::string fmt_num(double x) {
  std::ostringstream os;
  os.precision(7);
  os << x;
  return os.str();
}

// ---------------------------------------------------------------------------
// Rows of scores: the kinds a correct update must handle.
enum class row_kind { ordinary, wide, ties, late_max, far_below, far_above, jump_up };
constexpr row_kind kAllKinds[] = {row_kind::ordinary, row_kind::wide,      row_kind::ties,
                                  row_kind::late_max, row_kind::far_below, row_kind::far_above,
                                  row_kind::jump_up};

const char* describe(row_kind k) {
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

double as_float(double x) {
  return static_cast<double>(static_cast<float>(x));
}

// One row's scores over keys split into blocks of `widths`, exactly representable.
std::vector<double> draw_scores(std::mt19937_64& rng, row_kind kind,
                                const std::vector<int>& widths) {
  int total = 0;
  for (int w : widths) total += w;
  const int last_start = total - widths.back();
  std::normal_distribution<double> normal(0.0, 1.0);
  std::uniform_int_distribution<int> small_int(-2, 2);
  std::vector<double> s(total);
  for (int c = 0; c < total; ++c) {
    switch (kind) {
      case row_kind::ordinary:
        s[c] = normal(rng);
        break;
      case row_kind::wide:
        s[c] = 30.0 * normal(rng);
        break;
      case row_kind::ties:
        s[c] = small_int(rng);
        break;
      case row_kind::late_max:
        s[c] = 2.0 * normal(rng);
        break;
      case row_kind::far_below:
        s[c] = -1000.0 + 3.0 * normal(rng);
        break;
      case row_kind::far_above:
        s[c] = 1000.0 + 3.0 * normal(rng);
        break;
      case row_kind::jump_up:
        s[c] = (c < last_start ? -1000.0 : 1000.0) + 3.0 * normal(rng);
        break;
    }
    s[c] = as_float(s[c]);
  }
  if (kind == row_kind::late_max) {
    const double before = *std::max_element(s.begin(), s.end());
    std::uniform_int_distribution<int> where(last_start, total - 1);
    s[where(rng)] = as_float(before + 8.0 + 2.0 * std::abs(normal(rng)));
  }
  return s;
}

// ---------------------------------------------------------------------------
// The online update, run block by block and checked after every block.
struct update_case {
  int Br = 1, d = 1;
  std::vector<int> widths;
  std::vector<row_kind> kinds;         // per query row
  std::vector<std::vector<double>> S;  // per query row, all keys
  std::vector<float> V;                // keys x d
};

update_case make_update_case(std::mt19937_64& rng, std::vector<row_kind> kinds,
                             std::vector<int> widths, int d) {
  update_case uc;
  uc.Br = static_cast<int>(kinds.size());
  uc.d = d;
  uc.widths = std::move(widths);
  uc.kinds = std::move(kinds);
  int total = 0;
  for (int w : uc.widths) total += w;
  for (row_kind k : uc.kinds) uc.S.push_back(draw_scores(rng, k, uc.widths));
  uc.V = random_matrix(rng, total, d, 1.0);
  return uc;
}

std::string describe(const update_case& uc) {
  std::ostringstream os;
  os << "Br=" << uc.Br << " d=" << uc.d << ", key blocks of width";
  for (int w : uc.widths) os << ' ' << w;
  return os.str();
}

// Alternative update rules, simulated in double to name what a wrong state equals.
enum class rule { right, l_not_rescaled, o_not_rescaled, normalise_every_block };

struct sim_state {
  double m = -kInf, l = 0.0;
  std::vector<double> O;
};

sim_state simulate(rule how, const std::vector<double>& s, const std::vector<int>& widths,
                   int blocks, const std::vector<float>& V, int d) {
  sim_state st;
  st.O.assign(d, 0.0);
  int offset = 0;
  for (int j = 0; j < blocks; ++j) {
    const int Bc = widths[j];
    double m_new = st.m;
    for (int c = 0; c < Bc; ++c) m_new = std::max(m_new, s[offset + c]);
    const double scale = std::exp(st.m - m_new);
    double p_sum = 0.0;
    std::vector<double> pv(d, 0.0);
    for (int c = 0; c < Bc; ++c) {
      const double p = std::exp(s[offset + c] - m_new);
      p_sum += p;
      for (int k = 0; k < d; ++k) pv[k] += p * V[static_cast<size_t>(offset + c) * d + k];
    }
    const double l_new = (how == rule::l_not_rescaled ? st.l : st.l * scale) + p_sum;
    for (int k = 0; k < d; ++k) {
      st.O[k] = (how == rule::o_not_rescaled ? st.O[k] : st.O[k] * scale) + pv[k];
      if (how == rule::normalise_every_block) st.O[k] /= l_new;
    }
    st.m = m_new;
    st.l = l_new;
    offset += Bc;
  }
  return st;
}

bool close(double got, double want) {
  return std::isfinite(want) && std::abs(got - want) <= 1e-3 * std::abs(want) + 1e-30;
}

bool close(const std::vector<double>& got, const std::vector<double>& want) {
  double diff = 0.0, norm = 0.0;
  for (size_t k = 0; k < got.size(); ++k) {
    diff += (got[k] - want[k]) * (got[k] - want[k]);
    norm += want[k] * want[k];
  }
  return std::isfinite(diff) && std::sqrt(diff) <= 1e-3 * std::sqrt(norm) + 1e-30;
}

// What is wrong with one row's state after `blocks` blocks, in the lesson's terms.
std::string diagnose_update_row(const update_case& uc, int r, int blocks, float m_got, float l_got,
                                const std::vector<double>& O_got, const ref::row_statistics& want) {
  std::ostringstream os;
  const std::vector<double>& s = uc.S[r];
  int seen = 0, last_start = 0;
  for (int j = 0; j < blocks; ++j) {
    last_start = seen;
    seen += uc.widths[j];
  }
  // plain_l: the weights with no max subtracted; l_at_m_got: with the code's own m.
  double mean = 0.0, plain_l = 0.0, l_at_m_got = 0.0;
  for (int c = 0; c < seen; ++c) {
    mean += s[c] / seen;
    plain_l += std::exp(s[c]);
    l_at_m_got += std::exp(s[c] - m_got);
  }
  const double block_max = *std::max_element(s.begin() + last_start, s.begin() + seen);
  bool O_inf = false, O_nan = false;
  for (double x : O_got) {
    O_inf |= std::isinf(x);
    O_nan |= std::isnan(x);
  }
  if (static_cast<double>(m_got) != want.m) {
    os << "m_new is not the row's largest score: m = " << fmt_num(m_got)
       << " but the largest score "
       << "so far is " << fmt_num(want.m) << ".";
    if (static_cast<double>(m_got) == block_max)
      os << " It is this block's own max: fold in the old one, m_new = max(m_old, block max).";
    else if (m_got == 0.0f)
      os << " m is 0: it is never updated, or it starts at 0 above scores that are all below 0.";
    os << ' ';
  }
  if (std::isinf(l_got) || O_inf) {
    os << "l or O overflowed to inf: exp(score - m) overflows unless m is the running max, so "
          "that exp's argument is <= 0. ";
  } else if (std::isnan(l_got) || O_nan) {
    os << "l or O is NaN (0 * inf or inf - inf): on the first block m_old = -inf, so scale = "
          "exp(m_old - m_new) is 0 there (exp(m_new - m_old) would be inf, and 0 * inf is NaN). ";
  } else if (l_got == 0.0f && want.l > 0.0) {
    if (want.m < -100.0)
      os << "l became 0 on a row whose scores are all ~ " << fmt_num(std::round(mean))
         << ": exp underflowed; the running max must start at -inf so the first block sets it. ";
    else
      os << "l is 0: the row's weights exp(score - m_new) were never added. ";
  } else if (static_cast<double>(m_got) != want.m) {
    if (close(l_got, l_at_m_got))
      os << "l agrees with that m: only m is wrong, and exp(score - m) overflows once a score "
            "lies far above m. ";
  } else {
    const sim_state l_bug = simulate(rule::l_not_rescaled, s, uc.widths, blocks, uc.V, uc.d);
    const sim_state o_bug = simulate(rule::o_not_rescaled, s, uc.widths, blocks, uc.V, uc.d);
    const sim_state n_bug = simulate(rule::normalise_every_block, s, uc.widths, blocks, uc.V, uc.d);
    std::vector<double> normalised(want.O);
    for (double& x : normalised) x /= want.l;
    if (!close(l_got, want.l)) {
      if (close(l_got, plain_l))
        os << "l is the sum of exp(score) with no max subtracted: the weights are exp(score - "
              "m_new), which keeps exp's argument <= 0. ";
      else if (close(l_got, l_bug.l))
        os << "l_new is the old l plus this block's sum without re-basing: multiply the old l "
              "by scale = exp(m_old - m_new). ";
      else
        os << "l_new is wrong: l = " << fmt_num(l_got) << " but the sum of exp(score - m) over "
           << "the scores seen is " << fmt_num(want.l)
           << "; l_new = l_old * exp(m_old - m_new) + sum_c exp(s_c - m_new). ";
    }
    if (!close(O_got, want.O)) {
      if (close(O_got, o_bug.O))
        os << "O was not re-based: multiply the old O row by scale = exp(m_old - m_new) before "
              "adding p_ij V_j. ";
      else if (close(O_got, n_bug.O) || close(O_got, normalised))
        os << "O was divided by l inside the update: O stays unnormalised until normalize_rows. ";
      else
        os << "O is wrong: O_new = O_old * exp(m_old - m_new) + sum_c exp(s_c - m_new) V_j[c]. ";
    }
  }
  return os.str();
}

// Runs the update over the case's blocks from the initial state (m = -inf, l = 0,
// O = 0) and checks m, l and O of every row after every block.
void check_update_case(const update_case& uc) {
  const int Br = uc.Br, d = uc.d;
  std::vector<float> m(Br, kNegInf), l(Br, 0.0f), O(static_cast<size_t>(Br) * d, 0.0f);
  double worst = 0.0;  // in units of each value's rounding-error bound
  bool m_is_max = true;
  std::string failure;
  int offset = 0, Bc_max = 0;
  for (size_t j = 0; j < uc.widths.size() && failure.empty(); ++j) {
    const int Bc = uc.widths[j];
    Bc_max = std::max(Bc_max, Bc);
    std::vector<float> S_ij(static_cast<size_t>(Br) * Bc);
    for (int r = 0; r < Br; ++r)
      for (int c = 0; c < Bc; ++c)
        S_ij[static_cast<size_t>(r) * Bc + c] = static_cast<float>(uc.S[r][offset + c]);
    // A copy of V_j: the references read uc.V, whatever the update writes into its input.
    const auto V_begin = uc.V.begin() + static_cast<long>(offset) * d;
    std::vector<float> V_j(V_begin, V_begin + static_cast<long>(Bc) * d);
    lesson13::online_softmax_update(S_ij.data(), V_j.data(), Br, Bc, d, m.data(), l.data(),
                                    O.data());
    if (!std::equal(V_j.begin(), V_j.end(), V_begin)) {
      failure =
          "online_softmax_update wrote into its input V_j, which is const: it must only "
          "read it";
      break;
    }
    offset += Bc;
    const int blocks = static_cast<int>(j) + 1;
    for (int r = 0; r < Br && failure.empty(); ++r) {
      const std::vector<double> seen(uc.S[r].begin(), uc.S[r].begin() + offset);
      const ref::row_statistics want = ref::row_stats(seen, uc.V, d);
      const double R = want.m - *std::min_element(seen.begin(), seen.end());
      const double budget = update_budget(R, Bc_max, blocks, offset);
      double row_worst = std::abs(l[r] - want.l) / tolerance(budget, want.l);
      std::vector<double> O_row(d);
      for (int k = 0; k < d; ++k) {
        O_row[k] = O[static_cast<size_t>(r) * d + k];
        row_worst =
            std::max(row_worst, std::abs(O_row[k] - want.O[k]) / tolerance(budget, want.O_abs[k]));
      }
      if (!(row_worst <= 1.0) || static_cast<double>(m[r]) != want.m) {
        worst = std::isnan(row_worst) ? kInf : row_worst;
        m_is_max = static_cast<double>(m[r]) == want.m;
        std::ostringstream os;
        os << describe(uc) << ": query row " << r << " (" << describe(uc.kinds[r])
           << ") after block " << blocks << " of " << uc.widths.size() << ": m = " << fmt_num(m[r])
           << ", l = " << fmt_num(l[r]) << " (want m = " << fmt_num(want.m)
           << ", l = " << fmt_num(want.l) << "); "
           << diagnose_update_row(uc, r, blocks, m[r], l[r], O_row, want);
        failure = os.str();
      }
    }
  }
  INFO(failure);
  INFO(
      "the state after each block must be the whole-row statistics of the scores seen so far: "
      "m = their max, l = sum exp(s - m), O = sum exp(s - m) V");
  REQUIRE(m_is_max);
  REQUIRE(worst <= 1.0);
  REQUIRE(failure.empty());
}

std::vector<row_kind> random_kinds(std::mt19937_64& rng, int Br) {
  std::uniform_int_distribution<int> pick(0, static_cast<int>(std::size(kAllKinds)) - 1);
  std::vector<row_kind> kinds(Br);
  for (auto& k : kinds) k = kAllKinds[pick(rng)];
  return kinds;
}

// Block widths from 1 to 160: many around the common 32 and 64, and 128.
int random_width(std::mt19937_64& rng) {
  static constexpr int kCommon[] = {1, 2, 3, 31, 32, 33, 48, 64, 65, 100, 127, 128, 129, 160};
  std::uniform_int_distribution<int> coin(0, 1), any(1, 160),
      common(0, static_cast<int>(std::size(kCommon)) - 1);
  return coin(rng) ? any(rng) : kCommon[common(rng)];
}

// ---------------------------------------------------------------------------
// flash_attention on whole problems.
enum class problem_kind { random, ties, structured };

struct problem {
  int n = 1, d = 1, block_size = 1;
  problem_kind kind = problem_kind::random;
  double q_scale = 0.5;
  std::vector<row_kind> rows;  // structured: what each query row's scores look like
  std::vector<float> Q, K, V;
};

std::string describe(const problem& p) {
  std::ostringstream os;
  os << "n=" << p.n << " d=" << p.d << " block_size=" << p.block_size << ", "
     << (p.kind == problem_kind::random ? "random Q, K, V"
         : p.kind == problem_kind::ties ? "small-integer scores (ties), repeated keys"
                                        : "rows far below / far above zero, late max, ties, "
                                          "wide");
  if (p.kind == problem_kind::random) os << " (q_scale " << p.q_scale << ")";
  return os.str();
}

// Structured problems (d >= 3) steer each query row through two reserved columns:
// K's column 0 is 10 for every key, so q_0 = -100 / +100 puts the whole row near
// -1000 / +1000, and q_0 = 0.1 with nothing else makes every score equal; column 1
// is 0 except at one key of the last block, so q_1 = 1 makes that key the row's max.
// Wide rows scale the other columns so that their scores spread with std ~ 100.
problem make_problem(std::mt19937_64& rng, int n, int d, int block_size, problem_kind kind,
                     double q_scale = 0.5) {
  problem p;
  p.n = n;
  p.d = d;
  p.block_size = block_size;
  p.kind = (kind == problem_kind::structured && d < 3) ? problem_kind::random : kind;
  p.q_scale = q_scale;
  p.V = random_matrix(rng, n, d, 1.0);
  p.rows.assign(n, row_kind::ordinary);
  if (p.kind == problem_kind::random) {
    p.Q = random_matrix(rng, n, d, q_scale);
    p.K = random_matrix(rng, n, d, 0.5);
  } else if (p.kind == problem_kind::ties) {
    std::uniform_int_distribution<int> q(-1, 1), k(-1, 1), period(1, 20);
    p.Q.resize(static_cast<size_t>(n) * d);
    p.K.resize(static_cast<size_t>(n) * d);
    for (auto& x : p.Q) x = static_cast<float>(q(rng));
    const int repeat = period(rng);  // keys repeat: equal maxima in different blocks
    for (int c = 0; c < n; ++c)
      for (int t = 0; t < d; ++t)
        p.K[static_cast<size_t>(c) * d + t] = c < repeat
                                                  ? 0.5f * static_cast<float>(k(rng))
                                                  : p.K[static_cast<size_t>(c % repeat) * d + t];
    p.rows.assign(n, row_kind::ties);
  } else {
    p.Q = random_matrix(rng, n, d, q_scale);
    p.K = random_matrix(rng, n, d, 0.5);
    const int last_start = (n - 1) / block_size * block_size;
    const int spike_key = std::uniform_int_distribution<int>(last_start, n - 1)(rng);
    const double noise = q_scale * 0.5 * std::sqrt(d - 2.0);  // std of the other columns' sum
    for (int c = 0; c < n; ++c) {
      p.K[static_cast<size_t>(c) * d + 0] = 10.0f;
      p.K[static_cast<size_t>(c) * d + 1] =
          c == spike_key ? static_cast<float>(10.0 + 6.0 * noise) : 0.0f;
    }
    static constexpr row_kind kCycle[] = {row_kind::ordinary,  row_kind::late_max,
                                          row_kind::far_below, row_kind::far_above,
                                          row_kind::ties,      row_kind::wide};
    constexpr int kinds = static_cast<int>(std::size(kCycle));
    const int shift = std::uniform_int_distribution<int>(0, kinds - 1)(rng);
    for (int r = 0; r < n; ++r) {
      const row_kind kind_r = kCycle[(r + shift) % kinds];
      float* q = &p.Q[static_cast<size_t>(r) * d];
      q[0] = kind_r == row_kind::far_below   ? -100.0f
             : kind_r == row_kind::far_above ? 100.0f
             : kind_r == row_kind::ties      ? 0.1f
                                             : 0.0f;
      q[1] = kind_r == row_kind::late_max ? 1.0f : 0.0f;
      if (kind_r == row_kind::ties) std::fill(q + 2, q + d, 0.0f);
      if (kind_r == row_kind::wide)  // scores with std ~ 100: exp overflows past a wrong max
        for (int t = 2; t < d; ++t) q[t] = static_cast<float>(q[t] * 100.0 / noise);
      p.rows[r] = kind_r;
    }
  }
  return p;
}

constexpr float kSentinel = 7.25f;  // after O's n x d elements: must stay untouched

// The student's code gets copies of Q, K and V: the references read the originals, so
// a flash_attention that writes into its const inputs cannot change what it is checked
// against, and the copies show whether it did.
struct flash_run {
  std::vector<float> O;  // n x d, then 8 sentinels
  bool inputs_changed = false;
  double peak_bytes = 0;  // the call's peak heap (course_alloc_count)
};

// The heap flash_attention may hold: generous and linear in n (room for 8 arrays of
// n x (d + 4) doubles, 4 Br x Bc blocks of doubles and 64 KiB); an n x n float matrix at
// n = 2048 is 16 MiB.
double allowed_heap(int n, int d, int block_size) {
  return 8.0 * 8.0 * n * (d + 4) + 4.0 * 8.0 * block_size * block_size + 65536.0;
}

flash_run run_flash(const problem& p) {
  flash_run out;
  out.O.resize(static_cast<size_t>(p.n) * p.d + 8);
  course::poison(out.O);
  std::fill(out.O.end() - 8, out.O.end(), kSentinel);
  std::vector<float> Q = p.Q, K = p.K, V = p.V;
  {
    course::alloc_scope scope;
    lesson13::flash_attention(Q.data(), K.data(), V.data(), p.n, p.d, p.block_size, out.O.data());
    out.peak_bytes = static_cast<double>(scope.peak_bytes());
  }
  out.inputs_changed = Q != p.Q || K != p.K || V != p.V;
  return out;
}

std::vector<float> output_of(const std::vector<float>& O_with_sentinel) {
  return {O_with_sentinel.begin(), O_with_sentinel.end() - 8};
}

bool sentinel_intact(const std::vector<float>& O_with_sentinel) {
  return std::all_of(O_with_sentinel.end() - 8, O_with_sentinel.end(),
                     [](float x) { return x == kSentinel; });
}

// What a wrong flash_attention output equals, in the lesson's terms.
std::string diagnose_flash(const problem& p, const std::vector<float>& got,
                           const ref::attention_result& want, int worst_row) {
  std::ostringstream os;
  const int n = p.n, d = p.d;
  auto row_finite = [&](int r) {
    for (int k = 0; k < d; ++k)
      if (!std::isfinite(got[static_cast<size_t>(r) * d + k])) return false;
    return true;
  };
  bool below_bad = false, above_bad = false, wide_bad = false, other_bad = false;
  for (int r = 0; r < n; ++r) {
    if (row_finite(r)) continue;
    if (p.rows[r] == row_kind::far_below)
      below_bad = true;
    else if (p.rows[r] == row_kind::far_above)
      above_bad = true;
    else if (p.rows[r] == row_kind::wide)
      wide_bad = true;
    else
      other_bad = true;
  }
  if (below_bad)
    os << "O is NaN/inf on rows whose scores are all ~ -1000: exp underflowed, so l = 0 and "
          "O = 0/0; subtract the running max m, which must start at -inf so the first block "
          "sets it. ";
  if (above_bad)
    os << "O is NaN/inf on rows whose scores are all ~ +1000: l or O overflowed to inf; exp's "
          "argument must be score - m <= 0, with m the running max. ";
  if (wide_bad)
    os << "O is NaN/inf on rows whose scores spread over +-100 and more: exp(score - m) "
          "overflows when m is not the row's running max (the largest score so far). ";
  if (other_bad)
    os << "O has NaN/inf on ordinary rows: a row never written, 0/0, or 0 * inf (scale must be "
          "exp(m_old - m_new), which is 0 on the first block). ";
  if (n % p.block_size != 0) {
    const int full = n - n % p.block_size;
    if (close(std::vector<double>(got.begin(), got.end()),
              ref::attention_with_magnitudes(p.Q, p.K, p.V, n, d, full).O))
      os << "O equals attention over the first " << full << " keys only: the last, partial key "
         << "block (" << n % p.block_size << " keys) was never processed; loop while j < n with "
         << "Bc = min(block_size, n - j). ";
  }
  if (n > p.block_size) {
    for (bool average : {false, true})
      if (close(std::vector<double>(got.begin(), got.end()),
                ref::blockwise_softmax_concat(p.Q, p.K, p.V, n, d, p.block_size, average)))
        os << "O equals softmax inside each key block, " << (average ? "averaged" : "summed")
           << " over the blocks: the old blocks were never re-based by exp(m_old - m_new). ";
  }
  bool late_wrong = false, ordinary_right = true;
  for (int r = 0; r < n; ++r) {
    double row_err = 0.0;
    for (int k = 0; k < d; ++k) {
      const size_t i = static_cast<size_t>(r) * d + k;
      row_err = std::max(row_err, std::abs(got[i] - want.O[i]) / (want.M[i] + 1e-30));
    }
    if (p.rows[r] == row_kind::late_max && !(row_err < 1e-3)) late_wrong = true;
    if (p.rows[r] == row_kind::ordinary && !(row_err < 1e-3)) ordinary_right = false;
  }
  if (late_wrong && ordinary_right && p.kind == problem_kind::structured)
    os << "rows whose max arrives in the last key block are wrong: when the max moves, the old l "
          "and O must be re-based by scale = exp(m_old - m_new). ";
  os << "Worst row " << worst_row << " (" << describe(p.rows[worst_row]) << "): got";
  for (int k = 0; k < std::min(d, 3); ++k)
    os << ' ' << fmt_num(got[static_cast<size_t>(worst_row) * d + k]);
  os << (d > 3 ? " ..." : "") << ", want";
  for (int k = 0; k < std::min(d, 3); ++k)
    os << ' ' << fmt_num(want.O[static_cast<size_t>(worst_row) * d + k]);
  os << (d > 3 ? " ..." : "") << '.';
  return os.str();
}

// Runs flash_attention on a problem and checks every element against its bound.
void check_flash(const problem& p) {
  const flash_run run = run_flash(p);
  INFO((run.inputs_changed ? describe(p) + ": flash_attention wrote into its inputs Q, K or V, "
                                           "which are const: it must only read them"
                           : std::string()));
  REQUIRE_FALSE(run.inputs_changed);
  const std::vector<float>& with_sentinel = run.O;
  const std::vector<float> got = output_of(with_sentinel);
  const ref::attention_result want = ref::attention_with_magnitudes(p.Q, p.K, p.V, p.n, p.d, p.n);
  double worst = 0.0;
  int worst_row = 0;
  for (int r = 0; r < p.n; ++r) {
    const double budget = flash_budget(p.n, p.d, p.block_size, want.A[r]);
    for (int k = 0; k < p.d; ++k) {
      const size_t i = static_cast<size_t>(r) * p.d + k;
      double e = std::abs(got[i] - want.O[i]) / tolerance(budget, want.M[i]);
      if (std::isnan(e)) e = kInf;
      if (e > worst) {
        worst = e;
        worst_row = r;
      }
    }
  }
  const bool sentinel_ok = sentinel_intact(with_sentinel);
  std::string failure;
  if (worst > 1.0) failure = describe(p) + ": " + diagnose_flash(p, got, want, worst_row);
  INFO(failure);
  INFO((sentinel_ok ? "" : describe(p) + ": flash_attention wrote past the n x d elements of O"));
  REQUIRE(sentinel_ok);
  REQUIRE(worst <= 1.0);  // in units of each element's rounding-error bound
  // Every shape is a memory check too, where an n x n float matrix would stand out, so
  // code cannot keep one everywhere but at the shapes the memory test measures.
  if (4.0 * p.n * p.n > 2.0 * allowed_heap(p.n, p.d, p.block_size)) {
    INFO(describe(p) << ": flash_attention's peak heap was " << fmt_num(run.peak_bytes / 1024)
                     << " KiB, more than the "
                     << fmt_num(allowed_heap(p.n, p.d, p.block_size) / 1024)
                     << " KiB allowed: only one Br x Bc block of scores may exist (online "
                        "softmax), never the n x n matrix ("
                     << fmt_num(4.0 * p.n * p.n / 1024) << " KiB of floats here)");
    REQUIRE(run.peak_bytes <= allowed_heap(p.n, p.d, p.block_size));
  }
}

}  // namespace

// ---------------------------------------------------------------------------
TEST_CASE("online update: one key block from the initial state", "[code.update]") {
  auto rng = course::test_rng("update-one");
  INFO(course::seed_note());
  check_update_case(make_update_case(rng, {row_kind::ordinary}, {1}, 1));
  check_update_case(make_update_case(
      rng, {row_kind::far_below, row_kind::far_above, row_kind::ties, row_kind::late_max}, {128},
      8));
  check_update_case(make_update_case(rng, random_kinds(rng, 8), {33}, 64));
  std::uniform_int_distribution<int> pick_Br(1, 8), pick_d(1, 64);
  for (int t = 0; t < 30; ++t) {
    const int Br = pick_Br(rng);
    check_update_case(
        make_update_case(rng, random_kinds(rng, Br), {random_width(rng)}, pick_d(rng)));
  }
}

TEST_CASE("online update: a sequence of key blocks, checked after every block", "[code.update]") {
  auto rng = course::test_rng("update-seq");
  INFO(course::seed_note());
  check_update_case(make_update_case(rng, random_kinds(rng, 4), {8, 8, 8, 8}, 16));
  check_update_case(make_update_case(rng, random_kinds(rng, 7), {5, 5, 3}, 3));  // partial last
  check_update_case(make_update_case(rng, {row_kind::late_max}, {1, 1, 1, 1, 1}, 1));
  check_update_case(make_update_case(rng, {row_kind::wide, row_kind::late_max, row_kind::ties},
                                     {64, 129, 33}, 4));
  std::uniform_int_distribution<int> pick_Br(1, 6), pick_blocks(2, 7), pick_d(1, 48);
  for (int t = 0; t < 30; ++t) {
    const int Br = pick_Br(rng), blocks = pick_blocks(rng), d = pick_d(rng);
    std::vector<int> widths(blocks);
    for (int& w : widths) w = random_width(rng);
    check_update_case(make_update_case(rng, random_kinds(rng, Br), widths, d));
  }
}

TEST_CASE("online update: rows far below and far above zero, blocks wider than 32",
          "[code.update]") {
  auto rng = course::test_rng("update-far");
  INFO(course::seed_note());
  // All far below zero: exp underflows unless the first block sets m (from -inf).
  check_update_case(make_update_case(rng, {row_kind::far_below, row_kind::far_below}, {100}, 5));
  check_update_case(make_update_case(
      rng, {row_kind::far_below, row_kind::far_above, row_kind::jump_up, row_kind::far_below},
      {64, 128, 9}, 8));
  check_update_case(make_update_case(rng, {row_kind::far_above, row_kind::late_max}, {40, 160}, 3));
}

TEST_CASE("normalisation divides each row of O by its own l", "[code.normalize]") {
  auto rng = course::test_rng("normalize");
  INFO(course::seed_note());
  std::vector<std::pair<int, int>> shapes = {{1, 1}, {5, 3}, {64, 32}, {300, 64}, {7, 1}};
  std::uniform_int_distribution<int> pick_n(1, 300), pick_d(1, 64);
  for (int t = 0; t < 20; ++t) shapes.push_back({pick_n(rng), pick_d(rng)});
  // l >= 1 as the update leaves it (the max's own weight is exp(0) = 1); some exactly 1.
  std::uniform_real_distribution<double> log_l(std::log(1.5), std::log(1000.0)), unit(0.0, 1.0);
  for (auto [n, d] : shapes) {
    std::vector<float> O = random_matrix(rng, n, d, 10.0), l(n);
    for (auto& x : l) x = unit(rng) < 0.1 ? 1.0f : static_cast<float>(std::exp(log_l(rng)));
    const std::vector<float> before = O;
    O.insert(O.end(), 8, kSentinel);
    lesson13::normalize_rows(O.data(), l.data(), n, d);
    double worst = 0.0;
    int worst_r = 0, worst_k = 0;
    for (int r = 0; r < n; ++r)
      for (int k = 0; k < d; ++k) {
        const size_t i = static_cast<size_t>(r) * d + k;
        const double want = static_cast<double>(before[i]) / l[r];
        double e = std::abs(O[i] - want) / tolerance(kFinalUlps, std::abs(want));
        if (std::isnan(e)) e = kInf;
        if (e > worst) {
          worst = e;
          worst_r = r;
          worst_k = k;
        }
      }
    std::string failure;
    if (worst > 1.0) {
      const size_t i = static_cast<size_t>(worst_r) * d + worst_k;
      std::ostringstream os;
      os << "n=" << n << " d=" << d << ": row " << worst_r << " column " << worst_k << " got "
         << fmt_num(O[i]) << ", want " << fmt_num(before[i]) << " / " << fmt_num(l[worst_r])
         << " = " << fmt_num(static_cast<double>(before[i]) / l[worst_r]) << '.';
      // Which l the row was divided by, judged over the whole row: one element alone can
      // be fooled by an l that happens to be 1.
      const auto row_divided_by = [&](auto divisor) {
        for (int k = 0; k < d; ++k) {
          const size_t j = static_cast<size_t>(worst_r) * d + k;
          if (!close(O[j], static_cast<double>(before[j]) / divisor(k))) return false;
        }
        return true;
      };
      int other = -1;
      for (int j = 0; j < n && other < 0; ++j)
        if (l[j] != l[worst_r] && row_divided_by([&](int) { return l[j]; })) other = j;
      if (d <= n && row_divided_by([&](int k) { return l[k]; }))
        os << " Row " << worst_r << " was divided by l[k], k the column: row r must use its "
           << "own l[r].";
      else if (other == 0)
        os << " Every row was divided by l[0]: row r must use its own l[r].";
      else if (other > 0)
        os << " Row " << worst_r << " was divided by l[" << other
           << "], another row's: row r must use its own l[r].";
      else if (O[i] == before[i] && l[worst_r] != 1.0f)
        os << " O was not divided by l.";
      else if (close(O[i], static_cast<double>(before[i]) * l[worst_r]))
        os << " O was multiplied by l instead of divided.";
      failure = os.str();
    }
    const bool sentinel_ok = sentinel_intact(O);
    INFO(failure);
    INFO((sentinel_ok ? "" : "normalize_rows wrote past the n x d elements of O"));
    REQUIRE(sentinel_ok);
    REQUIRE(worst <= 1.0);  // in units of each element's rounding-error bound
  }
}

TEST_CASE("flash_attention matches standard attention", "[code.matches_reference]") {
  auto rng = course::test_rng("matches");
  INFO(course::seed_note());
  using pk = problem_kind;
  // Edge shapes, then structured rows with a partial last block (every real bug
  // shows there on every draw), then many random shapes.
  check_flash(make_problem(rng, 256, 32, 32, pk::random));  // the lesson's own example
  check_flash(make_problem(rng, 1, 8, 4, pk::random));
  check_flash(make_problem(rng, 1, 1, 1, pk::random));
  check_flash(make_problem(rng, 37, 8, 1, pk::random));    // block_size = 1
  check_flash(make_problem(rng, 20, 8, 64, pk::random));   // one partial block
  check_flash(make_problem(rng, 48, 16, 48, pk::random));  // block_size = n
  check_flash(make_problem(rng, 200, 2, 128, pk::random, 3.0));
  check_flash(make_problem(rng, 70, 5, 7, pk::ties));
  check_flash(make_problem(rng, 300, 12, 128, pk::structured));
  check_flash(make_problem(rng, 129, 64, 33, pk::structured));
  check_flash(make_problem(rng, 97, 3, 10, pk::structured));
  check_flash(make_problem(rng, 45, 6, 2, pk::structured));
  std::uniform_int_distribution<int> pick_n(1, 160), pick_d(1, 64), pick_bs(1, 130),
      pick_kind(0, 3), pick_scale(0, 3);
  constexpr double kScales[] = {0.1, 0.5, 1.0, 3.0};
  std::uniform_int_distribution<int> pick_long_n(161, 300), pick_small_d(1, 16);
  for (int t = 0; t < 24; ++t) {
    const bool long_rows = t < 4;  // a few long problems, kept cheap with a small d
    const int n = long_rows ? pick_long_n(rng) : pick_n(rng),
              d = long_rows ? pick_small_d(rng) : pick_d(rng), bs = pick_bs(rng),
              kind = pick_kind(rng);
    check_flash(make_problem(rng, n, d, bs,
                             kind == 0   ? pk::ties
                             : kind == 1 ? pk::random
                                         : pk::structured,
                             kScales[pick_scale(rng)]));
  }
}

namespace {

// The file's own pieces, run by the test over flash_attention's block schedule: Q_i K_j^T
// in float, online_softmax_update per key block, normalize_rows at the end.
std::vector<float> composed_from_update(const problem& p) {
  const int n = p.n, d = p.d, bs = p.block_size;
  std::vector<float> m(n, kNegInf), l(n, 0.0f), O(static_cast<size_t>(n) * d, 0.0f);
  std::vector<float> S_ij(static_cast<size_t>(bs) * bs);
  for (int i = 0; i < n; i += bs) {
    const int Br = std::min(bs, n - i);
    for (int j = 0; j < n; j += bs) {
      const int Bc = std::min(bs, n - j);
      for (int r = 0; r < Br; ++r)
        for (int c = 0; c < Bc; ++c) {
          float dot = 0.0f;
          for (int k = 0; k < d; ++k)
            dot +=
                p.Q[static_cast<size_t>(i + r) * d + k] * p.K[static_cast<size_t>(j + c) * d + k];
          S_ij[static_cast<size_t>(r) * Bc + c] = dot;
        }
      lesson13::online_softmax_update(S_ij.data(), p.V.data() + static_cast<size_t>(j) * d, Br, Bc,
                                      d, &m[i], &l[i], O.data() + static_cast<size_t>(i) * d);
    }
  }
  lesson13::normalize_rows(O.data(), l.data(), n, d);
  return O;
}

}  // namespace

// code.matches_reference is the blocked algorithm's item: flash_attention must be the
// file's online update run block by block, not some other route to the same numbers
// (plain row-by-row softmax, or one key block as wide as n) beside a wrong update.
TEST_CASE("flash_attention is the file's own online update, run block by block",
          "[code.matches_reference]") {
  auto rng = course::test_rng("composed");
  INFO(course::seed_note());
  std::uniform_int_distribution<int> pick_blocks(2, 6), pick_d(1, 24), pick_bs(1, 16);
  for (int t = 0; t < 12; ++t) {
    const int bs = pick_bs(rng), n = bs * pick_blocks(rng) - (t % 3 == 0 ? bs / 2 : 0);
    // Rows whose max arrives in a later block: a skipped re-base shows there.
    const problem p = make_problem(rng, std::max(n, 2), pick_d(rng), bs,
                                   t % 2 ? problem_kind::structured : problem_kind::random, 4.0);
    const std::vector<float> got = output_of(run_flash(p).O), composed = composed_from_update(p);
    const ref::attention_result want = ref::attention_with_magnitudes(p.Q, p.K, p.V, p.n, p.d, p.n);
    double worst = 0.0;
    int worst_row = 0;
    for (int r = 0; r < p.n; ++r)
      for (int k = 0; k < p.d; ++k) {
        const size_t i = static_cast<size_t>(r) * p.d + k;
        if (std::isnan(got[i]) && std::isnan(composed[i])) continue;  // the same failure
        const double budget = 2.0 * flash_budget(p.n, p.d, p.block_size, want.A[r]);
        double e =
            std::abs(static_cast<double>(got[i]) - composed[i]) / tolerance(budget, want.M[i]);
        if (std::isnan(e)) e = kInf;
        if (e > worst) worst = e, worst_row = r;
      }
    INFO(describe(p)
         << ": row " << worst_row
         << " of flash_attention differs from what the "
            "file's own online_softmax_update and normalize_rows give over the same key blocks "
            "(error "
         << fmt_num(worst)
         << "x the rounding bound): flash_attention must compute "
            "through the online update, block by block");
    REQUIRE(worst <= 1.0);
  }
}

TEST_CASE("flash_attention keeps one block of scores, never an n x n matrix",
          "[code.matches_reference]") {
  auto rng = course::test_rng("memory");
  INFO(course::seed_note());
  {  // The accounting itself must see new and malloc (harness check).
    static void* volatile sink = nullptr;  // keeps the compiler from eliding the blocks
    course::alloc_scope scope;
    std::vector<char> block(1 << 20);
    sink = block.data();
    sink = std::malloc(2 << 20);
    const std::size_t peak = scope.peak_bytes();
    std::free(sink);
    INFO("harness: heap accounting (course_alloc_count) does not see operator new and malloc");
    REQUIRE(peak >= (3u << 20));
  }
  // The shape is drawn, so code cannot recognise the one it is measured at.
  const int d = std::uniform_int_distribution<int>(3, 8)(rng),
            block_size = std::uniform_int_distribution<int>(16, 48)(rng),
            n_small = std::uniform_int_distribution<int>(192, 320)(rng), n_large = 4 * n_small;
  auto peak_at = [&](int n) {
    const problem p = make_problem(rng, n, d, block_size, problem_kind::random);
    std::vector<float> O(static_cast<size_t>(n) * d);
    course::alloc_scope scope;
    lesson13::flash_attention(p.Q.data(), p.K.data(), p.V.data(), n, d, block_size, O.data());
    return static_cast<double>(scope.peak_bytes());
  };
  auto allowed = [&](int n) { return allowed_heap(n, d, block_size); };
  const double small = peak_at(n_small), large = peak_at(n_large);
  constexpr double MiB = 1024.0 * 1024.0;
  INFO("flash_attention allocated " << fmt_num(large / MiB) << " MiB at n = " << n_large
                                    << " (d = " << d << ", block_size = " << block_size
                                    << "), which grows as n^2: only one Br x Bc block of scores "
                                       "may exist (online softmax); allowed "
                                    << fmt_num(allowed(n_large) / MiB) << " MiB");
  REQUIRE(large <= allowed(n_large));
  INFO("its peak heap grew from " << fmt_num(small / 1024) << " KiB at n = " << n_small << " to "
                                  << fmt_num(large / 1024) << " KiB at n = " << n_large
                                  << ": 4x n gave " << fmt_num(large / std::max(small, 1.0))
                                  << "x the memory; an n x n buffer gives 16x");
  REQUIRE(large <= 8.0 * small + 256.0 * 1024);
}

// ---------------------------------------------------------------------------
// Veto detectors: each fires only on its misconception's own signature; student
// code that throws or gives an unclear picture leaves them silent.

// Normalised rows O / l of an update run over exact small scores are right.
bool normalised_update_right(std::mt19937_64& rng, int Br, const std::vector<int>& widths, int d) {
  std::vector<row_kind> kinds(Br, row_kind::ordinary);
  kinds.back() = row_kind::late_max;  // the max moves in the last block
  const update_case uc = make_update_case(rng, kinds, widths, d);
  std::vector<float> m(Br, kNegInf), l(Br, 0.0f), O(static_cast<size_t>(Br) * d, 0.0f);
  int offset = 0;
  for (int Bc : widths) {
    std::vector<float> S_ij(static_cast<size_t>(Br + 1) *
                            Bc);  // a spare row: reads past stay inside
    for (int r = 0; r <= Br; ++r)
      for (int c = 0; c < Bc; ++c)
        S_ij[static_cast<size_t>(r) * Bc + c] = static_cast<float>(uc.S[r % Br][offset + c]);
    lesson13::online_softmax_update(S_ij.data(), uc.V.data() + static_cast<size_t>(offset) * d, Br,
                                    Bc, d, m.data(), l.data(), O.data());
    offset += Bc;
  }
  for (int r = 0; r < Br; ++r) {
    if (!(l[r] > 0.0f) || !std::isfinite(l[r])) return false;
    const ref::row_statistics want = ref::row_stats(uc.S[r], uc.V, d);
    const double R = want.m - *std::min_element(uc.S[r].begin(), uc.S[r].end());
    const int Bc_max = *std::max_element(widths.begin(), widths.end());
    const double budget = 2.0 * update_budget(R, Bc_max, static_cast<int>(widths.size()), offset);
    for (int k = 0; k < d; ++k) {
      const double got = static_cast<double>(O[static_cast<size_t>(r) * d + k]) / l[r];
      if (!(std::abs(got - want.O[k] / want.l) <= tolerance(budget, want.O_abs[k] / want.l)))
        return false;
    }
  }
  return true;
}

TEST_CASE("veto check: exp(score) overflows because the max is not subtracted",
          "[veto:exam:no-running-max]") {
  auto rng = course::test_rng("veto-overflow");
  INFO(course::seed_note());
  bool right_on_small = false, overflowed = false;
  std::string seen;
  try {
    // 1) Right on small scores (|score| < ~12): one block, and blocks whose max moves.
    right_on_small =
        normalised_update_right(rng, 4, {8}, 4) && normalised_update_right(rng, 3, {8, 8, 5}, 4);
    // 2) One block of scores between +950 and +1000, from the initial state.
    //    Subtracting any score of the block (even a wrong max) keeps exp's argument
    //    within +-50, which float holds; only exp(score) with no max subtracted
    //    overflows (e^950), so inf or NaN in l or O here is that misconception.
    if (right_on_small) {
      const int Br = 4, Bc = 16, d = 4;
      std::uniform_real_distribution<double> big(950.0, 1000.0);
      std::vector<float> S_ij(static_cast<size_t>(Br + 1) * Bc);  // a spare row, as above
      for (auto& x : S_ij) x = static_cast<float>(big(rng));
      const std::vector<float> V = random_matrix(rng, Bc + 1, d, 1.0);
      std::vector<float> m(Br, kNegInf), l(Br, 0.0f), O(static_cast<size_t>(Br) * d, 0.0f);
      lesson13::online_softmax_update(S_ij.data(), V.data(), Br, Bc, d, m.data(), l.data(),
                                      O.data());
      for (int r = 0; r < Br && !overflowed; ++r) {
        bool finite = std::isfinite(l[r]);
        for (int k = 0; k < d; ++k) finite &= std::isfinite(O[static_cast<size_t>(r) * d + k]);
        if (!finite) {
          overflowed = true;
          seen = "row " + std::to_string(r) + ": m = " + fmt_num(m[r]) + ", l = " + fmt_num(l[r]) +
                 ", O[0] = " + fmt_num(O[static_cast<size_t>(r) * d]);
        }
      }
    }
  } catch (const std::exception&) {
    right_on_small = false;  // unfinished code shows no misconception yet
  }
  INFO("right on small scores, but on a block whose scores all lie between +950 and +1000, l or O "
       << "became inf/NaN (" << seen << "): exp(score) overflowed because the max was not "
       << "subtracted (subtracting any of these scores keeps exp's argument within +-50); exp's "
       << "argument must be score - m_new <= 0");
  CHECK_FALSE((right_on_small && overflowed));
}

TEST_CASE("veto check: the output is not per-block softmax concatenated",
          "[veto:exam:blockwise-softmax-concat]") {
  auto rng = course::test_rng("veto-concat");
  INFO(course::seed_note());
  // Three key blocks, then two and a partial one: per-block softmax is far from right.
  const int shapes[][3] = {{96, 16, 32}, {80, 8, 32}};
  int matched = 0;
  std::string seen;
  try {
    for (const auto& s : shapes) {
      const problem p = make_problem(rng, s[0], s[1], s[2], problem_kind::random, 1.0);
      const flash_run run = run_flash(p);
      if (run.inputs_changed) continue;  // not this misconception's signature
      const std::vector<float> got = output_of(run.O);
      const std::vector<double> right = ref::standard_attention(p.Q, p.K, p.V, p.n, p.d);
      for (bool average : {false, true}) {
        const auto concat =
            ref::blockwise_softmax_concat(p.Q, p.K, p.V, p.n, p.d, p.block_size, average);
        if (relative_error(got, right) > 1e-2 && relative_error(got, concat) <= 1e-4 &&
            relative_error(got, concat) * 100 < relative_error(got, right)) {
          ++matched;
          seen += describe(p) + ": O matches per-block softmax " +
                  (average ? "averaged" : "summed") + " over the blocks; ";
          break;
        }
      }
    }
  } catch (const std::exception&) {
    matched = 0;  // unfinished code shows no misconception yet
  }
  INFO(seen << "each block used its own max and sum, and the old blocks were never re-based "
            << "with exp(m_old - m_new)");
  CHECK_FALSE(matched == static_cast<int>(std::size(shapes)));
}
