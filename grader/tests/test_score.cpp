// Unit tests for the score stage (score.cpp): hand-made test records, build
// verdicts and graded answers in, unit reports out. No process runs here.
//   build/dev/bin/grader_tests "[score]"
#include <catch2/catch.hpp>

#include <stdexcept>
#include <string>
#include <vector>

#include "course/protocol.hpp"
#include "grader/pipeline/reporter.hpp"
#include "grader/pipeline/score.hpp"
#include "score_fixtures.hpp"

using Catch::Matchers::Contains;
using Catch::Matchers::EndsWith;
using grader::item_status;
using grader::lang;
using grader::score_inputs;
using grader::tag_run;
using grader::test_failure;
using grader::test_record;
namespace protocol = course::protocol;

using namespace score_fixtures;

TEST_CASE("score_unit: passing runs and right answers earn every point and PASS", "[score]") {
  const auto m = tiny_manifest();
  const auto u = grader::score_unit(m, unit_named(m, "exam"), all_right(), lang::en);
  REQUIRE(u.items.size() == 2);
  CHECK(u.items[0].status == item_status::pass);
  CHECK(u.items[0].feedback == "Good.");
  CHECK(u.items[1].points == 2);
  CHECK(u.score == 4);
  CHECK(u.vetoes.empty());
  CHECK(u.passed);
}

TEST_CASE(
    "score_code_item: a failed assertion gives the advice, the test and its INFO, not the seed",
    "[score]") {
  const auto m = tiny_manifest();
  auto in = all_right();
  in.runs[0] = run_of("code", "[code.a]",
                      {failing("m is the running max", "assertion", "m == 3",
                               {"shape 5x3", protocol::seed_line(42)})});
  const auto r = grader::score_code_item(m.units[0].items[0], m.exercises[0], in, lang::en);
  CHECK(r.status == item_status::fail);
  CHECK(r.points == 0);
  CHECK_THAT(r.feedback, Contains("Check m.") && Contains("'m is the running max': m == 3") &&
                             Contains("shape 5x3"));
  CHECK_THAT(r.feedback, !Contains("rng seed"));
}

TEST_CASE("score_code_item: a timeout or a crash is an error that says so", "[score]") {
  const auto m = tiny_manifest();
  auto in = all_right();
  in.runs[0].process.timed_out = true;
  auto r = grader::score_code_item(m.units[0].items[0], m.exercises[0], in, lang::en);
  CHECK(r.status == item_status::error);
  CHECK_THAT(r.feedback, Contains("infinite loop"));

  in = all_right();
  in.runs[0] = run_of("code", "[code.a]", {failing("rows of O", "fatal", "SIGSEGV")});
  in.runs[0].process.exit_code = -1;
  in.runs[0].process.term_signal = 11;
  r = grader::score_code_item(m.units[0].items[0], m.exercises[0], in, lang::en);
  CHECK(r.status == item_status::error);
  CHECK_THAT(r.feedback, Contains("'rows of O' crashed"));
}

TEST_CASE("score_code_item: an unfilled blank, signalled in its own field, is the whole story",
          "[score]") {
  const auto m = tiny_manifest();
  auto in = all_right();
  in.lesson = "tiny";
  test_record r = failing("m is the running max", "exception", "any message at all");
  r.blank = "m_new";
  in.runs[0] = run_of("code", "[code.a]", {r});
  const auto item = grader::score_code_item(m.units[0].items[0], m.exercises[0], in, lang::en);
  CHECK(item.status == item_status::fail);
  CHECK(item.feedback ==
        "fill in blank `m_new` first (`grader hint tiny m_new` explains the idea)");

  // The same words in a message, with no signal, are only a message.
  in.runs[0] = run_of("code", "[code.a]",
                      {failing("t", "exception", "blank `m_new` is still empty: fill it in")});
  const auto plain = grader::score_code_item(m.units[0].items[0], m.exercises[0], in, lang::en);
  CHECK_THAT(plain.feedback, Contains("Check m."));
}

TEST_CASE("score_code_item: an exercise that did not build errs its own items only", "[score]") {
  const auto m = tiny_manifest();
  auto in = all_right();
  in.not_built["kernel"] = {"kernel.cu", "kernel.cu:1:1: error: x", false};
  const auto exam = grader::score_unit(m, unit_named(m, "exam"), in, lang::en);
  const auto lab = grader::score_unit(m, unit_named(m, "lab"), in, lang::en);
  CHECK(exam.passed);
  CHECK(exam.score == 4);
  CHECK(lab.items[0].status == item_status::error);
  CHECK(lab.items[0].feedback == "kernel.cu does not compile (see above)");
  // A build that ran out of time is not called a compile error.
  in.not_built["kernel"].timed_out = true;
  CHECK(grader::score_unit(m, unit_named(m, "lab"), in, lang::en).items[0].feedback ==
        "kernel.cu did not finish compiling in time (see above)");
}

TEST_CASE("score_code_item: a run counts only for its own exercise's items", "[score]") {
  const auto m = tiny_manifest();
  auto in = all_right();
  in.runs[0].exercise = "kernel";  // [code.a] ran, but in another binary
  const auto r = grader::score_code_item(m.units[0].items[0], m.exercises[0], in, lang::en);
  CHECK(r.status == item_status::error);
  CHECK(r.points == 0);
}

TEST_CASE("veto_fired: only a detector that ran to the end and failed an assertion", "[score]") {
  const auto fired = run_of("code", "[veto:exam:flops]", {failing("d", "assertion", "x")});
  CHECK(grader::veto_fired(fired));
  auto crashed = fired;
  crashed.process.term_signal = 11;
  CHECK_FALSE(grader::veto_fired(crashed));
  auto late = fired;
  late.process.timed_out = true;
  CHECK_FALSE(grader::veto_fired(late));
  CHECK_FALSE(
      grader::veto_fired(run_of("code", "[veto:exam:flops]", {failing("d", "exception", "x")})));
  CHECK_FALSE(grader::veto_fired(run_of("code", "[veto:exam:flops]", {passing("d")})));
}

TEST_CASE("score_unit: a fired detector vetoes its unit whatever the points, with its INFO",
          "[score]") {
  const auto m = tiny_manifest();
  auto in = all_right();
  in.runs[2] = run_of("code", protocol::veto_tag("exam", "flops"),
                      {failing("d", "assertion", "x", {"fewer FLOPs", protocol::seed_line(1)})});
  const auto exam = grader::score_unit(m, unit_named(m, "exam"), in, lang::en);
  CHECK(exam.score == 4);
  CHECK_FALSE(exam.passed);
  REQUIRE(exam.vetoes.size() == 1);
  CHECK(exam.vetoes[0].reason == "code: fewer FLOPs");
  // The lab's own veto is untouched by the exam's detector.
  CHECK(grader::score_unit(m, unit_named(m, "lab"), in, lang::en).passed);
}

TEST_CASE("score_unit: answers parts add up, blanks are named, a malformed file errs", "[score]") {
  const auto m = tiny_manifest();
  auto in = all_right();
  grader::part_grade half, blank;
  half.id = "q1.a";
  half.item = "q1";
  half.points = 1;
  half.max_points = 1.5;
  half.feedback = "one key point of two";
  half.needs_review = true;
  blank.id = "q1.b";
  blank.item = "q1";
  blank.max_points = 0.5;
  blank.blank = true;
  blank.vetoes = {{"flops", "ticked (b)"}};
  in.answers["questions"].parts = {half, blank};
  auto exam = grader::score_unit(m, unit_named(m, "exam"), in, lang::en);
  CHECK(exam.items[1].points == 1);
  CHECK(exam.items[1].status == item_status::partial);
  CHECK(exam.items[1].needs_review);
  CHECK_THAT(exam.items[1].feedback, Contains("not answered: q1.b") && Contains("one key point"));
  REQUIRE(exam.vetoes.size() == 1);
  CHECK(exam.vetoes[0].title == "FLOPs");

  in.answers["questions"] = {};
  in.answers["questions"].error = "answers.md:3: checkbox mark 'y'";
  exam = grader::score_unit(m, unit_named(m, "exam"), in, lang::en);
  CHECK(exam.items[1].status == item_status::error);
  CHECK(exam.items[1].feedback == "answers.md:3: checkbox mark 'y'");
  CHECK(exam.items[0].status == item_status::pass);  // the code is still graded
}

TEST_CASE("score_unit: an instructor's override sets the points and ends the review", "[score]") {
  const auto m = tiny_manifest();
  auto in = all_right();
  in.answers["questions"].parts[0].needs_review = true;
  in.overrides.items["q1"] = 0.5;
  const auto exam = grader::score_unit(m, unit_named(m, "exam"), in, lang::zh);
  CHECK(exam.items[1].points == 0.5);
  CHECK(exam.items[1].auto_points == 2);  // the grader's own value is kept beside it
  CHECK(exam.items[1].reviewed);
  CHECK(exam.items[1].status == item_status::partial);
  CHECK_FALSE(exam.items[1].needs_review);
  CHECK_FALSE(exam.provisional);
  CHECK_THAT(exam.items[1].feedback, Contains("教师复核"));
  CHECK(exam.score == 2.5);
  CHECK_FALSE(exam.passed);
}

namespace {

// q1 of two parts: q1.a (1 point, right) and q1.h, an explanation (1 point).
score_inputs with_explanation(double explanation_points) {
  auto in = all_right();
  grader::part_grade a, h;
  a.id = "q1.a";
  a.item = h.item = "q1";
  a.points = a.max_points = h.max_points = 1;
  h.id = "q1.h";
  h.points = explanation_points;
  h.needs_review = true;
  in.answers["questions"].parts = {a, h};
  return in;
}

}  // namespace

TEST_CASE("score_unit: a part override replaces that part alone and ends its review", "[score]") {
  const auto m = tiny_manifest();
  auto in = with_explanation(0.25);
  auto exam = grader::score_unit(m, unit_named(m, "exam"), in, lang::en);
  CHECK(exam.items[1].points == 1.25);
  CHECK(exam.items[1].needs_review);
  CHECK(exam.provisional);  // an explanation judged by the grader alone
  in.overrides.parts["q1.h"] = 1;
  exam = grader::score_unit(m, unit_named(m, "exam"), in, lang::en);
  CHECK(exam.items[1].points == 2);
  CHECK(exam.items[1].auto_points == 1.25);
  CHECK(exam.items[1].reviewed);
  CHECK_FALSE(exam.items[1].needs_review);
  CHECK_FALSE(exam.provisional);
  CHECK_THAT(exam.items[1].feedback, Contains("q1.h") && Contains("automatic: 0"));
  CHECK(exam.passed);
}

TEST_CASE("score_unit: a veto from free text is provisional; a review confirms or clears it",
          "[score]") {
  const auto m = tiny_manifest();
  auto in = with_explanation(1);
  in.answers["questions"].parts[1].vetoes = {{"flops", "\"FA does fewer FLOPs\"", true}};
  auto exam = grader::score_unit(m, unit_named(m, "exam"), in, lang::en);
  REQUIRE(exam.vetoes.size() == 1);
  CHECK(exam.vetoes[0].provisional);
  CHECK(exam.vetoes[0].applies());
  CHECK_FALSE(exam.passed);  // the automatic verdict holds until a review
  CHECK(exam.provisional);

  in.overrides.vetoes["exam"]["flops"] = grader::veto_decision::clear;
  in.overrides.parts["q1.h"] = 1;
  exam = grader::score_unit(m, unit_named(m, "exam"), in, lang::en);
  REQUIRE(exam.vetoes.size() == 1);  // kept in the report, marked
  CHECK(exam.vetoes[0].review == "cleared");
  CHECK_FALSE(exam.vetoes[0].applies());
  CHECK(exam.passed);
  CHECK_FALSE(exam.provisional);

  in.overrides.vetoes["exam"]["flops"] = grader::veto_decision::set;
  exam = grader::score_unit(m, unit_named(m, "exam"), in, lang::en);
  CHECK(exam.vetoes[0].review == "set");
  CHECK_FALSE(exam.passed);
  CHECK_FALSE(exam.provisional);
}

TEST_CASE("score_unit: a tick veto lifted by the part's own reason does not apply, provisionally",
          "[score]") {
  const auto m = tiny_manifest();
  auto in = with_explanation(1);
  in.answers["questions"].parts[0].lifted = {{"flops", "ticked (a), but explains", true}};
  in.answers["questions"].parts[0].needs_review = true;
  auto exam = grader::score_unit(m, unit_named(m, "exam"), in, lang::en);
  REQUIRE(exam.vetoes.size() == 1);
  CHECK(exam.vetoes[0].lifted);
  CHECK_FALSE(exam.vetoes[0].applies());
  CHECK(exam.passed);
  CHECK(exam.provisional);
  // The same veto raised firmly elsewhere (a code detector, another part) applies.
  in.answers["questions"].parts[1].vetoes = {{"flops", "ticked (d)", false}};
  exam = grader::score_unit(m, unit_named(m, "exam"), in, lang::en);
  REQUIRE(exam.vetoes.size() == 1);
  CHECK(exam.vetoes[0].applies());
  CHECK_FALSE(exam.vetoes[0].provisional);
  CHECK_FALSE(exam.passed);
  // A review can raise a veto nobody found.
  in = all_right();
  in.overrides.vetoes["exam"]["flops"] = grader::veto_decision::set;
  exam = grader::score_unit(m, unit_named(m, "exam"), in, lang::en);
  REQUIRE(exam.vetoes.size() == 1);
  CHECK(exam.vetoes[0].review == "set");
  CHECK_FALSE(exam.passed);
}

TEST_CASE("score_code_item: a sanitizer's stop fails the item with its summary, never a veto",
          "[score]") {
  const auto m = tiny_manifest();
  auto in = all_right();
  in.runs[0] = run_of("code", protocol::item_tag("code.a"), {}, grader::sanitizer_exit_code);
  in.runs[0].process.output =
      "==1==ERROR: AddressSanitizer: heap-buffer-overflow on address 0x6 at pc 0x5 bp 0x4\n"
      "READ of size 4 at 0x6 thread T0\n"
      "    #0 0x55 in std::max_element(float const*) /usr/include/c++/12/bits/stl_algo.h:5632\n"
      "    #1 0x56 in lesson13::update(float const*, int) /home/s/hw/code.cpp:23\n"
      "SUMMARY: AddressSanitizer: heap-buffer-overflow /usr/include/c++/12/bits/stl_algo.h:5632\n";
  in.runs[2] = run_of("code", protocol::veto_tag("exam", "flops"), {failing("d", "assertion", "x")},
                      grader::sanitizer_exit_code);
  const auto exam = grader::score_unit(m, unit_named(m, "exam"), in, lang::en);
  CHECK(exam.items[0].status == item_status::fail);
  CHECK_THAT(exam.items[0].feedback,
             Contains("heap-buffer-overflow, READ of size 4 at code.cpp:23"));
  CHECK_FALSE(Catch::Matchers::Contains("Check m.").match(exam.items[0].feedback));
  CHECK(exam.vetoes.empty());
}

TEST_CASE("sanitizer_summary: UBSan's runtime error with the student's place", "[score]") {
  CHECK(
      grader::sanitizer_summary(
          "/tmp/s/code.cpp:30:12: runtime error: index 32 out of bounds for type 'float [32]'\n"
          "SUMMARY: UndefinedBehaviorSanitizer: undefined-behavior /tmp/s/code.cpp:30:12 in\n",
          "code.cpp") ==
      "UndefinedBehaviorSanitizer: index 32 out of bounds for type 'float [32]' at code.cpp:30:12");
  CHECK(grader::sanitizer_summary("ordinary output\nno report\n", "code.cpp").empty());
  // Not in the student's file: where it was first seen, said as such.
  CHECK_THAT(grader::sanitizer_summary("==1==ERROR: AddressSanitizer: SEGV on unknown address\n"
                                       "    #0 0x1 in f /x/lib.h:9\n",
                                       "code.cpp"),
             Contains("SEGV") && Contains("first reported at lib.h:9"));
}

TEST_CASE("score_report: build failures, blanks and reused results are reported once each",
          "[score]") {
  const auto m = tiny_manifest();
  grader::resolved what;
  for (const auto& u : m.units) what.units.push_back(&u);
  what.files = {{&m.exercises[0], "/sub/code.cpp", {{"m_new", 12}, {"scale", 14}}},
                {&m.exercises[1], "/sub/kernel.cu", {}},
                {&m.exercises[2], "/sub/answers.md", {}}};
  grader::build_result built;
  built.exercises["code"] = {"code", "code.cpp", true, false, "", "/tree/bin/tiny_code_tests", {}};
  built.exercises["kernel"] = {"kernel", "kernel.cu", false, false, "kernel.cu:3:1: error: x",
                               "",       {}};
  grader::test_runs runs;
  runs.runs = all_right().runs;
  runs.reused = {"code.cpp"};
  const auto rep = grader::score_report(m, what, built, runs, all_right().answers, {}, {lang::en});
  REQUIRE(rep.build_failures.size() == 1);
  CHECK(rep.build_failures[0].file == "kernel.cu");
  CHECK(rep.build_failures[0].diagnostics == "kernel.cu:3:1: error: x");
  REQUIRE(rep.messages.size() == 1);
  CHECK_THAT(rep.messages[0], Contains("2 blanks still empty; next: m_new (line 12)"));
  CHECK(rep.reused == std::vector<std::string>{"code.cpp"});
  REQUIRE(rep.units.size() == 2);
  CHECK(rep.units[0].passed);
  CHECK(rep.units[1].items[0].status == item_status::error);
}

TEST_CASE("score_report: the blanks message names the next blank and the command for its hint",
          "[score]") {
  auto m = tiny_manifest();
  const grader::hint_ladder ladder{{{"想一想", "Think."}}, 0};
  m.exercises[0].hints.blanks = {{"m_new", ladder}, {"scale", ladder}};
  grader::resolved what;
  for (const auto& u : m.units) what.units.push_back(&u);
  what.files = {{&m.exercises[0], "/sub/code.cpp", {{"m_new", 12}, {"scale", 14}}},
                {&m.exercises[1], "/sub/kernel.cu", {{"row", 3}}}};
  auto message = [&](lang l) {
    const auto rep = grader::score_report(m, what, {}, {}, {}, {}, {l});
    REQUIRE(rep.messages.size() >= 2);
    return rep.messages;
  };
  CHECK_THAT(message(lang::en)[0],
             EndsWith("code.cpp: 2 blanks still empty; next: m_new (line 12), hint: grader hint "
                      "tiny m_new"));
  CHECK_THAT(
      message(lang::zh)[0],
      EndsWith(
          "code.cpp：还有 2 个空没填；下一个：m_new（第 12 行），提示：grader hint tiny m_new"));
  // A blank without hints gets no command; one blank is "blank", not "blanks".
  CHECK_THAT(message(lang::en)[1], EndsWith("kernel.cu: 1 blank still empty; next: row (line 3)"));
  // The same name in two exercises: the command names the exercise too.
  m.exercises[1].hints.blanks = {{"m_new", ladder}};
  CHECK_THAT(message(lang::en)[0], EndsWith("hint: grader hint tiny code:m_new"));
}

TEST_CASE("score_report: a tree whose sanitizers cannot run says so once, only for C++ code",
          "[score]") {
  const auto m = tiny_manifest();
  grader::resolved what;
  for (const auto& u : m.units) what.units.push_back(&u);
  what.files = {{&m.exercises[0], "/sub/code.cpp", {}}, {&m.exercises[2], "/sub/answers.md", {}}};
  grader::build_result built;
  built.exercises["code"] = {"code", "code.cpp", true, false, "", "/tree/bin/tiny_code_tests", {}};
  built.sanitizers = "off: a program built with -fsanitize=address does not run on this machine";
  grader::test_runs runs;
  runs.runs = all_right().runs;
  auto rep = grader::score_report(m, what, built, runs, all_right().answers, {}, {lang::en});
  REQUIRE(rep.messages.size() == 1);
  CHECK_THAT(rep.messages[0],
             Contains("cannot be used here (a program built with") && Contains("were not checked"));
  built.sanitizers = "on";
  rep = grader::score_report(m, what, built, runs, all_right().answers, {}, {lang::en});
  CHECK(rep.messages.empty());
}

TEST_CASE("score_code_item: tests that could not start are an error, with no advice about the code",
          "[score]") {
  const auto m = tiny_manifest();
  auto in = all_right();
  in.runs[0] = run_of("code", "[code.a]", {});
  in.runs[0].process.spawn_failed = true;
  in.runs[0].process.output = "could not start: Permission denied";
  const auto r = grader::score_code_item(m.units[0].items[0], m.exercises[0], in, lang::en);
  CHECK(r.status == item_status::error);
  CHECK(r.feedback == "the tests could not start: could not start: Permission denied");
}

TEST_CASE("score_code_item: the tests' warnings reach the item, passed or failed, once each",
          "[score]") {
  const auto m = tiny_manifest();
  auto in = all_right();
  auto warned = passing("a");
  warned.warnings = {"the CUDA emulator: a kernel wrote static data", "second"};
  auto again = passing("b");
  again.warnings = {"second"};
  in.runs[0] = run_of("code", protocol::item_tag("code.a"), {warned, again});
  const auto r = grader::score_code_item(m.units[0].items[0], m.exercises[0], in, lang::en);
  CHECK(r.status == item_status::pass);
  CHECK(r.warnings ==
        std::vector<std::string>{"the CUDA emulator: a kernel wrote static data", "second"});
  in.runs[0] = run_of("code", protocol::item_tag("code.a"), {failing("x", "assertion", "x")});
  in.runs[0].records[0].warnings = {"w"};
  CHECK(grader::score_code_item(m.units[0].items[0], m.exercises[0], in, lang::en).warnings ==
        std::vector<std::string>{"w"});
}

TEST_CASE("score_code_item: a cause the test established replaces the item's generic advice",
          "[score]") {
  const auto m = tiny_manifest();
  auto in = all_right();
  in.runs[0] = run_of("code", "[code.a]",
                      {failing("work happens in a kernel", "assertion", "requests > 0",
                               {std::string(protocol::cause_prefix) + "no kernel was launched", "",
                                "kernels: none"})});
  const auto r = grader::score_code_item(m.units[0].items[0], m.exercises[0], in, lang::en);
  CHECK(r.status == item_status::fail);
  CHECK_THAT(r.feedback, Catch::Matchers::StartsWith("no kernel was launched\n"));
  CHECK_THAT(r.feedback, !Contains("Check m.") && !Contains("cause:"));
  CHECK_THAT(r.feedback, Contains("'work happens in a kernel': requests > 0") &&
                             Contains("\n  kernels: none") && !Contains("\n  \n"));
}

TEST_CASE("score_code_item: a call the compute process never answered is the whole story",
          "[score]") {
  const auto m = tiny_manifest();
  auto in = all_right();
  const std::string ended = std::string(protocol::compute_failure_prefix) +
                            "ended without sending its outputs (before answering; it exited with "
                            "code 0: the student's code ended the process)";
  in.runs[0] = run_of("code", "[code.a]", {failing("matches", "exception", ended, {"n=32"})});
  const auto r = grader::score_code_item(m.units[0].items[0], m.exercises[0], in, lang::en);
  CHECK(r.status == item_status::fail);
  CHECK_THAT(r.feedback, Catch::Matchers::StartsWith("'matches': " + ended));
  CHECK_THAT(r.feedback, !Contains("Check m."));
  // The same words in an assertion (a test printing them) are no such cause.
  in.runs[0] = run_of("code", "[code.a]", {failing("matches", "assertion", ended, {})});
  CHECK_THAT(grader::score_code_item(m.units[0].items[0], m.exercises[0], in, lang::en).feedback,
             Contains("Check m."));
}

TEST_CASE("score_code_item: a failing item says how to rerun its tests, in practice only",
          "[score]") {
  const auto m = tiny_manifest();
  score_inputs in = all_right();
  in.runs[0] =
      run_of("code", protocol::item_tag("code.a"), {failing("a", "assertion", "m == 1")}, 1);
  in.seed = 42;
  in.rerun_binaries["code"] = "build/grade/tiny/bin/tiny_code_tests";
  const auto fail = grader::score_code_item(m.units[0].items[0], m.exercises[0], in, lang::en);
  CHECK(fail.rerun == "build/grade/tiny/bin/tiny_code_tests \"[code.a]\" --rng-seed 42");
  // An unfilled blank is not a case to rerun; marking mode (no binaries given) has none.
  test_record blank = failing("a", "exception", "blank");
  blank.blank = "m_new";
  in.runs[0] = run_of("code", protocol::item_tag("code.a"), {blank}, 1);
  CHECK(grader::score_code_item(m.units[0].items[0], m.exercises[0], in, lang::en).rerun.empty());
  in.runs[0] =
      run_of("code", protocol::item_tag("code.a"), {failing("a", "assertion", "m == 1")}, 1);
  in.rerun_binaries.clear();
  CHECK(grader::score_code_item(m.units[0].items[0], m.exercises[0], in, lang::en).rerun.empty());
}
