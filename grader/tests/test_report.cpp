// Unit tests for report scoring, verdicts, JSON and the terminal table (grader/src/report.cpp).
//   build/bin/grader_tests "[report]"
#include <catch2/catch.hpp>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "grader/base/text.hpp"
#include "grader/base/files.hpp"
#include "grader/pipeline/reporter.hpp"

using Catch::Matchers::Contains;
using grader::display_width;
using grader::item_result;
using grader::item_status;
using grader::lang;
using grader::render_text;
using grader::report;
using grader::to_json;
using grader::unit_report;

namespace {

item_result make_item(std::string id, std::string title, double points, double max_points,
                      item_status status, std::string feedback = {}, bool needs_review = false) {
  return item_result{std::move(id), std::move(title),    points,      max_points,
                     status,        std::move(feedback), needs_review};
}

unit_report make_unit(std::vector<item_result> items, double pass_line = 8, double max_score = 10) {
  unit_report u;
  u.id = "exam";
  u.title = "Lesson 13 exam";
  u.max_score = max_score;
  u.pass_line = pass_line;
  u.items = std::move(items);
  return u;
}

// The lesson13 exam: every item earned, except that q3 earns `q3` of its 2 points.
unit_report exam(double q3 = 2) {
  return make_unit({make_item("code.update", "Online update", 2, 2, item_status::pass,
                              "The online update is right."),
                    make_item("code.normalize", "Final normalisation", 1, 1, item_status::pass),
                    make_item("code.matches_reference", "Agrees with standard attention", 1, 1,
                              item_status::pass),
                    make_item("q1", "Q1", 2, 2, item_status::pass, "", true),
                    make_item("q2", "Q2", 2, 2, item_status::pass, "", true),
                    make_item("q3", "Q3", q3, 2, q3 < 2 ? item_status::partial : item_status::pass,
                              q3 < 2 ? "q3.a: wrong choice" : "", true)});
}

std::set<std::string> keys(const nlohmann::json& j) {
  std::set<std::string> out;
  for (const auto& [k, v] : j.items()) out.insert(k);
  return out;
}

}  // namespace

// ==== unit_report::finish
// =============================================================================

TEST_CASE("unit_report::finish sums the items' points, rounded to hundredths", "[report]") {
  unit_report u = make_unit({make_item("a", "A", 2, 2, item_status::pass),
                             make_item("b", "B", 1.0 / 3, 1, item_status::partial),
                             make_item("c", "C", 2.0 / 3, 1, item_status::partial),
                             make_item("d", "D", 0.004, 1, item_status::partial)},
                            3);
  u.score = 99;  // recomputed, not added to
  u.finish();
  CHECK(u.items[1].points == 0.33);
  CHECK(u.items[2].points == 0.67);
  CHECK(u.items[3].points == 0);
  CHECK(u.score == Approx(3.0).margin(1e-12));
  CHECK(u.passed);

  u.finish();  // idempotent
  CHECK(u.score == Approx(3.0).margin(1e-12));
  CHECK(u.passed);

  unit_report empty = make_unit({}, 0);
  empty.finish();
  CHECK(empty.score == 0);
}

TEST_CASE("unit_report::finish passes at the pass line, not below it", "[report]") {
  unit_report at = exam(0);  // 8 of 10
  at.finish();
  CHECK(at.score == Approx(8));
  CHECK(at.passed);

  unit_report below = exam(0);
  below.items[4].points = 1.99;  // 7.99
  below.finish();
  CHECK(below.score == Approx(7.99));
  CHECK_FALSE(below.passed);

  unit_report rounds_up = exam(0);
  rounds_up.items[4].points = 1.996;  // rounds to 2: 8
  rounds_up.finish();
  CHECK(rounds_up.score == Approx(8));
  CHECK(rounds_up.passed);

  unit_report tenths = make_unit({make_item("a", "A", 0.1, 1, item_status::partial),
                                  make_item("b", "B", 0.2, 1, item_status::partial)},
                                 0.3, 2);
  tenths.finish();  // 0.1 + 0.2 is not 0.3 in binary; the verdict must not care
  CHECK(tenths.passed);
}

TEST_CASE("unit_report::finish fails a unit with any veto, whatever its score", "[report]") {
  unit_report u = exam();
  u.add_veto("flops-reduced", "Claims FlashAttention lowers FLOPs", "q1.d: ticked (a)");
  u.finish();
  CHECK(u.score == Approx(10));
  CHECK_FALSE(u.passed);
}

TEST_CASE("unit_report::add_veto keeps one entry per id and merges the reasons", "[report]") {
  unit_report u = exam();
  u.add_veto("flops-reduced", "Claims FlashAttention lowers FLOPs", "q1.d: ticked (a)");
  u.add_veto("flops-reduced", "another title", "q3.d: ticked (a)");
  u.add_veto("flops-reduced", "Claims FlashAttention lowers FLOPs",
             "q1.d: ticked (a)");  // already there
  u.add_veto("no-running-max", "Cannot say why the running max is needed", "q1.f: not answered");
  REQUIRE(u.vetoes.size() == 2);
  CHECK(u.vetoes[0].id == "flops-reduced");
  CHECK(u.vetoes[0].title == "Claims FlashAttention lowers FLOPs");
  CHECK(u.vetoes[0].reason == "q1.d: ticked (a); q3.d: ticked (a)");
  CHECK(u.vetoes[1].id == "no-running-max");
  CHECK(u.vetoes[1].reason == "q1.f: not answered");
}

TEST_CASE("report::passed needs every unit to pass, and at least one unit", "[report]") {
  report r;
  CHECK_FALSE(r.passed());
  r.units.push_back(exam());
  r.units.push_back(exam(0));
  r.units.back().items[4].points = 0;  // 6 of 10
  for (auto& u : r.units) u.finish();
  CHECK(r.units[0].passed);
  CHECK_FALSE(r.units[1].passed);
  CHECK_FALSE(r.passed());
  r.units.pop_back();
  CHECK(r.passed());
}

// ==== to_json
// =========================================================================================

TEST_CASE("to_json has the documented fields, first unit on top and every unit in units",
          "[report]") {
  report r;
  r.lesson = "lesson13";
  r.title = "Lesson 13: GPU kernels and FlashAttention";
  r.submission = "exercises/lesson13";
  r.language = lang::zh;
  r.seed = 42;
  r.messages = {"online_softmax.cpp: 1 blank(s) still empty: m_new (line 3)"};
  unit_report first = exam(2 - 1.0 / 3);  // q3: 1.6667
  first.add_veto("flops-reduced", "Claims FlashAttention lowers FLOPs", "q1.d: ticked (a)");
  first.finish();
  unit_report second = make_unit(
      {make_item("x", "X", 0, 1, item_status::error, "the code does not compile")}, 0.5, 1);
  second.id = "extra";
  second.finish();
  r.units = {first, second};

  const nlohmann::json j = to_json(r);
  CHECK(keys(j) == std::set<std::string>{"lesson",
                                         "unit",
                                         "score",
                                         "max_score",
                                         "pass_line",
                                         "passed",
                                         "vetoes",
                                         "items",
                                         "units",
                                         "title",
                                         "submission",
                                         "seed",
                                         "lang",
                                         "messages",
                                         "isolation",
                                         "isolation_level",
                                         "isolation_detail",
                                         "reused",
                                         "build_failures",
                                         "provisional",
                                         "review_file",
                                         "outside_blanks",
                                         "at_submission_points",
                                         "mode",
                                         "ignored_files",
                                         "judged_apart",
                                         "blanks",
                                         "units_passed",
                                         "units_graded"});
  CHECK(j["lesson"] == "lesson13");
  CHECK(j["unit"] == "exam");
  CHECK(j["score"].get<double>() == Approx(9.67));
  CHECK(j["max_score"].get<double>() == 10);
  CHECK(j["pass_line"].get<double>() == 8);
  CHECK(j["passed"] == false);
  CHECK(j["title"] == "Lesson 13: GPU kernels and FlashAttention");
  CHECK(j["submission"] == "exercises/lesson13");
  CHECK(j["seed"] == 42);
  CHECK(j["lang"] == "zh");
  CHECK(j["messages"] ==
        nlohmann::json::array({"online_softmax.cpp: 1 blank(s) still empty: m_new (line 3)"}));

  REQUIRE(j["vetoes"].is_array());
  REQUIRE(j["vetoes"].size() == 1);
  CHECK(keys(j["vetoes"][0]) ==
        std::set<std::string>{"id", "reason", "applies", "provisional", "lifted", "review"});
  CHECK(j["vetoes"][0]["id"] == "flops-reduced");
  CHECK(j["vetoes"][0]["reason"] == "q1.d: ticked (a)");

  REQUIRE(j["items"].size() == 6);
  for (const auto& it : j["items"])
    CHECK(keys(it) == std::set<std::string>{"id", "title", "points", "max_points", "status",
                                            "feedback", "needs_review", "auto_points", "reviewed",
                                            "warnings", "at_submission", "rerun"});
  CHECK(j["items"][0]["id"] == "code.update");
  CHECK(j["items"][0]["title"] == "Online update");
  CHECK(j["items"][0]["points"].get<double>() == 2);
  CHECK(j["items"][0]["status"] == "pass");
  CHECK(j["items"][0]["feedback"] == "The online update is right.");
  CHECK(j["items"][0]["needs_review"] == false);
  CHECK(j["items"][5]["id"] == "q3");
  CHECK(j["items"][5]["points"].get<double>() == Approx(1.67));
  CHECK(j["items"][5]["max_points"].get<double>() == 2);
  CHECK(j["items"][5]["status"] == "partial");
  CHECK(j["items"][5]["needs_review"] == true);

  REQUIRE(j["units"].size() == 2);
  for (const char* k :
       {"lesson", "unit", "score", "max_score", "pass_line", "passed", "vetoes", "items"})
    CHECK(j["units"][0][k] == j[k]);
  CHECK(keys(j["units"][1]) == std::set<std::string>{"lesson", "unit", "score", "max_score",
                                                     "pass_line", "passed", "provisional", "vetoes",
                                                     "items", "at_submission_points"});
  CHECK(j["units"][1]["lesson"] == "lesson13");
  CHECK(j["units"][1]["unit"] == "extra");
  CHECK(j["units"][1]["passed"] == false);
  CHECK(j["units"][1]["vetoes"] == nlohmann::json::array());
  CHECK(j["units"][1]["items"][0]["status"] == "error");
}

TEST_CASE("to_json rounds points to hundredths and names every status", "[report]") {
  report r;
  r.lesson = "l";
  r.units.push_back(make_unit(
      {make_item("a", "A", 0.123456, 1, item_status::partial),
       make_item("b", "B", 1, 1, item_status::pass), make_item("c", "C", 0, 1, item_status::fail),
       make_item("d", "D", 0, 1, item_status::error)},
      1, 4));
  r.units[0].finish();
  const auto j = to_json(r);
  CHECK(j["items"][0]["points"].get<double>() == 0.12);
  CHECK(j["score"].get<double>() == 1.12);
  CHECK(j["passed"] == true);
  CHECK(j["lang"] == "en");
  std::vector<std::string> statuses;
  for (const auto& it : j["items"]) statuses.push_back(it["status"]);
  CHECK(statuses == std::vector<std::string>{"partial", "pass", "fail", "error"});
  CHECK(std::string(grader::to_string(item_status::partial)) == "partial");
}

TEST_CASE("to_json of a report with no unit still has units and messages", "[report]") {
  report r;
  r.lesson = "lesson13";
  r.messages = {"no compiler"};
  const auto j = to_json(r);
  CHECK(j["units"] == nlohmann::json::array());
  CHECK(j["messages"] == nlohmann::json::array({"no compiler"}));
  CHECK(j.contains("title"));
}

// ==== render_text
// =====================================================================================

TEST_CASE("render_text shows the items, PASS and no vetoes for a passing unit", "[report]") {
  report r;
  r.title = "Lesson 13: GPU kernels and FlashAttention";
  r.submission = "solutions/lesson13";
  r.units.push_back(exam());
  r.units[0].finish();
  const std::string text = render_text(r, false);
  CHECK(text.starts_with(
      "Lesson 13: GPU kernels and FlashAttention\nSubmission: solutions/lesson13\n"));
  CHECK_THAT(text, Contains("\nLesson 13 exam\n"));
  CHECK_THAT(text, Contains("The online update is right."));
  CHECK_THAT(text, Contains("(needs review)"));
  CHECK_THAT(text, Contains("  Vetoes: none\n"));
  CHECK_THAT(
      text,
      Contains("  Score 10 / 10   pass line 8   PASS (provisional: parts wait for review)\n"));
  CHECK_FALSE(text.find("FAIL") != std::string::npos);
  CHECK(text.find('\033') == std::string::npos);  // no colour asked for
}

TEST_CASE("render_text shows FAIL, the vetoes and their reasons", "[report]") {
  report r;
  r.title = "Lesson 13";
  r.submission = "exercises/lesson13";
  r.messages = {"Compilation failed:\nonline_softmax.cpp:3:1: error: x"};
  r.units.push_back(exam(0.5));
  r.units[0].add_veto("flops-reduced", "Claims FlashAttention lowers FLOPs", "q1.d: ticked (a)");
  r.units[0].finish();
  const std::string text = render_text(r, false);
  CHECK_THAT(text, Contains("\n  Compilation failed:\n  online_softmax.cpp:3:1: error: x\n"));
  CHECK_THAT(text, Contains("  Vetoes:\n    ✗ flops-reduced — Claims FlashAttention lowers FLOPs\n "
                            "     q1.d: ticked (a)\n"));
  CHECK_THAT(text, Contains("      q3.a: wrong choice\n"));
  CHECK_THAT(text, Contains("  ~ q3 "));
  CHECK_THAT(
      text,
      Contains("  Score 8.5 / 10   pass line 8   FAIL (provisional: parts wait for review)\n"));
  CHECK(text.find("PASS") == std::string::npos);
  CHECK(text.find("Vetoes: none") == std::string::npos);

  const std::string coloured = render_text(r, true);
  CHECK_THAT(coloured, Contains("\033[31;1mFAIL\033[0m"));
  CHECK_THAT(coloured, Contains("\033[1mLesson 13\033[0m"));
}

TEST_CASE("render_text speaks Chinese and aligns CJK titles by display width", "[report]") {
  report r;
  r.language = lang::zh;
  r.title = "第 13 课";
  r.submission = "exercises/lesson13";
  r.units.push_back(
      make_unit({make_item("code.update", "在线更新", 2, 2, item_status::pass),
                 make_item("q1", "Q1：问答题", 1.5, 2, item_status::partial, "", true),
                 make_item("q2", "abc", 0, 2, item_status::fail)},
                4, 6));
  r.units[0].title = "第 13 课考核";
  r.units[0].finish();
  const std::string text = render_text(r, false);
  CHECK_THAT(text, Contains("提交： exercises/lesson13\n"));
  CHECK_THAT(text, Contains("（待人工复核）"));
  CHECK_THAT(text, Contains("  一票否决：无\n"));
  CHECK_THAT(text, Contains("  得分 3.5 / 6   通过线 4   FAIL（暂定：有待人工复核的部分）\n"));

  // Every item row puts its " / " at the same terminal column.
  std::vector<size_t> columns;
  for (std::string_view line : grader::split_lines(text)) {
    const auto slash = line.find(" / ");
    if (!line.starts_with("  ✓") && !line.starts_with("  ~") && !line.starts_with("  ✗")) continue;
    REQUIRE(slash != std::string_view::npos);
    columns.push_back(display_width(line.substr(0, slash)));
  }
  REQUIRE(columns.size() == 3);
  CHECK(columns[0] == columns[1]);
  CHECK(columns[1] == columns[2]);
}

// ==== display_width
// ===================================================================================

TEST_CASE("display_width counts CJK characters as two columns", "[report]") {
  CHECK(display_width("") == 0);
  CHECK(display_width("abc") == 3);
  CHECK(display_width("中文") == 4);
  CHECK(display_width("a中b") == 4);
  CHECK(display_width("第 13 课考核") == 12);
  CHECK(display_width("（）") == 4);  // full-width parentheses
  CHECK(display_width("，。") == 4);  // CJK punctuation
  CHECK(display_width("한국") == 4);  // Hangul
  CHECK(display_width("カタ") == 4);  // Katakana
  CHECK(display_width("é") == 1);     // two bytes, one column
  CHECK(display_width("✓✗—~") == 4);  // narrow symbols
  CHECK(display_width("Θ(N²)") == 5);
  CHECK(display_width("\xe4\xb8") == 1);  // a truncated sequence: one character, no overrun
}

// ==== the formats other systems read (docs/formats/)
// =============================================================================

namespace {
std::string written(const char* format, const report& r) {
  std::ostringstream out;
  auto w = grader::make_reporter(format);
  REQUIRE(w);
  w->write(r, out);
  return out.str();
}

// Feedback as hostile as a compiler's echo of a student's file: a control character,
// a stray byte that is not UTF-8, XML's specials and a CDATA end.
report hostile_report() {
  report r;
  r.lesson = "lesson13";
  r.title = "Lesson 13";
  unit_report u = exam(1);
  u.items[0].feedback = "bad \x01 byte \xff & <tag> \"q\" ]]> end";
  u.items[0].status = item_status::error;
  u.items[0].points = 0;
  u.add_veto("no-running-max", "No running max", "exp overflows");
  u.finish();
  r.units = {u};
  return r;
}
}  // namespace

TEST_CASE("every format is listed and made by name", "[report][formats]") {
  for (const char* f : {"text", "json", "gradescope", "junit", "exercism", "classroom"})
    CHECK(grader::make_reporter(f) != nullptr);
  CHECK(grader::make_reporter("csv") == nullptr);
}

TEST_CASE("junit escapes markup and drops what XML 1.0 cannot hold", "[report][formats]") {
  const std::string xml = written("junit", hostile_report());
  CHECK(xml.find('\x01') == std::string::npos);
  CHECK(xml.find('\xff') == std::string::npos);
  CHECK_THAT(
      xml,
      Contains("bad \xEF\xBF\xBD byte \xEF\xBF\xBD &amp; &lt;tag&gt; &quot;q&quot; ]]&gt; end"));
  CHECK_THAT(xml, Contains("<error message=\"bad"));  // the errored item
  CHECK_THAT(xml, Contains("type=\"verdict\""));      // the vetoed unit's verdict fails
  CHECK_THAT(xml, Contains("veto no-running-max: exp overflows"));
}

TEST_CASE("the JSON formats write valid UTF-8 whatever the feedback holds", "[report][formats]") {
  for (const char* f : {"gradescope", "exercism", "classroom"}) {
    INFO(f);
    std::string text;
    REQUIRE_NOTHROW(text = written(f, hostile_report()));
    const auto j = nlohmann::json::parse(text);
    CHECK(text.find('\xff') == std::string::npos);
    CHECK(j.contains("tests"));
    CHECK(j["tests"].size() == 7);  // six items and the verdict
  }
}

TEST_CASE("gradescope and classroom carry the rubric's points; the verdict carries none",
          "[report][formats]") {
  report r;
  r.units = {exam(1)};
  r.units[0].finish();
  const auto gs = nlohmann::json::parse(written("gradescope", r));
  CHECK(gs["score"] == 9.0);
  CHECK(gs["tests"][5]["score"] == 1.0);
  CHECK(gs["tests"][5]["status"] == "failed");
  CHECK(gs["tests"][6]["max_score"] == 0.0);
  CHECK(gs["tests"][6]["status"] == "passed");  // 9 of 10 passes the line of 8
  const auto cl = nlohmann::json::parse(written("classroom", r));
  CHECK(cl["max_score"] == 10.0);
  CHECK(cl["status"] == "fail");  // an item lost points
  const auto ex = nlohmann::json::parse(written("exercism", r));
  CHECK(ex["version"] == 3);
  CHECK(ex["status"] == "fail");
  CHECK(ex["tests"][0]["task_id"] == 1);
}

TEST_CASE("terminal_text lets no escape sequence reach a terminal", "[report][formats]") {
  // ESC [ 2 J clears the screen; CR rewrites a line; C1 CSI (U+009B) starts a sequence too.
  const std::string t = grader::terminal_text(
      "a\x1b[2Jb\rc\x08\x7f d\xc2\x9b"
      "31m\ttab\nline \xff 中");
  CHECK(t.find('\x1b') == std::string::npos);
  CHECK(t.find('\r') == std::string::npos);
  CHECK(t.find('\x08') == std::string::npos);
  CHECK(t.find('\x7f') == std::string::npos);
  CHECK(t.find("\xc2\x9b") == std::string::npos);
  CHECK(t ==
        "a\xEF\xBF\xBD[2Jb\xEF\xBF\xBD"
        "c\xEF\xBF\xBD\xEF\xBF\xBD d\xEF\xBF\xBD"
        "31m\ttab\nline \xEF\xBF\xBD 中");
  CHECK(grader::terminal_text("plain, 中文, é") == "plain, 中文, é");
}

TEST_CASE("markdown_text: a student's name renders as itself, never as markup", "[report]") {
  using grader::markdown_text;
  CHECK(markdown_text("<img src=x onerror=alert(1)>") == "&lt;img src=x onerror=alert(1)&gt;");
  CHECK(markdown_text("[x](javascript:alert(1))") == "\\[x\\](javascript:alert(1))");
  CHECK(markdown_text("a | b") == "a \\| b");
  CHECK(markdown_text("# heading") == "\\# heading");
  CHECK(markdown_text("1. item") == "1\\. item");
  CHECK(markdown_text("*bold* `code`") == "\\*bold\\* \\`code\\`");
  CHECK(markdown_text("two\nlines") == "two lines");  // one line: no forged row or heading
  CHECK(markdown_text("Ada Lovelace") == "Ada Lovelace");
}
