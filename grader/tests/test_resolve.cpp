// Unit tests for the resolve stage (resolve.cpp): which units and files a grade
// needs, where each file comes from, and the blanks still in the code.
//   build/dev/bin/grader_tests "[resolve]"
#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <string>

#include "grader/base/error.hpp"
#include "grader/pipeline/resolve.hpp"
#include "temp_dir.hpp"

namespace fs = std::filesystem;
using Catch::Matchers::Contains;
using grader::cannot_grade;

namespace {

// Unit "exam" uses code.cpp and answers.md; unit "lab" uses kernel.cu.
grader::manifest two_units() {
  grader::manifest m;
  m.lesson = "tiny";
  m.exercises = {{"code", "code.cpp", "cpp", "", {}, {}},
                 {"kernel", "kernel.cu", "cu", "", {}, {}},
                 {"questions", "answers.md", "answers", "key.json", {}, {}}};
  m.units = {{"exam",
              {},
              3,
              2,
              {{"code.a", "code", 2, {}, {}, {}}, {"q1", "questions", 1, {}, {}, {}}},
              {}},
             {"lab", {}, 1, 1, {{"lab.a", "kernel", 1, {}, {}, {}}}, {}}};
  return m;
}

void write(const fs::path& p, const std::string& text) {
  std::ofstream(p) << text;
}

}  // namespace

TEST_CASE("resolve: a unit needs only its own exercises' files", "[resolve]") {
  const auto m = two_units();
  temp_dir dir;
  write(dir.path / "code.cpp", "int f() { return BLANK(m_new); }\n// BLANK(in_a_comment)\n");
  write(dir.path / "answers.md", "");
  write(dir.path / "kernel.cu", "");
  const auto exam = grader::resolve(m, grader::submission_files(m, dir.path, {}, "exam"), "exam");
  REQUIRE(exam.units.size() == 1);
  CHECK(exam.units[0]->id == "exam");
  REQUIRE(exam.files.size() == 2);
  CHECK(exam.find("kernel") == nullptr);
  CHECK(exam.needs_build());
  const auto* code = exam.find("code");
  REQUIRE(code);
  CHECK(code->path == dir.path / "code.cpp");
  REQUIRE(code->blanks.size() == 1);
  CHECK(code->blanks[0].name == "m_new");
  CHECK(code->blanks[0].line == 1);

  const auto all = grader::resolve(m, grader::submission_files(m, dir.path), "");
  CHECK(all.units.size() == 2);
  CHECK(all.files.size() == 3);
  CHECK(all.paths().at("kernel.cu") == dir.path / "kernel.cu");
}

TEST_CASE("resolve: an answers-only grade builds nothing", "[resolve]") {
  grader::manifest m = two_units();
  m.units[0].items.erase(m.units[0].items.begin());  // exam: only q1
  temp_dir dir;
  write(dir.path / "answers.md", "");
  CHECK_FALSE(grader::resolve(m, {{"answers.md", dir.path / "answers.md"}}, "exam").needs_build());
}

TEST_CASE("resolve and submission_files: an unknown unit or a missing file is cannot_grade",
          "[resolve]") {
  const auto m = two_units();
  temp_dir dir;
  write(dir.path / "code.cpp", "");
  CHECK_THROWS_WITH(grader::resolve(m, {}, "nope"),
                    "lesson tiny has no unit 'nope' (its units: exam, lab)");
  CHECK_THROWS_AS(grader::resolve(m, {{"code.cpp", dir.path / "code.cpp"}}, "exam"), cannot_grade);
  CHECK_THROWS_WITH(grader::submission_files(m, dir.path, {}, "exam"),
                    Contains("missing file") && Contains("answers.md") &&
                        Contains("(a tiny submission for exam holds: code.cpp, answers.md)"));
  CHECK_THROWS_WITH(grader::submission_files(m, dir.path / "nowhere"), Contains("no such folder"));
}

TEST_CASE("submission_files: a file missing from the submission comes from the fallback",
          "[resolve]") {
  const auto m = two_units();
  temp_dir sub, fallback;
  write(sub.path / "kernel.cu", "// mine");
  write(fallback.path / "kernel.cu", "// theirs");
  write(fallback.path / "code.cpp", "");
  write(fallback.path / "answers.md", "");
  const auto files = grader::submission_files(m, sub.path, fallback.path);
  CHECK(files.at("kernel.cu") == sub.path / "kernel.cu");
  CHECK(files.at("code.cpp") == fallback.path / "code.cpp");
}
