// Unit tests for the terminal's report (reporters/text.cpp) and its wrapping (base/text.cpp):
// 80 columns in en and zh, the summary line per unit, each file's blanks and the next step,
// `grader status`'s screen, and the JSON's lesson-level verdict (issue 24).
//   build/dev/bin/grader_tests "[text-report]"
#include <catch2/catch.hpp>

#include <string>
#include <vector>

#include "grader/base/files.hpp"
#include "grader/base/text.hpp"
#include "grader/pipeline/reporter.hpp"

using Catch::Matchers::Contains;
using grader::blank_state;
using grader::blank_status;
using grader::display_width;
using grader::item_result;
using grader::item_status;
using grader::lang;
using grader::report;
using grader::unit_report;
using grader::wrap_text;

namespace {

size_t widest_line(const std::string& text) {
  size_t w = 0;
  for (std::string_view line : grader::split_lines(text)) w = std::max(w, display_width(line));
  return w;
}

// A report as long-winded as the real one: long titles, long feedback with a long token,
// a veto, a build failure's note, a blank with a trace; in `l`.
report wordy_report(lang l) {
  const bool zh = l == lang::zh;
  report r;
  r.language = l;
  r.lesson = "lesson13";
  r.title =
      zh ? "第 13 课：GPU 内核与 FlashAttention" : "Lesson 13: GPU kernels and FlashAttention";
  r.submission = "/home/student/a/rather/long/path/to/the/course/checkout/exercises/lesson13";
  r.seed = 3691793689u;
  r.isolation_level = "restricted";
  r.isolation_detail =
      "grader-confine: seccomp, no_new_privs, rlimits, Landlock ABI 7, a uid of its own";
  r.messages = {
      "exercises/lesson13/online_softmax.cpp: 5 blanks still empty; next: m_new "
      "(line 26), hint: grader hint lesson13 online_softmax:m_new"};
  r.build_failures = {{"matmul_tiled.cu",
                       "matmul_tiled.cu:30:50: error: 'Bs' was not declared in this scope; did "
                       "you mean 'As'? (a compiler's line, longer than a terminal)\n   30 |     "
                       "As[ty][tx] = A[row * K + t * T + tx]; Bs[ty][tx] = B[(t * T + ty) * N + "
                       "col];\n      |                                                  ^~",
                       false}};
  unit_report u;
  u.id = "exam";
  u.title = zh ? "第 13 课考核" : "Lesson 13 exam";
  u.max_score = 10;
  u.pass_line = 8;
  const std::string long_title =
      zh ? "在你的在线更新上逐块构建，与标准注意力一致（边界形状、大分数；不生成 n×n 分数）"
         : "Built block by block on your online update, agrees with standard attention (edge "
           "shapes, large scores; no n×n scores)";
  const std::string feedback =
      zh ? "第 5 行、第 3 个 key 块：最大值从 2.1 升到 7.4；你的 scale 是 148，在线更新需要 "
           "exp(m_old − m_new) = 0.0067（空 scale，第 41 行）"
         : "row 5, key block 3: the max rose from 2.1 to 7.4; your scale was 148, the online "
           "update needs exp(m_old − m_new) = 0.0067 (blank scale, line 41); "
           "build/grade/lesson13/bin/lesson13_online_softmax_tests_with_a_very_long_name";
  u.items = {
      item_result{"code.matches_reference", long_title, 0, 1, item_status::fail, feedback},
      item_result{"q1", zh ? "Q1：为什么物化 S 又慢又占内存；FA 省下了什么" : "Q1: why S", 1.5, 2,
                  item_status::partial, feedback, true},
      // An id wider than the id column (capped at 24) gets a line of its own.
      item_result{"warmup.transpose_coalesced_reads", "Coalesced", 0, 0, item_status::pass, ""}};
  u.add_veto("no-running-max", zh ? "说不出为什么需要运行最大值" : "Cannot say why", feedback);
  u.finish();
  r.units = {u};
  r.blanks = {
      blank_state{"online_softmax", "online_softmax.cpp", "m_new", 26, blank_status::pass},
      blank_state{"online_softmax", "online_softmax.cpp", "scale", 30, blank_status::fail, feedback,
                  "online_softmax:scale", true},
      blank_state{"online_softmax", "online_softmax.cpp", "l_new", 39, blank_status::waiting,
                  "scale"},
      blank_state{"online_softmax", "online_softmax.cpp", "O_update", 43, blank_status::empty}};
  return r;
}

}  // namespace

TEST_CASE("wrap_text breaks at spaces, between CJK characters and inside long words",
          "[text-report]") {
  CHECK(wrap_text("", 20) == std::vector<std::string>{""});
  CHECK(wrap_text("one two three four", 9) == std::vector<std::string>{"one two", "three", "four"});
  CHECK(wrap_text("a  b", 20) == std::vector<std::string>{"a  b"});  // spaces kept in a line
  const auto cjk = wrap_text("第十三课的考核题目很长很长", 10);
  for (const auto& line : cjk) CHECK(display_width(line) <= 10);
  CHECK(cjk.size() == 3);
  const auto word = wrap_text("x" + std::string(25, 'y'), 10);
  REQUIRE(word.size() == 3);
  CHECK(word[0] == "xyyyyyyyyy");
  CHECK(wrap_text("first line long", 20, 9) == std::vector<std::string>{"first", "line long"});
}

TEST_CASE("the text report fits 80 columns in en and zh, long titles and feedback wrapped",
          "[text-report]") {
  for (lang l : {lang::en, lang::zh}) {
    const report r = wordy_report(l);
    const std::string text = grader::render_text(r, false);
    CHECK(widest_line(text) <= 80);
    CHECK(widest_line(grader::render_status(r, false)) <= 80);
    // Coloured, the columns are the same (escape sequences take none).
    const std::string coloured = grader::render_text(r, true);
    CHECK(coloured.find('\033') != std::string::npos);
  }
  // Every word of a wrapped title is still there, in order.
  const std::string text = grader::render_text(wordy_report(lang::en), false);
  std::string flat;
  for (std::string_view line : grader::split_lines(text))
    flat += std::string(grader::trim_ascii(line)) + " ";
  CHECK_THAT(flat, Contains("agrees with standard attention (edge shapes, large scores; no n×n "
                            "scores)"));
  CHECK_THAT(flat, Contains("your scale was 148, the online update needs exp(m_old − m_new)"));
  CHECK_THAT(flat, Contains("warmup.transpose_coalesced_reads Coalesced"));
}

TEST_CASE("the report ends with a line per unit, each file's blanks and the next step",
          "[text-report]") {
  report r = wordy_report(lang::en);
  unit_report lab = r.units[0];
  lab.id = "lab";
  lab.title = "Lab 1: coalescing";
  lab.items = {item_result{"coalescing.correct", "Correct", 5, 5, item_status::pass, ""}};
  lab.max_score = 5;
  lab.pass_line = 4;
  lab.vetoes.clear();
  lab.finish();
  r.units.push_back(lab);
  const std::string text = grader::render_text(r, false);
  const auto summary = text.find("\nSummary\n");
  REQUIRE(summary != std::string::npos);
  const std::string ending = text.substr(summary);
  CHECK_THAT(ending, Contains("\n  Lesson 13 exam     1.5 / 10  FAIL (provisional)\n"));
  CHECK_THAT(ending, Contains("\n  Lab 1: coalescing     5 / 5  PASS\n"));
  CHECK_THAT(ending, Contains("\n  1 of 2 units pass\n"));
  CHECK_THAT(ending, Contains("  online_softmax.cpp  1/4 blanks right\n"
                              "    ✓ m_new  ✗ scale  ? l_new  · O_update\n"));
  CHECK_THAT(ending, Contains("    ✗ scale (line 30): wrong: row 5, key block 3"));
  CHECK_THAT(ending, Contains("    ? l_new (line 39): filled; judged once `scale` is filled\n"));
  // The next step: a wrong blank before an empty one, with its line and its hint.
  CHECK_THAT(ending, Contains("Next: fix blank `scale` (online_softmax.cpp line 30); hint: "
                              "grader hint lesson13"));
  r.blanks[1].status = blank_status::pass;
  CHECK_THAT(grader::render_status(r, false),
             Contains("Next: fill in blank `O_update` (online_softmax.cpp line 43)"));
  // No blank left: the first item that does not pass; everything passing: hand it in.
  r.blanks.resize(2);
  CHECK_THAT(grader::render_status(r, false),
             Contains("Next: Lesson 13 exam: code.matches_reference"));
  r.units = {lab};
  CHECK_THAT(grader::render_status(r, false), Contains("Next: every unit passes: hand it in"));
  // In zh: the same ending, in Chinese.
  const std::string zh = grader::render_status(wordy_report(lang::zh), false);
  CHECK_THAT(zh, Contains("\n小结\n"));
  CHECK_THAT(zh, Contains("0/1 个单元通过"));
  CHECK_THAT(zh, Contains("下一步：改正空 `scale`（online_softmax.cpp 第 30 行）"));
}

TEST_CASE("the JSON's passed is the lesson's verdict, beside units_passed and each blank",
          "[text-report]") {
  report r = wordy_report(lang::en);
  unit_report lab = r.units[0];
  lab.id = "lab";
  lab.items = {item_result{"x", "X", 1, 1, item_status::pass, ""}};
  lab.max_score = 1;
  lab.pass_line = 1;
  lab.vetoes.clear();
  lab.finish();
  r.units.push_back(lab);
  auto j = grader::to_json(r);
  CHECK(j["passed"] == false);  // the exam fails: the lesson fails
  CHECK(j["units_passed"] == 1);
  CHECK(j["units_graded"] == 2);
  CHECK(j["units"][1]["passed"] == true);
  REQUIRE(j["blanks"].size() == 4);
  CHECK(j["blanks"][1]["status"] == "fail");
  CHECK(j["blanks"][1]["line"] == 30);
  CHECK(j["blanks"][1]["hint"] == "online_softmax:scale");
  CHECK(j["blanks"][2]["detail"] == "scale");
  // Only the lab graded (--unit), and passing: the lesson's verdict is that unit's.
  r.units = {lab};
  j = grader::to_json(r);
  CHECK(j["passed"] == true);
  CHECK(j["units_passed"] == 1);
}
