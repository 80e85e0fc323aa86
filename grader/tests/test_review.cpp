// Unit tests for reading an instructor's review file (review.cpp).
//   build/dev/bin/grader_tests "[review]"
#include <catch2/catch.hpp>

#include <fstream>
#include <string>

#include "grader/base/error.hpp"
#include "grader/lesson/review.hpp"
#include "temp_dir.hpp"

using Catch::Matchers::Contains;

namespace {

grader::manifest lesson() {
  grader::manifest m;
  m.lesson = "tiny";
  grader::unit exam{"exam", {"考核", "Exam"}, 4, 3, {}, {}};
  exam.items = {{"code.a", "code", 2, {"甲", "A"}, {}, {}}, {"q1", "questions", 2, {}, {}, {}}};
  exam.vetoes = {{"flops", {"计算量", "FLOPs"}, {}}};
  m.units = {exam};
  return m;
}

const std::map<std::string, double> parts = {{"q1.a", 0.5}, {"q1.h", 1.5}};

grader::review read(const std::string& text) {
  temp_dir dir("review-test");
  const auto file = dir.path / "review.json";
  std::ofstream(file) << text;
  return grader::load_review(file, lesson(), parts);
}

}  // namespace

TEST_CASE("load_review reads items, parts, vetoes, reviewer and comment", "[review]") {
  const auto r = read(R"({"schema": 1, "reviewer": "Li", "comment": "q1.h argued well",
    "items": {"code.a": 1}, "parts": {"q1.h": 1.5, "q1.a": 0},
    "vetoes": {"exam": {"flops": "clear"}}})");
  CHECK(r.reviewer == "Li");
  CHECK(r.items.at("code.a") == 1);
  CHECK(r.parts.at("q1.h") == 1.5);
  CHECK(r.parts.at("q1.a") == 0);
  CHECK(r.vetoes.at("exam").at("flops") == grader::veto_decision::clear);
  CHECK(read(R"({"schema": 1, "vetoes": {"exam": {"flops": "set"}}})")
            .vetoes.at("exam")
            .at("flops") == grader::veto_decision::set);
  CHECK(read(R"({"schema": 1})").empty());
}

TEST_CASE("load_review: every mistake is an error naming the entry, never a clamp", "[review]") {
  using grader::input_error;
  CHECK_THROWS_WITH(read(R"({"schema": 1, "items": {"q1": 2.5}})"),
                    Contains("\"q1\" is worth 0 to 2 points, not 2.5"));
  CHECK_THROWS_WITH(read(R"({"schema": 1, "items": {"q1": -1}})"), Contains("not -1"));
  CHECK_THROWS_WITH(read(R"({"schema": 1, "parts": {"q1.h": 2}})"),
                    Contains("\"q1.h\" is worth 0 to 1.5 points"));
  CHECK_THROWS_WITH(read(R"({"schema": 1, "items": {"q9": 1}})"),
                    Contains("\"q9\" is not an item of tiny"));
  CHECK_THROWS_WITH(read(R"({"schema": 1, "parts": {"q1.z": 1}})"),
                    Contains("\"q1.z\" is not a part"));
  CHECK_THROWS_WITH(read(R"({"schema": 1, "items": {"q1": "2"}})"), Contains("must be a number"));
  CHECK_THROWS_WITH(read(R"({"schema": 1, "vetoes": {"lab": {"flops": "set"}}})"),
                    Contains("\"lab\" is not a unit"));
  CHECK_THROWS_WITH(read(R"({"schema": 1, "vetoes": {"exam": {"race": "set"}}})"),
                    Contains("\"race\" is not a veto of unit exam"));
  CHECK_THROWS_WITH(read(R"({"schema": 1, "vetoes": {"exam": {"flops": true}}})"),
                    Contains("\"set\" or \"clear\""));
  CHECK_THROWS_WITH(read(R"({"q1": 1.5})"), Contains("unknown key \"q1\""));
  CHECK_THROWS_WITH(read(R"({"items": {}})"), Contains("\"schema\": 1 is missing"));
  CHECK_THROWS_WITH(read("[1, 2]"), Contains("a JSON object"));
  CHECK_THROWS_WITH(read("{not json"), Contains("a JSON object"));
  CHECK_THROWS_AS(grader::load_review("/nonexistent/review.json", lesson(), parts), input_error);
}
