// Unit tests for finding the course and loading lesson manifests (grader/src/manifest.cpp).
//   build/bin/grader_tests "[manifest]"
#include <unistd.h>

#include <algorithm>
#include <catch2/catch.hpp>

#include "temp_dir.hpp"
#include <filesystem>
#include <fmt/format.h>
#include <fstream>
#include <functional>
#include <nlohmann/json.hpp>
#include <random>
#include <string>
#include <vector>

#include "grader/base/error.hpp"
#include "grader/base/files.hpp"
#include "grader/lesson/manifest.hpp"

namespace fs = std::filesystem;
using Catch::Matchers::Contains;
using Catch::Matchers::StartsWith;
using grader::cannot_grade;
using grader::course;
using grader::find_course;
using grader::input_error;
using grader::load_manifest;
using nlohmann::json;

namespace {

const fs::path source_dir{COURSE_SOURCE_DIR};

json both(const std::string& zh, const std::string& en) {
  return {{"zh", zh}, {"en", en}};
}

// A small manifest that loads: a C++ exercise and an answers file, one unit of 3 points.
json valid_manifest(const std::string& lesson) {
  return {
      {"schema", 1},
      {"lesson", lesson},
      {"title", both("测试课", "Test lesson")},
      {"exercises",
       json::array({{{"id", "code"},
                     {"file", "code.cpp"},
                     {"kind", "cpp"},
                     {"title", both("代码", "Code")}},
                    {{"id", "questions"},
                     {"file", "answers.md"},
                     {"kind", "answers"},
                     {"key", "answer_key.json"},
                     {"title", both("问答", "Questions")},
                     {"hints",
                      {{"general",
                        {{"levels",
                          json::array({both("用 [x] 勾选", "Tick with [x]"),
                                       both("写在 answer: 下面", "Write below answer:")})}}}}}}})},
      {"units",
       json::array({{{"id", "exam"},
                     {"title", both("考核", "Exam")},
                     {"max_score", 3},
                     {"pass_line", 2},
                     {"items", json::array({{{"id", "code.a"},
                                             {"exercise", "code"},
                                             {"points", 2.5},
                                             {"title", both("代码项", "Code item")},
                                             {"feedback", {{"pass", both("对", "right")}}}},
                                            {{"id", "q1"},
                                             {"exercise", "questions"},
                                             {"points", 0.5},
                                             {"title", both("问题一", "Question one")}}})},
                     {"vetoes", json::array({{{"id", "v1"},
                                              {"title", both("否决", "Veto")},
                                              {"explain", both("原因", "Why")}}})}}})},
  };
}

// A course root in a temp dir: lessons/, grader/ and a CMakeLists.txt, as find_course wants.
struct temp_course {
  temp_dir dir;
  course c;
  temp_course() : c{dir.path, dir.path / "build"} {
    fs::create_directories(dir.path / "lessons");
    fs::create_directories(dir.path / "grader");
    std::ofstream(dir.path / "CMakeLists.txt") << "# test course\n";
  }
  fs::path write(const std::string& lesson, const std::string& content) {
    fs::create_directories(c.lesson_dir(lesson));
    std::ofstream(c.manifest_path(lesson), std::ios::binary) << content;
    return c.manifest_path(lesson);
  }
  fs::path write(const std::string& lesson, const json& j) { return write(lesson, j.dump(2)); }
};

}  // namespace

// ==== the real lesson
// =================================================================================

TEST_CASE("load_manifest reads the real lesson13 manifest", "[manifest]") {
  const course c = find_course({}, source_dir / "grader" / "tests");
  CHECK(fs::equivalent(c.root, source_dir));
  const auto m = load_manifest(c, "lesson13");
  CHECK(m.lesson == "lesson13");
  CHECK(m.title.en == "Lesson 13: GPU kernels and FlashAttention");
  CHECK(m.title.zh == "第 13 课：GPU 内核与 FlashAttention");

  REQUIRE(m.exercises.size() == 8);
  CHECK(m.exercises[0].id == "online_softmax");
  CHECK(m.exercises[0].file == "online_softmax.cpp");
  CHECK(m.exercises[0].kind == "cpp");
  CHECK(m.exercises[0].hints.blanks.size() == 5);  // one per blank; test_hints.cpp checks more
  CHECK(m.exercises[1].id == "questions");
  CHECK(m.exercises[1].kind == "answers");
  CHECK(m.exercises[1].key == "answer_key.json");
  CHECK(fs::exists(c.solutions_dir("lesson13") / m.exercises[1].key));
  for (size_t i = 2; i < 8; ++i) CHECK(m.exercises[i].kind == "cu");
  for (const auto& e : m.exercises) {
    CHECK(fs::exists(c.exercises_dir("lesson13") / e.file));
    CHECK(fs::exists(c.solutions_dir("lesson13") / e.file));
  }

  // The seed's exam, then one 10-point unit per CUDA lab, the warm-up first.
  REQUIRE(m.units.size() == 7);
  CHECK(m.units[1].id == "lab_warmup");
  CHECK(m.units[2].id == "lab_coalescing");
  CHECK(m.units[3].id == "lab_tiling");
  CHECK(m.units[4].id == "lab_flash");
  CHECK(m.units[5].id == "lab_flash_fast");
  CHECK(m.units[6].id == "lab_tensor_cores");
  for (const auto& lab : m.units) CHECK(lab.max_score == 10);
  const auto& u = m.units[0];
  CHECK(u.id == "exam");
  CHECK(u.max_score == 10);
  CHECK(u.pass_line == 8);
  std::vector<std::string> ids;
  double total = 0;
  for (const auto& it : u.items) {
    ids.push_back(it.id);
    total += it.points;
    CHECK(m.find_exercise(it.exercise) != nullptr);
    CHECK_FALSE(it.title.zh.empty());
    CHECK_FALSE(it.title.en.empty());
  }
  CHECK(ids == std::vector<std::string>{"code.update", "code.normalize", "code.matches_reference",
                                        "q1", "q2", "q3"});
  CHECK(total == Approx(10));
  CHECK(u.items[0].points == 2);
  CHECK(m.exercise_of(u.items[0]).id == "online_softmax");
  CHECK(m.exercise_of(u.items[3]).id == "questions");
  CHECK_FALSE(u.items[0].pass_feedback.en.empty());
  CHECK_FALSE(u.items[0].fail_feedback.zh.empty());
  CHECK(u.items[3].pass_feedback.en.empty());  // q1 has no feedback of its own

  std::vector<std::string> vetoes;
  for (const auto& v : u.vetoes) {
    vetoes.push_back(v.id);
    CHECK_FALSE(v.title.en.empty());
    CHECK_FALSE(v.explain.zh.empty());
  }
  CHECK(vetoes == std::vector<std::string>{"flops-reduced", "no-running-max",
                                           "blockwise-softmax-concat", "hbm-smem-bandwidth"});

  const auto lessons = c.lessons();
  CHECK(std::find(lessons.begin(), lessons.end(), "lesson13") != lessons.end());
  CHECK(std::is_sorted(lessons.begin(), lessons.end()));
}

TEST_CASE("course paths and text::in", "[manifest]") {
  const course c{"/course", "/elsewhere/build"};
  CHECK(c.manifest_path("lesson13") == fs::path("/course/lessons/lesson13/manifest.json"));
  CHECK(c.exercises_dir("lesson13") == fs::path("/course/exercises/lesson13"));
  CHECK(c.solutions_dir("lesson13") == fs::path("/course/solutions/lesson13"));
  CHECK(c.mutants_dir("lesson13") == fs::path("/course/solutions/lesson13/mutants"));
  // What the grader writes lives under its build folder, never in the checkout.
  CHECK(c.grading_tree("lesson13") == fs::path("/elsewhere/build/grade/lesson13"));
  CHECK(c.scratch_dir("lesson13") == fs::path("/elsewhere/build/grade/lesson13-scratch"));

  const grader::text t{"中文", "English"};
  CHECK(t.in(grader::lang::zh) == "中文");
  CHECK(t.in(grader::lang::en) == "English");
  CHECK(grader::text{"只有中文", ""}.in(grader::lang::en) == "只有中文");
}

// ==== a manifest that loads
// ===========================================================================

TEST_CASE("load_manifest reads every field of a small manifest", "[manifest]") {
  temp_course tc;
  tc.write("tiny", valid_manifest("tiny"));
  const auto m = load_manifest(tc.c, "tiny");
  CHECK(m.lesson == "tiny");
  CHECK(m.title.zh == "测试课");
  REQUIRE(m.exercises.size() == 2);
  CHECK(m.exercises[0].key.empty());
  CHECK(m.exercises[1].key == "answer_key.json");
  REQUIRE(m.exercises[1].hints.general.levels.size() == 2);
  CHECK(m.exercises[1].hints.general.levels[0].zh == "用 [x] 勾选");
  CHECK(m.exercises[1].hints.general.levels[1].en == "Write below answer:");
  CHECK(m.hint_release_level == 2);  // the default
  CHECK(m.find_exercise("questions") == &m.exercises[1]);
  CHECK(m.find_exercise("nope") == nullptr);
  REQUIRE(m.units.size() == 1);
  CHECK(m.units[0].max_score == 3);
  CHECK(m.units[0].pass_line == 2);
  REQUIRE(m.units[0].items.size() == 2);
  CHECK(m.units[0].items[0].points == 2.5);
  CHECK(m.units[0].items[0].pass_feedback.en == "right");
  CHECK(m.units[0].items[0].fail_feedback.en.empty());
  REQUIRE(m.units[0].vetoes.size() == 1);
  CHECK(m.units[0].vetoes[0].explain.en == "Why");
  CHECK(tc.c.lessons() == std::vector<std::string>{"tiny"});

  // Vetoes, hints and feedback are optional.
  json j = valid_manifest("bare");
  j["units"][0].erase("vetoes");
  j["exercises"][1].erase("hints");
  j["units"][0]["items"][0].erase("feedback");
  tc.write("bare", j);
  const auto bare = load_manifest(tc.c, "bare");
  CHECK(bare.units[0].vetoes.empty());
  CHECK(bare.exercises[1].hints.empty());
}

// ==== malformed manifests
// =============================================================================

TEST_CASE("load_manifest: each malformed manifest is an input_error naming the file",
          "[manifest]") {
  temp_course tc;
  struct bad {
    const char* what;
    std::function<void(json&)> change;
    std::string message;  // the part after "<file>: "
  };
  const std::vector<bad> cases = {
      {"no lesson", [](json& j) { j.erase("lesson"); }, "manifest has no \"lesson\""},
      {"empty lesson", [](json& j) { j["lesson"] = ""; },
       "manifest.lesson must be a non-empty string"},
      {"lesson of another folder", [](json& j) { j["lesson"] = "other"; },
       "\"lesson\" is \"other\" but the folder is x"},
      {"title without en", [](json& j) { j["title"].erase("en"); },
       "manifest.title must have \"zh\" and \"en\" strings and nothing else"},
      {"title with a third language", [](json& j) { j["title"]["fr"] = "Leçon"; },
       "manifest.title must have \"zh\" and \"en\" strings and nothing else"},
      {"no schema", [](json& j) { j.erase("schema"); },
       "manifest schema (missing) is not the 1 this grader reads (docs/manifest.schema.json)"},
      {"schema of another version", [](json& j) { j["schema"] = 2; },
       "manifest schema 2 is not the 1 this grader reads (docs/manifest.schema.json)"},
      {"unknown top-level key", [](json& j) { j["exercise"] = json::array(); },
       "manifest has an unknown key \"exercise\" (known: schema, lesson, title, notes, "
       "hint_release_level, exercises, units)"},
      {"misspelt exercise key", [](json& j) { j["exercises"][0]["hint"] = json::object(); },
       "exercise code has an unknown key \"hint\" (known: id, file, kind, key, title, hints, "
       "outside_blanks)"},
      {"an outside_blanks policy that is not flag or fail",
       [](json& j) { j["exercises"][0]["outside_blanks"] = "forbid"; },
       "exercise code: outside_blanks \"forbid\" is not flag or fail"},
      {"misspelt item key", [](json& j) { j["units"][0]["items"][0]["point"] = 1; },
       "unit exam item code.a has an unknown key \"point\" (known: id, exercise, points, title, "
       "feedback)"},
      {"misspelt unit key", [](json& j) { j["units"][0]["veto"] = json::array(); },
       "unit exam has an unknown key \"veto\" (known: id, title, max_score, pass_line, items, "
       "vetoes)"},
      {"misspelt veto key", [](json& j) { j["units"][0]["vetoes"][0]["explains"] = "x"; },
       "unit exam veto v1 has an unknown key \"explains\" (known: id, title, explain)"},
      {"no exercises", [](json& j) { j.erase("exercises"); }, "manifest has no \"exercises\""},
      {"exercise without file", [](json& j) { j["exercises"][0].erase("file"); },
       "exercise code has no \"file\""},
      {"exercise of an unknown kind", [](json& j) { j["exercises"][0]["kind"] = "python"; },
       "exercise code: kind \"python\" is not cpp, cu or answers"},
      {"answers without a key", [](json& j) { j["exercises"][1].erase("key"); },
       "exercise questions has no \"key\""},
      {"exercise id twice", [](json& j) { j["exercises"][1]["id"] = "code"; },
       "exercise id code appears twice"},
      {"no units", [](json& j) { j.erase("units"); }, "manifest has no \"units\""},
      {"empty units", [](json& j) { j["units"] = json::array(); }, "no units"},
      {"unit without max_score", [](json& j) { j["units"][0].erase("max_score"); },
       "unit exam has no \"max_score\""},
      {"max_score a string", [](json& j) { j["units"][0]["max_score"] = "3"; },
       "unit exam.max_score must be a number"},
      {"item without points", [](json& j) { j["units"][0]["items"][0].erase("points"); },
       "unit exam item code.a has no \"points\""},
      {"item without title", [](json& j) { j["units"][0]["items"][1].erase("title"); },
       "unit exam item q1 has no \"title\""},
      {"item of an unknown exercise",
       [](json& j) { j["units"][0]["items"][0]["exercise"] = "nope"; },
       "unit exam item code.a: no exercise \"nope\""},
      {"item id twice", [](json& j) { j["units"][0]["items"][1]["id"] = "code.a"; },
       "unit exam: item id code.a appears twice"},
      {"points short of max_score", [](json& j) { j["units"][0]["max_score"] = 10; },
       "unit exam: items add up to 3 points, max_score is 10"},
      {"points over max_score", [](json& j) { j["units"][0]["items"][0]["points"] = 3; },
       "unit exam: items add up to 3.5 points, max_score is 3"},
      {"veto without title", [](json& j) { j["units"][0]["vetoes"][0].erase("title"); },
       "unit exam veto v1 has no \"title\""},
      {"feedback without en",
       [](json& j) { j["units"][0]["items"][0]["feedback"]["pass"].erase("en"); },
       "unit exam item code.a.feedback.pass must have \"zh\" and \"en\" strings and nothing "
       "else"},
  };
  for (const auto& b : cases) {
    INFO(b.what);
    json j = valid_manifest("x");
    b.change(j);
    const fs::path file = tc.write("x", j);
    CHECK_THROWS_AS(load_manifest(tc.c, "x"), input_error);
    CHECK_THROWS_WITH(load_manifest(tc.c, "x"), file.string() + ": " + b.message);
  }

  const fs::path file = tc.write("x", std::string("{ \"lesson\": \"x\", "));
  CHECK_THROWS_AS(load_manifest(tc.c, "x"), input_error);
  CHECK_THROWS_WITH(load_manifest(tc.c, "x"), StartsWith(file.string() + ": not valid JSON: "));

  tc.write("x", std::string("[1, 2]"));
  CHECK_THROWS_WITH(load_manifest(tc.c, "x"), file.string() + ": manifest must be an object");

  tc.write("x", std::string(""));
  CHECK_THROWS_AS(load_manifest(tc.c, "x"), input_error);
}

// get_text reads zh/en with get<std::string>(): a wrongly typed text, a hint's too, must
// not escape as nlohmann::json::type_error, which names no file.
TEST_CASE("load_manifest: wrongly typed texts are input_errors too", "[manifest]") {
  temp_course tc;
  json j = valid_manifest("x");
  j["title"]["zh"] = 13;
  tc.write("x", j);
  CHECK_THROWS_AS(load_manifest(tc.c, "x"), input_error);

  j = valid_manifest("x");
  j["exercises"][1]["hints"]["general"]["levels"][0]["en"] = 13;
  tc.write("x", j);
  CHECK_THROWS_AS(load_manifest(tc.c, "x"), input_error);

  j = valid_manifest("x");
  j["units"][0]["items"][0]["feedback"]["pass"]["en"] = nullptr;
  tc.write("x", j);
  CHECK_THROWS_AS(load_manifest(tc.c, "x"), input_error);
}

TEST_CASE("load_manifest: an unknown lesson is cannot_grade listing the known ones", "[manifest]") {
  temp_course tc;
  CHECK_THROWS_AS(load_manifest(tc.c, "lesson99"), cannot_grade);
  CHECK_THROWS_WITH(load_manifest(tc.c, "lesson99"), "no lesson 'lesson99' (known: none)");

  tc.write("lesson2", valid_manifest("lesson2"));
  tc.write("lesson1", valid_manifest("lesson1"));
  fs::create_directories(tc.c.lesson_dir("drafts"));  // no manifest: not a lesson
  CHECK(tc.c.lessons() == std::vector<std::string>{"lesson1", "lesson2"});
  CHECK_THROWS_AS(load_manifest(tc.c, "lesson99"), cannot_grade);
  CHECK_THROWS_WITH(load_manifest(tc.c, "lesson99"),
                    "no lesson 'lesson99' (known: lesson1, lesson2)");
  CHECK_THROWS_WITH(load_manifest(tc.c, "drafts"), "no lesson 'drafts' (known: lesson1, lesson2)");

  const course real{source_dir, {}};
  CHECK_THROWS_WITH(load_manifest(real, "lesson99"), Contains("lesson13"));
}

// ==== find_course
// =====================================================================================

TEST_CASE("find_course walks up from a subdirectory to the course root", "[manifest]") {
  temp_course tc;
  const fs::path deep = tc.dir.path / "exercises" / "lesson1" / "sub";
  fs::create_directories(deep);
  const course found = find_course({}, deep);
  CHECK(fs::equivalent(found.root, tc.dir.path));
  CHECK(found.root.is_absolute());
  CHECK(fs::equivalent(find_course({}, tc.dir.path).root, tc.dir.path));

  // A folder with lessons/ and grader/ but no CMakeLists.txt is not a root: keep climbing.
  const fs::path inner = tc.dir.path / "exercises" / "inner";
  fs::create_directories(inner / "lessons");
  fs::create_directories(inner / "grader");
  fs::create_directories(inner / "deeper");
  CHECK(fs::equivalent(find_course({}, inner / "deeper").root, tc.dir.path));
  std::ofstream(inner / "CMakeLists.txt") << "";
  CHECK(fs::equivalent(find_course({}, inner / "deeper").root, inner));
}

TEST_CASE("find_course takes a hint only when it is a course root", "[manifest]") {
  temp_course tc;
  const fs::path elsewhere = fs::temp_directory_path();
  CHECK(fs::equivalent(find_course(tc.dir.path, elsewhere).root, tc.dir.path));
  CHECK_THROWS_AS(find_course(tc.dir.path / "lessons", elsewhere), cannot_grade);
  CHECK_THROWS_WITH(
      find_course(tc.dir.path / "lessons", elsewhere),
      Contains((tc.dir.path / "lessons").string()) && Contains("is not a course root"));
  CHECK_THROWS_AS(find_course(tc.dir.path / "missing", tc.dir.path), cannot_grade);
}

TEST_CASE("find_course falls back to the source tree the grader was built from", "[manifest]") {
  temp_dir outside;  // under the temp dir, in no course
  CHECK(fs::equivalent(find_course({}, outside.path).root, source_dir));
}

TEST_CASE("find_course puts grading trees under the grader's build folder, or the one given",
          "[manifest]") {
  const course own = find_course({}, source_dir);
  CHECK(own.build_dir == grader::executable_build_dir());
  CHECK(own.grading_tree("lesson13") == grader::executable_build_dir() / "grade" / "lesson13");
  const course moved = find_course({}, source_dir, "/tmp/elsewhere");
  CHECK(moved.grading_tree("lesson13") == fs::path("/tmp/elsewhere/grade/lesson13"));
}

TEST_CASE("lesson_seed is fixed per lesson and differs between lessons", "[manifest]") {
  CHECK(grader::lesson_seed("lesson13") == grader::lesson_seed("lesson13"));
  CHECK(grader::lesson_seed("lesson13") != grader::lesson_seed("lesson14"));
  CHECK(grader::lesson_seed("") == 2166136261u);  // FNV-1a's offset basis: no platform hash
}
