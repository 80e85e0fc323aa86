// Unit tests for the answer key loader (load_answer_key, answers.cpp): what a key may
// say, the errors that name its file, and the real lesson13 key against its manifest and
// answers files, whose solution scores full marks and whose exercise copy scores 0.
//   build/bin/grader_tests "[answers]"
#include <catch2/catch.hpp>

#include "temp_dir.hpp"
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <string>

#include "grader/lesson/answers.hpp"
#include "grader/base/error.hpp"
#include "grader/lesson/manifest.hpp"

namespace fs = std::filesystem;
using Catch::Matchers::Contains;
using Catch::Matchers::StartsWith;
using grader::answer_key;
using grader::grade_answers;
using grader::input_error;
using grader::lang;
using grader::load_answer_key;
using grader::parse_answers;

namespace {

void write_file(const fs::path& p, const std::string& content) {
  std::ofstream(p, std::ios::binary) << content;
}

std::string read_file(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  REQUIRE(in);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

const fs::path source_dir{COURSE_SOURCE_DIR};

}  // namespace

// ==== load_answer_key
// ==================================================================================

TEST_CASE("load_answer_key reads the real lesson13 key", "[answers]") {
  const answer_key key = load_answer_key(source_dir / "solutions/lesson13/answer_key.json");
  REQUIRE(key.parts.size() == 21);
  CHECK(key.points_of("q1") == Approx(2));
  CHECK(key.points_of("q2") == Approx(2));
  CHECK(key.points_of("q3") == Approx(2));
  CHECK(key.points_of("code.update") == 0);

  std::map<std::string, const grader::key_part*> by_id;
  for (const auto& p : key.parts) by_id[p.id] = &p;
  REQUIRE(by_id.size() == 21);  // no id twice

  const auto& q1a = *by_id.at("q1.a");
  CHECK(q1a.type == "choice");
  CHECK(q1a.options == std::set<std::string>{"a", "b", "c", "d"});
  CHECK(q1a.correct == std::set<std::string>{"c"});

  const auto& q1d = *by_id.at("q1.d");
  CHECK(q1d.type == "multi");
  CHECK(q1d.veto_if_selected ==
        std::map<std::string, std::string>{{"a", "flops-reduced"}, {"d", "flops-reduced"}});

  const auto& q1e = *by_id.at("q1.e");
  for (const char* form : {"n^2d^2/m", "(nd)^2/m", "n^2d^2m^-1", "(n^2d^2)/m"})
    CHECK(std::find(q1e.accept.begin(), q1e.accept.end(), form) != q1e.accept.end());

  const auto& q1f = *by_id.at("q1.f");
  CHECK(q1f.veto_if_wrong == "no-running-max");
  CHECK(q1f.veto_if_blank == "no-running-max");

  const auto& q1h = *by_id.at("q1.h");
  REQUIRE(q1h.key_points.size() == 3);
  CHECK(q1h.key_points[0].label.en ==
        "S/P (N×N) are written to and read back from HBM: memory-bound");
  for (const char* id : {"q1.h", "q2.h", "q3.e"})
    for (const auto& kp : by_id.at(id)->key_points) CHECK_FALSE(kp.claims.empty());
  for (const char* id : {"q1.d", "q1.f", "q1.g", "q2.g", "q3.d"})
    CHECK_FALSE(by_id.at(id)->veto_lifted_by.empty());
  std::set<std::string> misconception_vetoes;
  for (const auto& m : key.misconceptions) misconception_vetoes.insert(m.veto);
  CHECK(misconception_vetoes == std::set<std::string>{"flops-reduced", "no-running-max",
                                                      "blockwise-softmax-concat",
                                                      "hbm-smem-bandwidth"});

  const auto& q2f = *by_id.at("q2.f");
  CHECK(q2f.value == Approx(3.35));
  CHECK(q2f.tolerance == Approx(0.35));
  CHECK(q2f.unit == "TB/s");
  CHECK(q2f.outside_lo == 1);
  CHECK(q2f.outside_hi == 10);
  CHECK(q2f.veto_if_outside == "hbm-smem-bandwidth");
  CHECK(by_id.at("q2.b")->unit == "sectors");
}

TEST_CASE("the lesson13 key agrees with its manifest and its answers files", "[answers]") {
  const grader::course c{source_dir, {}};
  const auto m = grader::load_manifest(c, "lesson13");
  const answer_key key = load_answer_key(c.solutions_dir("lesson13") / "answer_key.json");

  // Each answers item's points are the sum of its parts' points; every part names such an item.
  std::set<std::string> answer_items, veto_names;
  for (const auto& u : m.units) {
    for (const auto& it : u.items)
      if (m.exercise_of(it).kind == "answers") {
        answer_items.insert(it.id);
        INFO("item " << it.id);
        CHECK(key.points_of(it.id) == Approx(it.points));
      }
    for (const auto& v : u.vetoes) veto_names.insert(v.id);
  }
  CHECK(answer_items == std::set<std::string>{"q1", "q2", "q3"});
  for (const auto& p : key.parts) {
    INFO("part " << p.id);
    CHECK(answer_items.count(p.item) == 1);
    // Every veto the key can raise is declared in the manifest.
    for (const auto& [option, veto] : p.veto_if_selected) {
      CHECK(veto_names.count(veto) == 1);
      CHECK(p.options.count(option) == 1);
    }
    for (const std::string& v : {p.veto_if_wrong, p.veto_if_blank, p.veto_if_outside})
      if (!v.empty()) CHECK(veto_names.count(v) == 1);
    for (const auto& o : p.correct) CHECK(p.options.count(o) == 1);
  }
  for (const auto& m : key.misconceptions) CHECK(veto_names.count(m.veto) == 1);

  // The student's file has every part, with exactly the key's options.
  for (const char* dir : {"exercises", "solutions"}) {
    const fs::path file = source_dir / dir / "lesson13/answers.md";
    const auto doc = parse_answers(read_file(file));
    CHECK(doc.parts.size() == key.parts.size());
    for (const auto& p : key.parts) {
      INFO(dir << " part " << p.id);
      REQUIRE(doc.parts.count(p.id) == 1);
      if (p.type == "choice" || p.type == "multi") CHECK(doc.parts.at(p.id).options == p.options);
    }
  }
}

TEST_CASE("load_answer_key: a malformed key is an input_error naming the file", "[answers]") {
  temp_dir dir;
  const fs::path file = dir.path / "answer_key.json";
  struct bad {
    const char* what;
    std::string json;
  };
  const std::vector<bad> cases = {
      {"not JSON", R"({"parts": [)"},
      {"no parts", R"({"schema": 1})"},
      {"part without points",
       R"({"parts": [{"id": "q.a", "item": "q", "type": "choice", "options": ["a"], "correct": ["a"]}]})"},
      {"points not a number",
       R"({"parts": [{"id": "q.a", "item": "q", "type": "choice", "points": "one", "options": ["a"], "correct": ["a"]}]})"},
      {"choice without correct",
       R"({"parts": [{"id": "q.a", "item": "q", "type": "choice", "points": 1, "options": ["a"]}]})"},
      {"number without tolerance",
       R"({"parts": [{"id": "q.n", "item": "q", "type": "number", "points": 1, "value": 3}]})"},
      {"term without accept",
       R"({"parts": [{"id": "q.t", "item": "q", "type": "term", "points": 1}]})"},
      {"key point without en label",
       R"({"parts": [{"id": "q.e", "item": "q", "type": "explanation", "points": 1,
          "key_points": [{"label": {"zh": "带宽"}, "claims": [[["带宽"]]]}]}]})"},
      {"key point with the old bag of words",
       R"({"parts": [{"id": "q.e", "item": "q", "type": "explanation", "points": 1,
          "key_points": [{"label": {"zh": "带宽", "en": "bandwidth"}, "any": ["带宽"]}]}]})"},
      {"key point with a blank alternative",
       R"({"parts": [{"id": "q.e", "item": "q", "type": "explanation", "points": 1,
          "key_points": [{"label": {"zh": "带宽", "en": "bandwidth"}, "claims": [[["带宽", " "]]]}]}]})"},
      {"key point with no claims",
       R"({"parts": [{"id": "q.e", "item": "q", "type": "explanation", "points": 1,
          "key_points": [{"label": {"zh": "带宽", "en": "bandwidth"}, "claims": []}]}]})"},
      {"claim with an empty group",
       R"({"parts": [{"id": "q.a", "item": "q", "type": "choice", "points": 1, "options": ["a"],
          "correct": ["a"], "veto_lifted_by": [[["x"], []]]}]})"},
      {"veto_lifted_by on a number",
       R"({"parts": [{"id": "q.n", "item": "q", "type": "number", "points": 1, "value": 3,
          "tolerance": 0, "veto_lifted_by": [[["x"]]]}]})"},
      {"misconception naming a part the key lacks",
       R"({"parts": [{"id": "q.a", "item": "q", "type": "choice", "points": 1, "options": ["a"],
          "correct": ["a"]}], "misconceptions": [{"veto": "v", "label": {"zh": "x", "en": "x"},
          "claims": [[["x"]]], "parts": ["q.b"]}]})"},
      {"misconception without claims",
       R"({"parts": [], "misconceptions": [{"veto": "v", "label": {"zh": "x", "en": "x"}}]})"},
      {"misconception with an unknown key",
       R"({"parts": [], "misconceptions": [{"veto": "v", "label": {"zh": "x", "en": "x"},
          "claims": [[["x"]]], "part": ["q.a"]}]})"},
      {"veto range with one end",
       R"({"parts": [{"id": "q.n", "item": "q", "type": "number", "points": 1, "value": 3,
          "tolerance": 0, "veto_if_outside": {"range": [1], "veto": "v"}}]})"},
      {"veto_if_wrong not a string",
       R"({"parts": [{"id": "q.a", "item": "q", "type": "choice", "points": 1,
          "options": ["a"], "correct": ["a"], "veto_if_wrong": 3}]})"},
      {"unknown type", R"({"parts": [{"id": "q.x", "item": "q", "type": "essay", "points": 1}]})"},
  };
  for (const auto& c : cases) {
    INFO(c.what);
    write_file(file, c.json);
    CHECK_THROWS_AS(load_answer_key(file), input_error);
    CHECK_THROWS_WITH(load_answer_key(file), StartsWith(file.string() + ": "));
  }
  write_file(file, R"({"parts": [{"id": "q.x", "item": "q", "type": "essay", "points": 1}]})");
  CHECK_THROWS_WITH(load_answer_key(file), file.string() + ": part q.x has unknown type \"essay\"");
  write_file(file, R"({"parts": [)");
  CHECK_THROWS_WITH(load_answer_key(file), StartsWith(file.string() + ": malformed answer key: "));

  CHECK_THROWS_AS(load_answer_key(dir.path / "nope.json"), grader::cannot_grade);
  CHECK_THROWS_WITH(load_answer_key(dir.path / "nope.json"), Contains("nope.json"));

  // An empty key is well-formed and grades nothing.
  write_file(file, R"({"parts": []})");
  CHECK(load_answer_key(file).parts.empty());
}

// Keys that parse but cannot grade: an explanation with no key points or a multi with no
// correct option divides by zero (the part's points become NaN), a correct option that
// is not an option can never be ticked, and a part id given twice is graded twice.
TEST_CASE("load_answer_key rejects keys that cannot grade", "[answers]") {
  temp_dir dir;
  const fs::path file = dir.path / "answer_key.json";
  write_file(
      file,
      R"({"parts": [{"id": "q.e", "item": "q", "type": "explanation", "points": 1, "key_points": []}]})");
  CHECK_THROWS_AS(load_answer_key(file), input_error);
  write_file(
      file,
      R"({"parts": [{"id": "q.m", "item": "q", "type": "multi", "points": 1, "options": ["a"], "correct": []}]})");
  CHECK_THROWS_AS(load_answer_key(file), input_error);
  write_file(
      file,
      R"({"parts": [{"id": "q.a", "item": "q", "type": "choice", "points": 1, "options": ["a", "b"], "correct": ["e"]}]})");
  CHECK_THROWS_AS(load_answer_key(file), input_error);
  write_file(
      file,
      R"({"parts": [{"id": "q.n", "item": "q", "type": "number", "points": 1, "value": 1, "tolerance": 0},
                                 {"id": "q.n", "item": "q", "type": "number", "points": 1, "value": 1, "tolerance": 0}]})");
  CHECK_THROWS_AS(load_answer_key(file), input_error);
}

TEST_CASE("load_answer_key: an unknown or misplaced key is an error naming the part", "[answers]") {
  temp_dir dir;
  const fs::path file = dir.path / "answer_key.json";
  // A misspelt veto rule would otherwise be dropped, and the veto never raised.
  write_file(file,
             R"({"parts": [{"id": "q.a", "item": "q", "type": "choice", "points": 1,
                 "options": ["a", "b"], "correct": ["a"], "veto_if_selectd": {"b": "v"}}]})");
  CHECK_THROWS_WITH(load_answer_key(file),
                    Contains("part q.a has an unknown key \"veto_if_selectd\""));
  // A rule of another part type.
  write_file(file,
             R"({"parts": [{"id": "q.t", "item": "q", "type": "term", "points": 1,
                 "accept": ["x"], "veto_if_wrong": "v"}]})");
  CHECK_THROWS_WITH(load_answer_key(file),
                    Contains("part q.t has an unknown key \"veto_if_wrong\""));
  write_file(file, R"({"part": []})");
  CHECK_THROWS_WITH(load_answer_key(file), Contains("the key has an unknown key \"part\""));
}

// ==== the real files
// ==================================================================================

TEST_CASE("the lesson13 solution answers score full marks with no veto", "[answers]") {
  const answer_key key = load_answer_key(source_dir / "solutions/lesson13/answer_key.json");
  const fs::path file = source_dir / "solutions/lesson13/answers.md";
  const auto doc = parse_answers(read_file(file));
  CHECK(doc.parts.at("q1.e").answer == "N^2 d^2 / M");
  CHECK(doc.parts.at("q1.d").ticked == std::set<std::string>{"b", "c"});
  CHECK(doc.parts.at("q1.h").answer.starts_with("S 和 P 都是 N×N"));
  CHECK(std::count(doc.parts.at("q1.h").answer.begin(), doc.parts.at("q1.h").answer.end(), '\n') ==
        2);

  for (const lang l : {lang::en, lang::zh}) {
    const auto grades = grade_answers(doc, key, l);
    REQUIRE(grades.size() == key.parts.size());
    double total = 0;
    for (const auto& g : grades) {
      INFO(g.id << ": " << g.feedback);
      CHECK(g.points == Approx(g.max_points));
      CHECK(g.feedback.empty());
      CHECK(g.vetoes.empty());
      CHECK(g.needs_review == (g.id == "q1.h" || g.id == "q2.h" || g.id == "q3.e"));
      total += g.points;
    }
    CHECK(total == Approx(6));
  }
}

TEST_CASE("the untouched lesson13 exercise answers score 0", "[answers]") {
  const answer_key key = load_answer_key(source_dir / "solutions/lesson13/answer_key.json");
  const auto doc = parse_answers(read_file(source_dir / "exercises/lesson13/answers.md"));
  const auto grades = grade_answers(doc, key, lang::en);
  REQUIRE(grades.size() == key.parts.size());
  double total = 0;
  std::set<std::string> vetoes;
  for (const auto& g : grades) {
    INFO(g.id);
    CHECK(g.points == 0);
    CHECK(g.feedback == g.id + ": not answered");
    for (const auto& v : g.vetoes) vetoes.insert(v.id);
    total += g.points;
  }
  CHECK(total == 0);
  // Only the part that vetoes a blank answer raises a veto.
  CHECK(vetoes == std::set<std::string>{"no-running-max"});
}
