// Tests for the lesson 13 C++ exercise (online_softmax.cpp): flash_attention on whole
// problems (code.matches_reference: agreement with standard attention, edge shapes and
// large scores, the file's own online update run block by block, one block of scores at a
// time) and the per-block-softmax veto. The update and the normalisation are tested in
// test_online_softmax.cpp, in the same binary; the tolerances are in
// online_softmax_support.hpp.
//   build/bin/lesson13_online_softmax_tests "[code.matches_reference]"
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <iterator>
#include <sstream>
#include <string>
#include <vector>

#include "attention_reference.hpp"
#include "course/alloc_count.hpp"
#include "course/testing.hpp"
#include "online_softmax.hpp"
#include "online_softmax_support.hpp"

namespace ref = lesson13::reference;
using course::random_matrix;
using course::relative_error;
using namespace lesson13::softmax_tests;

namespace {

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

// The student's code gets copies of Q, K and V: the references read the originals, so
// a flash_attention that writes into its const inputs cannot change what it is checked
// against, and the copies show whether it did.
struct flash_run {
  std::vector<float> O;  // n x d, then 8 sentinels
  bool inputs_changed = false;
  double peak_bytes = 0;  // the call's peak heap (course_alloc_count), where nxn_stands_out
};

// The heap flash_attention may hold: generous and linear in n (room for 8 arrays of
// n x (d + 4) doubles, 4 Br x Bc blocks of doubles and 64 KiB); an n x n float matrix at
// n = 2048 is 16 MiB.
double allowed_heap(int n, int d, int block_size) {
  return 8.0 * 8.0 * n * (d + 4) + 4.0 * 8.0 * block_size * block_size + 65536.0;
}

// Whether an n x n float matrix would stand out of the heap flash_attention may hold at
// this shape: every such shape is a memory check (check_flash).
bool nxn_stands_out(const problem& p) {
  return 4.0 * p.n * p.n > 2.0 * allowed_heap(p.n, p.d, p.block_size);
}

// The peak heap is measured only where it is checked: in marking mode each measured call
// costs a fresh compute process (course/remote.hpp).
flash_run run_flash(const problem& p) {
  flash_run out;
  out.O.resize(static_cast<size_t>(p.n) * p.d + 8);
  course::poison(out.O);
  std::fill(out.O.end() - 8, out.O.end(), kSentinel);
  std::vector<float> Q = p.Q, K = p.K, V = p.V;
  if (nxn_stands_out(p)) {
    course::alloc_scope scope;
    lesson13::flash_attention(Q.data(), K.data(), V.data(), p.n, p.d, p.block_size, out.O.data());
    out.peak_bytes = static_cast<double>(scope.peak_bytes());
  } else {
    lesson13::flash_attention(Q.data(), K.data(), V.data(), p.n, p.d, p.block_size, out.O.data());
  }
  out.inputs_changed = Q != p.Q || K != p.K || V != p.V;
  return out;
}

std::vector<float> output_of(const std::vector<float>& O_with_sentinel) {
  return {O_with_sentinel.begin(), O_with_sentinel.end() - 8};
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
  if (nxn_stands_out(p)) {
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

TEST_CASE("flash_attention matches standard attention", "[code.matches_reference]") {
  auto rng = course::test_rng("matches");
  INFO(course::seed_note());
  using pk = problem_kind;
  // Edge shapes, then structured rows with a partial last block (every real bug
  // shows there on every draw), then many random shapes.
  check_flash(make_problem(rng, 256, 32, 32, pk::random));  // the shape notes §0.4 cites
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
