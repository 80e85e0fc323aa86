// Unit tests for the notes' figure markers (grader/testing/include/course/figures.hpp): how a
// marked number is read, and how the write mode rewrites a drifted one in its own format.
//   build/dev/bin/grader_tests "[figures]"
#include <catch2/catch.hpp>

#include <fstream>
#include <sstream>
#include <string>

#include "course/figures.hpp"
#include "temp_dir.hpp"

namespace {
std::string slurp(const std::filesystem::path& p) {
  std::ifstream in(p);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}
}  // namespace

TEST_CASE("format_like keeps the written number's decimals and thousands separators", "[figures]") {
  using lesson_checks::format_like;
  CHECK(format_like(11.83, "12.4") == "11.8");
  CHECK(format_like(0.10771, "0.1087") == "0.1077");
  CHECK(format_like(1231.3, "1,227") == "1,231");
  CHECK(format_like(987.6, "1,227") == "988");  // no separator needed below a thousand
  CHECK(format_like(1234567.0, "1,000,000") == "1,234,567");
  CHECK(format_like(102.6, "101") == "103");
  CHECK(format_like(15.0, "15.50") == "15.00");
}

TEST_CASE("the write mode rewrites only the drifted numbers, in place, and reads back",
          "[figures]") {
  temp_dir dir("figures-test");
  const std::string en =
      "| 64 | 4,096 | 4.874<!-- fig:t.naive --> | 0.8164<!-- fig:t.lab --> | 6.0<!-- fig:t.x -->× "
      "|\n"
      "Coalescing, 12.4<!-- fig:t.coal -->× faster; 1,227<!-- fig:t.big --> ms in all.\n"
      "Unmarked 3.5 stays.\n";
  std::ofstream(dir.path / "notes.en.md") << en;
  const auto figures = lesson_checks::read_marked_figures(dir.path);
  REQUIRE(figures.size() == 5);
  std::vector<std::pair<lesson_checks::marked_figure, std::string>> drifted;
  for (const auto& f : figures) {
    if (f.name == "t.naive") drifted.push_back({f, lesson_checks::format_like(4.891, f.text)});
    if (f.name == "t.x") drifted.push_back({f, lesson_checks::format_like(5.97, f.text)});
    if (f.name == "t.big") drifted.push_back({f, lesson_checks::format_like(1231.3, f.text)});
  }
  lesson_checks::write_figures(drifted);
  CHECK(slurp(dir.path / "notes.en.md") ==
        "| 64 | 4,096 | 4.891<!-- fig:t.naive --> | 0.8164<!-- fig:t.lab --> | 6.0<!-- fig:t.x "
        "-->× |\n"
        "Coalescing, 12.4<!-- fig:t.coal -->× faster; 1,231<!-- fig:t.big --> ms in all.\n"
        "Unmarked 3.5 stays.\n");
  for (const auto& f : lesson_checks::read_marked_figures(dir.path)) {
    if (f.name == "t.naive") CHECK(f.value == 4.891);
    if (f.name == "t.big") CHECK(f.value == 1231);
    if (f.name == "t.lab") CHECK(f.value == 0.8164);
  }
}
