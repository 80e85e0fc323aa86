// Unit tests for number parts graded with the reader's quantities (grade_answers,
// load_answer_key in answers.cpp); the reader's own: grader/reader/tests/test_quantity.cpp.
//   build/dev/bin/grader_tests "[quantity]"
#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <string>

#include "grader/base/error.hpp"
#include "grader/lesson/answers.hpp"
#include "temp_dir.hpp"

using grader::lang;
using grader::parse_unit;

// ---- grading number parts

namespace {

grader::key_part number_key(const std::string& id, double value, double tolerance,
                            const std::string& unit) {
  grader::key_part k;
  k.id = id;
  k.item = id.substr(0, id.find('.'));
  k.type = "number";
  k.points = 1;
  k.value = value;
  k.tolerance = tolerance;
  k.unit = unit;
  return k;
}

grader::key_part q2f() {
  grader::key_part k = number_key("q2.f", 3.35, 0.35, "TB/s");
  k.outside_lo = 1;
  k.outside_hi = 10;
  k.veto_if_outside = "hbm-smem-bandwidth";
  return k;
}

grader::part_grade grade(const grader::key_part& k, const std::string& answer, lang l = lang::en) {
  grader::answers_doc doc;
  grader::answer_part& p = doc.parts[k.id];
  p.id = k.id;
  p.line = 1;
  p.answer = answer;
  p.answer_line = 2;
  grader::answer_key key;
  key.parts.push_back(k);
  const auto grades = grader::grade_answers(doc, key, l);
  REQUIRE(grades.size() == 1);
  return grades.front();
}

}  // namespace

TEST_CASE("grade_answers: 3350 GB/s and 约 33.6 MB earn full marks", "[quantity]") {
  for (const std::string right :
       {"3350 GB/s", "3.35 TB/s", "3.35", "H100: 3.35 TB/s", "3.35e12 B/s", "3.35×10^12 B/s",
        "~3.35TB/s", "3,35", "3.0", "3.7 TB/s", "3350G/s"}) {
    INFO("answer: " << right);
    const auto g = grade(q2f(), right);
    CHECK(g.points == 1);
    CHECK(g.feedback.empty());
    CHECK(g.vetoes.empty());
  }
  for (const std::string right :
       {"约 33.6 MB", "32", "32 MiB", "2^25 B", "33,554,432 B", "4096 × 4096 × 2 B = 32 MiB", "32M",
        "0.03125 GiB", "32768 KiB"}) {
    INFO("answer: " << right);
    const auto g = grade(number_key("q1.b", 32, 0.5, "MiB"), right);
    CHECK(g.points == 1);
    CHECK(g.feedback.empty());
  }
  CHECK(grade(number_key("q2.d", 128, 0, "times"), "4096/32 = 128").points == 1);
  CHECK(grade(number_key("q2.d", 128, 0, "times"), "128 次").points == 1);
  CHECK(grade(number_key("q2.b", 4, 0, "sectors"), "4 sectors").points == 1);
  CHECK(grade(number_key("q2.b", 4, 0, "sectors"), "4 个 sector").points == 1);
  CHECK(grade(number_key("q2.b", 4, 0, ""), "4.0").points == 1);
}

TEST_CASE("grade_answers: a wrong number quotes the student and the key's unit", "[quantity]") {
  const auto g = grade(q2f(), "3.5 GB/s");
  CHECK(g.points == 0);
  CHECK(g.feedback == "q2.f: you wrote \"3.5 GB/s\" = 0.0035 TB/s; wrong value");
  REQUIRE(g.vetoes.size() == 1);
  CHECK(g.vetoes[0].id == "hbm-smem-bandwidth");
  CHECK(g.vetoes[0].reason ==
        "q2.f: \"3.5 GB/s\" = 0.0035 TB/s is off by at least an order of magnitude");
  const auto zh = grade(q2f(), "3.5 GB/s", lang::zh);
  CHECK(zh.feedback == "q2.f：你写的是 “3.5 GB/s” = 0.0035 TB/s，数值不对");
  CHECK(zh.vetoes[0].reason == "q2.f：“3.5 GB/s” = 0.0035 TB/s 的量级不对（至少差一个数量级）");

  const auto far = grade(q2f(), "3350 TB/s");
  CHECK(far.feedback == "q2.f: you wrote \"3350 TB/s\"; wrong value");
  REQUIRE(far.vetoes.size() == 1);
  CHECK(far.vetoes[0].reason == "q2.f: \"3350 TB/s\" is off by at least an order of magnitude");
  const auto bare = grade(q2f(), "3350");
  REQUIRE(bare.vetoes.size() == 1);
  CHECK(bare.vetoes[0].reason ==
        "q2.f: \"3350\" (read as 3350 TB/s) is off by at least an order of magnitude");
  // Wrong but plausible: no veto.
  const auto near = grade(q2f(), "2 TB/s");
  CHECK(near.points == 0);
  CHECK(near.vetoes.empty());
  CHECK(grade(q2f(), "2000 GB/s").vetoes.empty());
  CHECK(grade(q2f(), "11 TB/s").vetoes.size() == 1);
  CHECK(grade(q2f(), "19").vetoes.size() == 1);

  const auto count = grade(number_key("q2.b", 4, 0, "sectors"), "5 sectors");
  CHECK(count.feedback == "q2.b: you wrote \"5 sectors\"; wrong value");
  CHECK(grade(number_key("q.n", 4, 0, ""), "5").feedback == "q.n: you wrote \"5\"; wrong value");
  CHECK(grade(number_key("q.n", 32, 0.5, "MiB"), "33").feedback ==
        "q.n: you wrote \"33\" (read as 33 MiB); wrong value");
  CHECK(grade(number_key("q.n", 32, 0.5, "MiB"), "33", lang::zh).feedback ==
        "q.n：你写的是 “33”（按 33 MiB 读），数值不对");
  CHECK(grade(q2f(), "19", lang::zh).vetoes.at(0).reason ==
        "q2.f：“19”（按 19 TB/s 读） 的量级不对（至少差一个数量级）");
}

TEST_CASE("grade_answers: MB for MiB loses the points, with a note", "[quantity]") {
  const auto g = grade(number_key("q1.b", 32, 0.5, "MiB"), "32 MB");
  CHECK(g.points == 0);
  CHECK(g.feedback ==
        "q1.b: you wrote \"32 MB\" = 30.5176 MiB; wrong value (note: 1 MB = 10^6 B, 1 MiB = 2^20 "
        "B)");
  CHECK(grade(number_key("q1.b", 32, 0.5, "MiB"), "32 MB", lang::zh).feedback ==
        "q1.b：你写的是 “32 MB” = 30.5176 MiB，数值不对（注意 1 MB = 10^6 B, 1 MiB = 2^20 B）");
  // No note when neither reading is right.
  CHECK(grade(number_key("q1.b", 32, 0.5, "MiB"), "64 MB").feedback ==
        "q1.b: you wrote \"64 MB\" = 61.0352 MiB; wrong value");
}

TEST_CASE("grade_answers: a wrong dimension or an unreadable number never raises the veto",
          "[quantity]") {
  const auto rate = grade(number_key("q1.b", 32, 0.5, "MiB"), "32 GB/s");
  CHECK(rate.points == 0);
  CHECK(rate.feedback == "q1.b: \"32 GB/s\" is a rate, the question asks for bytes (MiB)");
  CHECK(grade(number_key("q1.b", 32, 0.5, "MiB"), "32 GB/s", lang::zh).feedback ==
        "q1.b：“32 GB/s”是速率，题目问的是字节数（MiB）");
  for (const std::string unreadable :
       {"3.35 TB", "3350 GB", "1e309", "NaN", "inf", "fast", "3~4 TB/s", "50%", "3 ms"}) {
    INFO("answer: " << unreadable);
    const auto g = grade(q2f(), unreadable);
    CHECK(g.points == 0);
    CHECK_FALSE(g.feedback.empty());
    CHECK(g.vetoes.empty());
  }
  CHECK(grade(q2f(), "3.35 TB").feedback ==
        "q2.f: \"3.35 TB\" is a number of bytes, the question asks for a rate (TB/s)");
  CHECK(grade(q2f(), "1e309").feedback == "q2.f: \"1e309\" is not a finite number");
  CHECK(grade(q2f(), "fast").feedback == "q2.f: needs a number, got \"fast\"");
  CHECK(grade(q2f(), "fast", lang::zh).feedback == "q2.f：需要一个数字，写的是“fast”");
}

TEST_CASE("grade_answers: relative_tolerance widens the absolute tolerance", "[quantity]") {
  grader::key_part k = number_key("q.r", 100, 1, "GB/s");
  k.relative_tolerance = 0.05;
  CHECK(grade(k, "106 GB/s").points == 1);
  CHECK(grade(k, "0.094 TB/s").points == 1);
  CHECK(grade(k, "106.1 GB/s").points == 0);
  CHECK(grade(k, "93.9").points == 0);
}

// ---- the key's units

namespace {
grader::answer_key key_from(const std::string& json) {
  temp_dir dir;
  std::ofstream(dir.path / "key.json") << json;
  return grader::load_answer_key(dir.path / "key.json");
}
}  // namespace

TEST_CASE("load_answer_key reads units and relative_tolerance, refuses unknown units",
          "[quantity]") {
  const auto key = key_from(
      R"({"parts": [{"id": "q.n", "item": "q", "type": "number", "points": 1, "value": 3.35,
          "tolerance": 0, "relative_tolerance": 0.1, "unit": "TB/s"}]})");
  REQUIRE(key.parts.size() == 1);
  CHECK(key.parts[0].relative_tolerance == 0.1);
  CHECK(key.parts[0].unit == "TB/s");
  for (const std::string unit : {"bananas", "M", "MiBs"}) {
    INFO("unit: " << unit);
    CHECK_THROWS_WITH(
        key_from(R"({"parts": [{"id": "q.n", "item": "q", "type": "number", "points": 1,
                     "value": 3, "tolerance": 0, "unit": ")" +
                 unit + R"("}]})"),
        Catch::Matchers::Contains("part q.n has unit \"" + unit + "\""));
  }
  CHECK_THROWS_WITH(key_from(R"({"parts": [{"id": "q.n", "item": "q", "type": "number", "points": 1,
                   "value": 3, "tolerance": 0, "relative_tolerance": -1}]})"),
                    Catch::Matchers::Contains("part q.n has a negative tolerance"));
}

TEST_CASE("lesson13's key: every number part has a unit the reader knows", "[quantity]") {
  const auto key = grader::load_answer_key(std::filesystem::path(COURSE_SOURCE_DIR) /
                                           "solutions/lesson13/answer_key.json");
  int numbers = 0;
  for (const auto& p : key.parts) {
    if (p.type != "number") continue;
    ++numbers;
    INFO("part " << p.id << " unit " << p.unit);
    CHECK(parse_unit(p.unit));
  }
  CHECK(numbers == 6);
}
