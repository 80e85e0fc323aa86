// Unit tests for the student release: what `grader dev release` keeps, rewrites and refuses
// (release.cpp), the questions checked without a key (answers_form.cpp) and the provisional
// verdict of a unit graded partly at submission (score, report, reporters).
//   build/dev/bin/grader_tests "[release]"
#include <catch2/catch.hpp>

#include <fstream>
#include <sstream>

#include "course/protocol.hpp"
#include "grader/base/error.hpp"
#include "grader/base/files.hpp"
#include "grader/commands/release.hpp"
#include "grader/lesson/answers.hpp"
#include "grader/pipeline/reporter.hpp"
#include "grader/pipeline/score.hpp"
#include "temp_dir.hpp"

namespace fs = std::filesystem;
using Catch::Matchers::Contains;
using grader::item_status;
using grader::lang;

namespace {

void write(const fs::path& p, const std::string& text) {
  fs::create_directories(p.parent_path());
  std::ofstream(p) << text;
}

grader::exercise exercise_of(const std::string& id, const std::string& file,
                             const std::string& kind, const std::string& key = "") {
  grader::exercise e;
  e.id = id;
  e.file = file;
  e.kind = kind;
  e.key = key;
  return e;
}

std::string read(const fs::path& p) {
  std::ifstream in(p);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

const std::vector<grader::part_form> form = {{"q1.a", "q1", "choice", ""},
                                             {"q1.b", "q1", "number", "MiB"},
                                             {"q1.c", "q1", "explanation", ""},
                                             {"q2.a", "q2", "multi", ""}};

grader::answers_result check(const std::string& text) {
  temp_dir dir;
  write(dir.path / "answers.md", text);
  return grader::check_answers_form(dir.path / "answers.md", form, lang::en);
}

const grader::part_grade& part(const grader::answers_result& r, const std::string& id) {
  for (const auto& p : r.parts)
    if (p.id == id) return p;
  throw std::logic_error("no part " + id);
}

// A course with one lesson, its solutions, a template and an instructor-only block.
struct tiny_course {
  temp_dir dir{"grader-release"};
  grader::course c;
  grader::manifest m;
  tiny_course() {
    const fs::path r = dir.path / "course";
    c.root = r;
    write(r / "CMakeLists.txt", "project(x)\n");
    write(r / "README.md", "See [the answers](solutions/l1/notes/x.md).\n");
    write(r / "docs/release/README.student.md", "# For students\n");
    write(r / "docs/guide.md",
          "Kept.\n<!-- instructor-only -->\nSee [notes](../solutions/l1/notes/x.md).\n"
          "<!-- end instructor-only -->\nKept too.\n");
    write(r / "lessons/l1/manifest.json", "{\"lesson\": \"l1\"}\n");
    write(r / "lessons/l2/manifest.json", "{\"lesson\": \"l2\"}\n");
    write(r / "exercises/l1/answers.md", "### [q1.a] ?\n- [ ] (a) x\n");
    write(r / "exercises/l1/answer_key.json", "{}\n");
    write(r / "grader/src/a.cpp", "int a;\n");
    write(r / "grader/tests/test_a.cpp", "// quotes an answer\n");
    write(r / "build/junk.txt", "x\n");
    write(r / ".cache/junk.txt", "x\n");
    write(r / ".ci/run", "#!/bin/sh\n");
    fs::permissions(r / ".ci/run", fs::perms::owner_exec, fs::perm_options::add);
    write(r / "solutions/l1/answer_key.json",
          R"({"parts": [{"id": "q1.a", "item": "q1", "type": "choice", "points": 1,
                         "options": ["a"], "correct": ["a"]}]})");
    write(r / "solutions/l1/notes/x.md", "the answer is (a)\n");
    m.lesson = "l1";
    m.exercises = {exercise_of("questions", "answers.md", "answers", "answer_key.json")};
  }
};

}  // namespace

TEST_CASE("left_out_of_release: solutions, keys, the grader's own tests, other lessons",
          "[release]") {
  using grader::left_out_of_release;
  for (const char* out :
       {"solutions/lesson13/online_softmax.cpp", "solutions/lesson13/hidden_tests/test_x.cpp",
        "lessons/lesson13/answer_key.json", "answer_key_v2.json", "grader/tests/cli_test.sh",
        "grader/bench/regrade.sh", "grader/emulator/bench/emulator_bench.cu",
        "grader/emulator/tests/test_races.cpp", "grader/reader/tests/test_claims.cpp",
        "docs/answer_key.schema.json", "docs/release/README.student.md", "lessons/lesson14/x.md",
        "exercises/lesson14/a.cpp", "RELEASE.json"})
    CHECK_FALSE(left_out_of_release(out, "lesson13").empty());
  for (const char* in :
       {"README.md", "lessons/lesson13/manifest.json", "exercises/lesson13/answers.md",
        "grader/src/commands/release.cpp", "grader/testing/catch_main.cpp",
        "grader/emulator/src/fiber.cpp", "grader/reader/src/claims.cpp", "docs/grader.md",
        "docs/mutant.schema.json", "solutionsX/a.md", "lessons/lesson13", ".ci/run"})
    CHECK(left_out_of_release(in, "lesson13").empty());
}

TEST_CASE("release_template_target: docs/release/<path>.student.<ext> replaces <path>.<ext>",
          "[release]") {
  CHECK(grader::release_template_target("docs/release/README.student.md") == "README.md");
  CHECK(grader::release_template_target("docs/release/lessons/l1/README.student.md") ==
        "lessons/l1/README.md");
  CHECK(grader::release_template_target("docs/release/notes.md").empty());
  CHECK(grader::release_template_target("docs/README.student.md").empty());
}

TEST_CASE("strip_instructor_blocks drops each block with its markers and counts them",
          "[release]") {
  int n = -1;
  CHECK(grader::strip_instructor_blocks(
            "a\n<!-- instructor-only -->\nb\n  <!-- end instructor-only -->\nc\n", "f.md", &n) ==
        "a\nc\n");
  CHECK(n == 1);
  CHECK(grader::strip_instructor_blocks("a\nb", "f.md", &n) == "a\nb");
  CHECK(n == 0);
  CHECK_THROWS_WITH(grader::strip_instructor_blocks("a\n<!-- instructor-only -->\nb\n", "f.md"),
                    "f.md:2: <!-- instructor-only --> is never closed");
  CHECK_THROWS_AS(grader::strip_instructor_blocks("<!-- end instructor-only -->\n", "f.md"),
                  grader::input_error);
}

TEST_CASE("check_answers_form: blanks, unreadable numbers and two ticks in a choice are named",
          "[release]") {
  const auto r = check(
      "### [q1.a] ?\n- [x] (a) x\n- [x] (b) y\n"
      "### [q1.b] ?\nanswer: 32 GB/s\n"
      "### [q1.c] ?\nanswer:\n"
      "### [q2.a] ?\n- [ ] (a) x\n");
  CHECK(r.at_submission);
  CHECK(r.error.empty());
  REQUIRE(r.parts.size() == 4);
  CHECK_THAT(part(r, "q1.a").feedback, Contains("tick one box only"));
  CHECK_THAT(part(r, "q1.b").feedback, Contains("32 GB/s"));
  CHECK(part(r, "q1.c").blank);
  CHECK(part(r, "q2.a").blank);
  for (const auto& p : r.parts) CHECK(p.points == 0);
}

TEST_CASE("check_answers_form: a complete file has no feedback; a missing heading is blank",
          "[release]") {
  const auto r = check(
      "### [q1.a] ?\n- [x] (a) x\n- [ ] (b) y\n"
      "### [q1.b] ?\nanswer: 约 32 MB\n"
      "### [q1.c] ?\nanswer:\nS is N×N and goes through HBM.\n");
  CHECK(part(r, "q1.a").feedback.empty());
  CHECK(part(r, "q1.b").feedback.empty());
  CHECK_FALSE(part(r, "q1.c").blank);
  CHECK(part(r, "q2.a").blank);
  CHECK_THAT(part(r, "q2.a").feedback, Contains("missing from the answers file"));
}

TEST_CASE("the answer form goes through JSON unchanged and refuses an unknown type", "[release]") {
  CHECK(grader::form_from_json(grader::to_json(form), "RELEASE.json").size() == form.size());
  CHECK(grader::form_from_json(grader::to_json(form), "x")[1].unit == "MiB");
  CHECK_THROWS_AS(
      grader::form_from_json(
          nlohmann::json::array({{{"id", "q"}, {"item", "q"}, {"type", "essay"}}}), "x"),
      grader::input_error);
  CHECK_THROWS_AS(grader::form_from_json(nlohmann::json::object(), "x"), grader::input_error);
}

TEST_CASE("a unit with questions graded at submission: provisional, passed on what is here",
          "[release]") {
  grader::manifest m;
  m.lesson = "tiny";
  m.exercises = {exercise_of("code", "code.cpp", "cpp"),
                 exercise_of("questions", "answers.md", "answers", "key.json")};
  grader::unit exam{"exam", {"考核", "Exam"}, 10, 8, {}, {}};
  exam.items = {{"code.a", "code", 4, {"甲", "A"}, {"好", "Good."}, {"查", "Check."}},
                {"q1", "questions", 6, {"问一", "Q1"}, {}, {}}};
  m.units = {exam};
  grader::score_inputs in;
  grader::tag_run run;
  run.exercise = "code";
  run.tag = course::protocol::item_tag("code.a");
  grader::test_record ok;
  ok.name = "a";
  ok.passed = true;
  run.records = {ok};
  run.process.exit_code = 0;
  in.runs = {run};
  grader::answers_result a;
  a.at_submission = true;
  a.parts = {{"q1.a", "q1", 0, 0, {}, false, false, {}, {}}};
  in.answers["questions"] = a;

  auto u = grader::score_unit(m, m.units[0], in, lang::en);
  REQUIRE(u.items.size() == 2);
  CHECK(u.items[1].status == item_status::at_submission);
  CHECK(u.items[1].at_submission);
  CHECK(u.items[1].points == 0);
  CHECK_THAT(u.items[1].feedback, Contains("graded at submission"));
  CHECK(u.score == 4);
  CHECK(u.at_submission_points == 6);
  CHECK(u.provisional);
  CHECK(u.passed);  // below the pass line, but everything graded here passed

  grader::report rep;
  rep.units = {u};
  const std::string text = grader::render_text(rep, false);
  // The line wraps at 80 columns: compare with the breaks and indents folded to spaces.
  std::string flat;
  for (std::string_view line : grader::split_lines(text))
    flat += std::string(grader::trim_ascii(line)) + " ";
  CHECK_THAT(flat, Contains("provisional: 4 of 10 points graded here, 6 points graded at "
                            "submission"));
  CHECK_THAT(text, !Contains("FAIL"));
  const auto j = grader::to_json(rep);
  CHECK(j["at_submission_points"] == 6);
  CHECK(j["items"][1]["status"] == "at_submission");
  CHECK(j["items"][1]["at_submission"] == true);

  // An unanswered part fails the item (still no points) and the unit, still provisional.
  in.answers["questions"].parts[0].blank = true;
  u = grader::score_unit(m, m.units[0], in, lang::en);
  CHECK(u.items[1].status == item_status::fail);
  CHECK_THAT(u.items[1].feedback, Contains("still to answer: q1.a"));
  CHECK(u.at_submission_points == 6);
  CHECK_FALSE(u.passed);
  rep.units = {u};
  CHECK_THAT(grader::render_text(rep, false), Contains("FAIL (provisional: 4 of 10"));

  // So does a code item that fails.
  in.answers["questions"].parts[0].blank = false;
  in.runs[0].records[0].passed = false;
  CHECK_FALSE(grader::score_unit(m, m.units[0], in, lang::en).passed);
}

TEST_CASE("dev_release writes the student's course, without what it leaves out", "[release]") {
  tiny_course t;
  const fs::path out = t.dir.path / "student";
  std::ostringstream log;
  grader::dev_release(t.c, t.m, out, log);
  CHECK(read(out / "README.md") == "# For students\n");
  CHECK(read(out / "docs/guide.md") == "Kept.\nKept too.\n");
  CHECK(fs::exists(out / "lessons/l1/manifest.json"));
  CHECK(fs::exists(out / "exercises/l1/answers.md"));
  CHECK(fs::exists(out / "grader/src/a.cpp"));
  CHECK((fs::status(out / ".ci/run").permissions() & fs::perms::owner_exec) != fs::perms::none);
  for (const char* gone : {"solutions", "lessons/l2", "exercises/l1/answer_key.json",
                           "grader/tests", "docs/release", "build", ".cache"})
    CHECK_FALSE(fs::exists(out / gone));
  const auto stamp = nlohmann::json::parse(read(out / "RELEASE.json"));
  CHECK(stamp["release"] == "student");
  CHECK(stamp["lesson"] == "l1");
  CHECK(stamp["answer_forms"]["questions"][0]["type"] == "choice");
  CHECK_THAT(stamp.dump(), !Contains("correct"));
  CHECK_THAT(log.str(), Contains("left out: solutions/"));

  // Regenerating replaces the earlier release and keeps its .git.
  write(out / ".git/HEAD", "ref: refs/heads/student\n");
  write(out / "stale.txt", "from an earlier release\n");
  grader::dev_release(t.c, t.m, out, log);
  CHECK(fs::exists(out / ".git/HEAD"));
  CHECK_FALSE(fs::exists(out / "stale.txt"));
  CHECK(fs::exists(out / "README.md"));
}

TEST_CASE("dev_release refuses a folder inside the course, or one that is no earlier release",
          "[release]") {
  tiny_course t;
  std::ostringstream log;
  CHECK_THROWS_WITH(grader::dev_release(t.c, t.m, t.c.root / "student", log),
                    Contains("inside the course"));
  CHECK_THROWS_WITH(grader::dev_release(t.c, t.m, t.dir.path, log), Contains("holds the course"));
  const fs::path other = t.dir.path / "thesis";
  write(other / "chapter1.tex", "precious\n");
  CHECK_THROWS_WITH(grader::dev_release(t.c, t.m, other, log),
                    Contains("not empty and holds no earlier student release"));
  CHECK(read(other / "chapter1.tex") == "precious\n");
}

TEST_CASE("dev_release refuses, writing nothing, when a kept file would leak", "[release]") {
  tiny_course t;
  std::ostringstream log;
  fs::remove(t.c.root / "docs/release/README.student.md");  // README.md links to solutions/
  const fs::path out = t.dir.path / "student";
  CHECK_THROWS_WITH(grader::dev_release(t.c, t.m, out, log),
                    Contains("README.md:1 links to solutions/l1/notes/x.md"));
  CHECK_FALSE(fs::exists(out));

  write(t.c.root / "docs/release/README.student.md", "# For students\n");
  write(t.c.root / "lessons/l1/tests/helper.cpp", "int f() {\n  // BEGIN SOLUTION\n}\n");
  CHECK_THROWS_WITH(grader::dev_release(t.c, t.m, out, log),
                    Contains("lessons/l1/tests/helper.cpp:2 opens a solution region"));
  CHECK_FALSE(fs::exists(out));
}
