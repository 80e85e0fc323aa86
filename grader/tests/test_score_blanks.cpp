// Unit tests of score_blanks (score.cpp): a verdict per blank from hand-made records of
// the [blanks] tests, the items' verdicts and the build (issue 24).
//   build/dev/bin/grader_tests "[score-blanks]"
#include <catch2/catch.hpp>

#include <stdexcept>
#include <string>
#include <vector>

#include "grader/pipeline/reporter.hpp"
#include "score_fixtures.hpp"

using Catch::Matchers::Contains;
using grader::lang;
using namespace score_fixtures;

namespace {

test_record blank_test(std::string blank, bool passed, std::string ran_into = {},
                       std::string kind = "fail", std::string message = {}) {
  test_record r = passed ? passing("blank " + blank) : failing("blank " + blank, kind, message);
  r.tags = {"blanks", std::string(protocol::blank_tag_prefix) + blank};
  r.blank = std::move(ran_into);
  return r;
}

grader::report blanks_report(const grader::manifest& m, std::vector<grader::blank> still_empty,
                             std::vector<tag_run> runs, bool built = true) {
  grader::resolved what;
  for (const auto& u : m.units) what.units.push_back(&u);
  grader::source_file code{&m.exercises[0], "/sub/code.cpp", std::move(still_empty)};
  code.given_blanks = {{"m_new", 12}, {"scale", 14}, {"l_new", 20}, {"O_update", 24}};
  grader::source_file kernel{&m.exercises[1], "/sub/kernel.cu", {}};
  kernel.given_blanks = {{"row", 3}, {"col", 4}};
  what.files = {code, kernel};
  grader::build_result b;
  b.exercises["code"] = {"code", "code.cpp", built, false, built ? "" : "code.cpp:1: error",
                         "",     {}};
  b.exercises["kernel"] = {"kernel", "kernel.cu", true, false, "", "", {}};
  grader::test_runs tr;
  tr.runs = all_right().runs;
  tr.runs.insert(tr.runs.end(), runs.begin(), runs.end());
  return grader::score_report(m, what, b, tr, all_right().answers, {}, {lang::en});
}

const grader::blank_state& state_of(const grader::report& r, const std::string& name) {
  for (const auto& b : r.blanks)
    if (b.name == name) return b;
  FAIL("no blank " << name);
  throw std::logic_error("unreachable");
}

}  // namespace

TEST_CASE("score_blanks: each blank gets its own test's verdict, whatever the later blanks hold",
          "[score-blanks]") {
  const auto m = tiny_manifest();
  using grader::blank_status;
  // m_new right, scale wrong, l_new waiting for... nothing: it ran into the empty O_update.
  const auto rep = blanks_report(
      m, {{"O_update", 24}},
      {run_of("code", std::string(protocol::blanks_tag),
              {blank_test("m_new", true),
               blank_test("scale", false, {}, "fail", "row 5, key block 3: scale was 148"),
               blank_test("l_new", false, "O_update"), blank_test("O_update", false, "O_update")},
              3)});
  REQUIRE(rep.blanks.size() == 6);
  CHECK(state_of(rep, "m_new").status == blank_status::pass);
  CHECK(state_of(rep, "m_new").judged_alone);
  CHECK(state_of(rep, "scale").status == blank_status::fail);
  CHECK(state_of(rep, "scale").detail == "row 5, key block 3: scale was 148");
  CHECK(state_of(rep, "scale").line == 14);
  CHECK(state_of(rep, "l_new").status == blank_status::waiting);
  CHECK(state_of(rep, "l_new").detail == "O_update");
  CHECK(state_of(rep, "O_update").status == blank_status::empty);
  // The kernel has no tests of its own blanks: right because every item of it passes.
  CHECK(state_of(rep, "row").status == blank_status::pass);
  CHECK_FALSE(state_of(rep, "row").judged_alone);
  // The report says the next step: the wrong blank first.
  CHECK_THAT(grader::render_text(rep, false),
             Contains("Next: fix blank `scale` (code.cpp line 14)"));
}

TEST_CASE("score_blanks: a crash names the blank whose test was running; no build errs them all",
          "[score-blanks]") {
  const auto m = tiny_manifest();
  using grader::blank_status;
  tag_run crashed = run_of("code", std::string(protocol::blanks_tag),
                           {blank_test("m_new", true), blank_test("scale", true)});
  crashed.process.term_signal = 11;
  auto rep = blanks_report(m, {}, {crashed});
  CHECK(state_of(rep, "l_new").status == blank_status::fail);
  CHECK_THAT(state_of(rep, "l_new").detail, Contains("its test stopped"));
  CHECK(state_of(rep, "O_update").status == blank_status::pass);  // the items all pass
  // A signal caught by the harness (a fatal record) is that blank's failure too.
  rep = blanks_report(m, {},
                      {run_of("code", std::string(protocol::blanks_tag),
                              {blank_test("m_new", false, {}, "fatal", "SIGSEGV")}, 1)});
  CHECK(state_of(rep, "m_new").status == blank_status::fail);
  CHECK_THAT(state_of(rep, "m_new").detail, Contains("crashed: SIGSEGV"));
  rep = blanks_report(m, {}, {}, false);
  CHECK(state_of(rep, "scale").status == blank_status::error);
  CHECK_THAT(state_of(rep, "scale").detail, Contains("does not compile"));
}

TEST_CASE("score_blanks: with no test of its own, a filled blank of a failing exercise is filled",
          "[score-blanks]") {
  auto m = tiny_manifest();
  using grader::blank_status;
  auto in_runs = std::vector<tag_run>{};
  grader::resolved what;
  for (const auto& u : m.units) what.units.push_back(&u);
  grader::source_file kernel{&m.exercises[1], "/sub/kernel.cu", {{"col", 4}}};
  kernel.given_blanks = {{"row", 3}, {"col", 4}};
  what.files = {kernel};
  grader::build_result b;
  b.exercises["kernel"] = {"kernel", "kernel.cu", true, false, "", "", {}};
  grader::test_runs tr;
  tr.runs = {run_of("kernel", protocol::item_tag("lab.a"), {failing("b", "assertion", "x")}, 1)};
  const auto rep = grader::score_report(m, what, b, tr, {}, {}, {lang::en});
  REQUIRE(rep.blanks.size() == 2);
  CHECK(rep.blanks[0].status == blank_status::filled);
  CHECK(rep.blanks[1].status == blank_status::empty);
}

TEST_CASE("score_blanks: a wrong blank's trace comes from its check's INFO, not the seed line",
          "[score-blanks]") {
  const auto m = tiny_manifest();
  test_record r = failing("blank m_new", "assertion", "");
  r.failures.front().expression = "v.ok";
  r.failures.front().info = {protocol::seed_line(7), "row 2, key block 1: your m_new was 3"};
  r.tags = {"blanks", std::string(protocol::blank_tag_prefix) + "m_new"};
  const auto rep =
      blanks_report(m, {}, {run_of("code", std::string(protocol::blanks_tag), {r}, 1)});
  CHECK(state_of(rep, "m_new").status == grader::blank_status::fail);
  CHECK(state_of(rep, "m_new").detail == "row 2, key block 1: your m_new was 3");
}
