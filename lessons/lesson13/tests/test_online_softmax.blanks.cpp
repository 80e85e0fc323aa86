// A verdict per blank of online_softmax.cpp (issue 24), as soon as that blank is filled:
// each test judges one blank alone, whatever the later blanks hold. The student's
// online_softmax_update is a black box f(S, V, m_old, l_old, O_old) -> (m, l, O), and the
// lesson's maths says what each blank does to it:
//   m_new     m = max(m_old, block max), read directly;
//   scale     the factor that multiplies l_old and O_old: l(l_old) - l(0) = l_old * scale;
//   l_new     l(0) = sum_c exp(s_c - m), and l_old multiplied by scale;
//   O_update  O(0)[k] = sum_c exp(s_c - m) V[c][k], and O_old multiplied by scale;
//   normalize normalize_rows divides by l.
// Each call starts from the double-precision reference's state (rounded to float), so a
// wrong blank never blames the next one, and expected values use the student's own m, so a
// wrong m_new does not fail scale. Empty blanks run in poison mode (course/blank.hpp):
// NaN instead of a throw. A test whose blank cannot be seen yet (scale while l_new and
// O_update are empty) throws the blank it waits for: the grader says "waits for".
//   build/bin/lesson13_online_softmax_tests "[blanks]"
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <sstream>
#include <string>
#include <vector>

#include "course/blank.hpp"
#include "course/testing.hpp"
#include "online_softmax.hpp"
#include "online_softmax_support.hpp"

using namespace lesson13::softmax_tests;

namespace {

// Poison mode for the lifetime of one probe call.
struct poison_scope {
  poison_scope() {
    course::blank_poison = true;
    course::poisoned_blanks = {};
  }
  ~poison_scope() { course::blank_poison = false; }
};

// One call of the update, from a given state, and what came out.
struct probe {
  std::vector<float> m, l, O;
  bool empty(const char* blank) const { return poisoned.has(blank); }
  course::poisoned_list poisoned;
};

struct call_case {
  int Br = 1, Bc = 1, d = 1, block = 0;  // block: the key block's index in its row
  std::vector<float> S, V;               // Br x Bc scores, Bc x d values
  std::vector<float> m_old, l_old, O_old;
};

probe run(const call_case& c, bool zero_state) {
  probe p;
  p.m = c.m_old;
  p.l = zero_state ? std::vector<float>(c.Br, 0.0f) : c.l_old;
  p.O = zero_state ? std::vector<float>(c.O_old.size(), 0.0f) : c.O_old;
  {
    poison_scope scope;
    lesson13::online_softmax_update(c.S.data(), c.V.data(), c.Br, c.Bc, c.d, p.m.data(), p.l.data(),
                                    p.O.data());
    p.poisoned = course::poisoned_blanks;
  }
  return p;
}

// Calls drawn like the item tests' rows: a few blocks of one row set, each call made from
// the reference state after the blocks before it.
std::vector<call_case> draw_calls() {
  auto rng = course::test_rng("blanks");
  std::vector<call_case> out;
  std::normal_distribution<double> normal(0.0, 1.0);
  const int shapes[][3] = {{4, 8, 16}, {3, 5, 3}, {1, 1, 1}, {6, 33, 8}, {2, 16, 64}, {4, 1, 2}};
  for (const auto& shape : shapes) {
    const int Br = shape[0], Bc = shape[1], d = shape[2], blocks = 4;
    std::vector<std::vector<double>> S(Br);
    for (int r = 0; r < Br; ++r)
      for (int j = 0; j < blocks * Bc; ++j) {
        // Rows whose max rises from block to block, so that every call rescales; one row
        // far below zero and one far above (a max that starts at 0, not -inf, shows there).
        const double drift = (r % 2 == 0 ? 2.5 : 0.7) * (j / Bc);
        const double offset = r == 2 ? -1000.0 : r == 3 ? 1000.0 : 0.0;
        S[r].push_back(static_cast<float>(offset + drift + (r == 1 ? 30.0 : 1.5) * normal(rng)));
      }
    const std::vector<float> V = course::random_matrix(rng, blocks * Bc, d, 1.0);
    std::vector<double> m(Br, -kInf), l(Br, 0.0), O(static_cast<size_t>(Br) * d, 0.0);
    for (int j = 0; j < blocks; ++j) {
      call_case c;
      c.Br = Br, c.Bc = Bc, c.d = d, c.block = j;
      for (int r = 0; r < Br; ++r)
        for (int k = 0; k < Bc; ++k) c.S.push_back(static_cast<float>(S[r][j * Bc + k]));
      c.V.assign(V.begin() + static_cast<long>(j) * Bc * d, V.begin() + (j + 1L) * Bc * d);
      for (int r = 0; r < Br; ++r) {
        c.m_old.push_back(static_cast<float>(m[r]));
        c.l_old.push_back(static_cast<float>(l[r]));
        for (int k = 0; k < d; ++k) c.O_old.push_back(static_cast<float>(O[r * d + k]));
      }
      out.push_back(c);
      // The reference's state after this block, from the float inputs.
      for (int r = 0; r < Br; ++r) {
        double m_new = m[r];
        for (int k = 0; k < Bc; ++k) m_new = std::max(m_new, S[r][j * Bc + k]);
        const double scale = std::exp(m[r] - m_new);
        l[r] *= scale;
        for (int k = 0; k < d; ++k) O[r * d + k] *= scale;
        for (int k = 0; k < Bc; ++k) {
          const double p = std::exp(S[r][j * Bc + k] - m_new);
          l[r] += p;
          for (int x = 0; x < d; ++x) O[r * d + x] += p * V[(j * Bc + k) * d + x];
        }
        m[r] = m_new;
      }
    }
  }
  return out;
}

bool near(double got, double want, double magnitude) {
  return std::abs(got - want) <= 1e-4 * magnitude + 1e-30;  // got may be NaN: false
}

std::string where(const call_case& c, int r) {
  std::ostringstream os;
  os << "row " << r << ", key block " << c.block << " (Br=" << c.Br << " Bc=" << c.Bc
     << " d=" << c.d << ")";
  return os.str();
}

// The verdict on one blank: ok, or the trace that shows it wrong; or the blank it waits for.
struct verdict {
  bool ok = true;
  std::string message;
  const char* waits_for = nullptr;
};

// How l (or O) came out against the maths, given the student's own m.
struct factor_check {
  bool known = false, additive_ok = true, factor_ok = true;
  double factor = 0, want = 0;  // the factor applied to l_old (or O_old), and exp(m_old - m)
  std::string at;
};

// `got_full`, `got_zero`: the output from the given state and from a zero state; `old` the
// state's value; `add` the block's own sum; all at the first element that fails.
void compare(factor_check& fc, const call_case& c, int r, double old, double got_full,
             double got_zero, double add, double add_magnitude, double E) {
  if (!fc.additive_ok || !fc.factor_ok) return;  // keep the first failure's trace
  const double magnitude = std::abs(old) * E + add_magnitude;
  if (!std::isfinite(got_zero) && std::isfinite(add)) {  // 0 * inf: the factor, not the sum
    fc.factor_ok = false;
    fc.at = where(c, r);
    fc.factor = got_zero;
    fc.want = E;
    return;
  }
  if (!near(got_zero, add, add_magnitude)) {
    fc.additive_ok = false;
    fc.at = where(c, r);
    fc.want = add;
    fc.factor = got_zero;
    return;
  }
  if (old != 0.0 && !near(got_full, old * E + add, magnitude)) {
    fc.factor_ok = false;
    fc.at = where(c, r);
    fc.factor = (got_full - got_zero) / old;
    fc.want = E;
  }
}

struct blank_findings {
  verdict m_new, scale, l_new, O_update;
};

blank_findings judge_update() {
  blank_findings f;
  factor_check lc, oc;
  bool m_seen = false, l_waits = false, o_waits = false;
  for (const call_case& c : draw_calls()) {
    const probe full = run(c, false), zero = run(c, true);
    const bool m_empty = full.empty("m_new");
    for (int r = 0; r < c.Br; ++r) {
      double block_max = -kInf;
      for (int k = 0; k < c.Bc; ++k) block_max = std::max<double>(block_max, c.S[r * c.Bc + k]);
      const double want_m = std::max<double>(c.m_old[r], block_max), m = full.m[r];
      if (!m_empty && f.m_new.ok && static_cast<double>(full.m[r]) != want_m) {
        std::ostringstream os;
        os << where(c, r) << ": the running max was " << fmt_num(c.m_old[r])
           << " and this block's largest score " << fmt_num(block_max) << "; your m_new was "
           << fmt_num(full.m[r])
           << ", the update needs max(m_old, block max) = " << fmt_num(want_m);
        f.m_new = {false, os.str()};
      }
      if (m_empty || !std::isfinite(m)) continue;
      m_seen = true;
      // Below this block's max, exp(s - m) may overflow: that is m_new's fault, told above.
      if (m < block_max) continue;
      // What the blanks after m_new should give, from the student's own m.
      const double E = std::exp(static_cast<double>(c.m_old[r]) - m);
      double P = 0;
      std::vector<double> PV(c.d, 0.0), PV_abs(c.d, 0.0);
      for (int k = 0; k < c.Bc; ++k) {
        const double p = std::exp(c.S[r * c.Bc + k] - m);
        P += p;
        for (int x = 0; x < c.d; ++x) {
          PV[x] += p * c.V[k * c.d + x];
          PV_abs[x] += p * std::abs(c.V[k * c.d + x]);
        }
      }
      // An output that is NaN because scale is still empty waits for scale; one that is
      // not (the student computed the factor in place) is judged.
      const bool scale_empty = full.empty("scale");
      if (!full.empty("l_new")) {
        if (scale_empty && !std::isfinite(full.l[r])) {
          l_waits = true;
        } else {
          lc.known = true;
          compare(lc, c, r, c.l_old[r], full.l[r], zero.l[r], P, P, E);
        }
      }
      if (!full.empty("O_update"))
        for (int x = 0; x < c.d; ++x) {
          if (scale_empty && !std::isfinite(full.O[r * c.d + x])) {
            o_waits = true;
            continue;
          }
          oc.known = true;
          compare(oc, c, r, c.O_old[r * c.d + x], full.O[r * c.d + x], zero.O[r * c.d + x], PV[x],
                  PV_abs[x], E);
        }
    }
  }
  if (!m_seen) {  // m_new is empty (or NaN): nothing after it can be judged
    f.scale.waits_for = f.l_new.waits_for = f.O_update.waits_for = "m_new";
    return f;
  }
  auto unscaled = [](const factor_check& fc) { return std::abs(fc.factor - 1.0) < 1e-6; };
  auto factor_text = [&](const factor_check& fc, const char* what) {
    std::ostringstream os;
    os << fc.at << ": ";
    if (std::isnan(fc.factor))
      os << what << "_new came out NaN from " << what
         << "_old = 0, so the factor was inf (0 * inf is NaN): on the first block m_old = -inf, "
            "and scale = exp(m_old - m_new) must be 0 there";
    else if (unscaled(fc))
      os << what << "_old was not rescaled (multiplied by 1) when the max moved";
    else
      os << what << "_old was multiplied by " << fmt_num(fc.factor);
    if (!std::isnan(fc.factor))
      os << "; the online update multiplies it by scale = exp(m_old - m_new) = "
         << fmt_num(fc.want);
    return os.str();
  };
  auto additive_text = [](const factor_check& fc, const char* what, const char* sum) {
    std::ostringstream os;
    os << fc.at << ": from " << what << "_old = 0 your " << what << "_new was "
       << fmt_num(fc.factor) << ", but this block adds " << sum << " = " << fmt_num(fc.want);
    return os.str();
  };
  // The sums each blank adds.
  if (!lc.additive_ok) f.l_new = {false, additive_text(lc, "l", "sum_c exp(s_c - m_new)")};
  if (!oc.additive_ok)
    f.O_update = {false, additive_text(oc, "O", "sum_c exp(s_c - m_new) * V[c][k]")};
  // The factor: scale's if every output that shows it is off by the same factor;
  // l_new's or O_update's if only that one is off, or if it left l_old / O_old as they were.
  const bool l_bad = lc.known && lc.additive_ok && !lc.factor_ok;
  const bool o_bad = oc.known && oc.additive_ok && !oc.factor_ok;
  if (l_bad && unscaled(lc))
    f.l_new = {false, factor_text(lc, "l") + ": l_new = l_old * scale + this block's sum"};
  if (o_bad && unscaled(oc))
    f.O_update = {false, factor_text(oc, "O") + ": O_new[k] = O_old[k] * scale + this block's sum"};
  const bool l_blames_scale = l_bad && !unscaled(lc), o_blames_scale = o_bad && !unscaled(oc);
  if (l_blames_scale && o_blames_scale) {
    f.scale = {false, factor_text(lc, "l") + " (O_old too)"};
  } else if (l_blames_scale) {
    if (oc.known && oc.factor_ok)
      f.l_new = {false, factor_text(lc, "l") + " (O_update rescales right: l_new does not)"};
    else
      f.scale = {false,
                 factor_text(lc, "l") + " (check scale, and that l_new multiplies l_old by it)"};
  } else if (o_blames_scale) {
    if (lc.known && lc.factor_ok)
      f.O_update = {false, factor_text(oc, "O") + " (l_new rescales right: O_update does not)"};
    else
      f.scale = {false,
                 factor_text(oc, "O") + " (check scale, and that O_update multiplies O_old by it)"};
  }
  if (!lc.known && !oc.known) f.scale.waits_for = "l_new";
  if (l_waits && !lc.known) f.l_new.waits_for = "scale";
  if (o_waits && !oc.known) f.O_update.waits_for = "scale";
  return f;
}

void report(const char* blank, const verdict& v, bool empty) {
  if (empty) throw course::unfilled_blank(blank);
  if (v.waits_for) throw course::unfilled_blank(v.waits_for);
  INFO(v.message);  // the trace: the grader's detail for a wrong blank
  CHECK(v.ok);
}

bool empty_in_update(const char* blank) {
  auto calls = draw_calls();
  return run(calls.front(), false).empty(blank);
}

void check_update_blank(const char* blank, verdict blank_findings::*which) {
  report(blank, judge_update().*which, empty_in_update(blank));
}

}  // namespace

TEST_CASE("blank m_new: the running max", "[blanks][blank:m_new]") {
  check_update_blank("m_new", &blank_findings::m_new);
}

TEST_CASE("blank scale: the factor that moves l and O to the new max", "[blanks][blank:scale]") {
  check_update_blank("scale", &blank_findings::scale);
}

TEST_CASE("blank l_new: the running denominator", "[blanks][blank:l_new]") {
  check_update_blank("l_new", &blank_findings::l_new);
}

TEST_CASE("blank O_update: the running output", "[blanks][blank:O_update]") {
  check_update_blank("O_update", &blank_findings::O_update);
}

TEST_CASE("blank normalize: the final division by l", "[blanks][blank:normalize]") {
  auto rng = course::test_rng("blank-normalize");
  const int n = 7, d = 5;
  std::vector<float> O = course::random_matrix(rng, n, d, 3.0);
  std::vector<float> l(n);
  std::uniform_real_distribution<double> pick(1.0, 40.0);
  for (float& x : l) x = static_cast<float>(pick(rng));
  const std::vector<float> O_in = O;
  {
    poison_scope scope;
    lesson13::normalize_rows(O.data(), l.data(), n, d);
    if (course::poisoned_blanks.has("normalize")) throw course::unfilled_blank("normalize");
  }
  std::string wrong;  // the first element off, as a trace
  for (int r = 0; r < n && wrong.empty(); ++r)
    for (int k = 0; k < d && wrong.empty(); ++k) {
      const double want = static_cast<double>(O_in[r * d + k]) / l[r];
      if (!near(O[r * d + k], want, std::abs(want) * 10)) {
        std::ostringstream os;
        os << "row " << r << ", column " << k << ": O = " << fmt_num(O_in[r * d + k])
           << " and l = " << fmt_num(l[r]) << "; your output was " << fmt_num(O[r * d + k])
           << ", the attention output is O / l = " << fmt_num(want);
        wrong = os.str();
      }
    }
  INFO(wrong);
  CHECK(wrong.empty());
}
