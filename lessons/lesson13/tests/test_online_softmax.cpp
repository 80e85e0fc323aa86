// Tests for the lesson 13 C++ exercise (online_softmax.cpp) against the double-precision
// references: the online update and the normalisation here; flash_attention on whole
// problems in test_online_softmax.attention.cpp, built into the same binary
// (cmake/course_lesson.cmake); the tolerances both use are in online_softmax_support.hpp.
// Each test's tag is the rubric item it earns (lessons/lesson13/manifest.json);
// [veto:exam:<id>] tests detect a misconception.
// Every property runs over many draws (block widths 1..160, n 1..300, d 1..64, rows
// far below and far above zero, ties, a max that arrives in the last block), with
// tolerances from float's rounding-error bound of each shape (see "Tolerances").
//   build/bin/lesson13_online_softmax_tests --rng-seed time   # all, fresh inputs
//   build/bin/lesson13_online_softmax_tests "[code.update]"   # one rubric item
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <iterator>
#include <sstream>
#include <string>
#include <vector>

#include "attention_reference.hpp"
#include "course/testing.hpp"
#include "online_softmax.hpp"
#include "online_softmax_support.hpp"

namespace ref = lesson13::reference;
using course::random_matrix;
using course::relative_error;
using namespace lesson13::softmax_tests;

namespace {

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
