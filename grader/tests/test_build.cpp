// Unit tests for the build stage's diagnostics (build.cpp): the compiler's lines
// about the student's own file, with their source excerpts.
//   build/dev/bin/grader_tests "[build]"
#include <catch2/catch.hpp>

#include <filesystem>
#include <map>
#include <string>

#include "grader/pipeline/build.hpp"

namespace fs = std::filesystem;
using Catch::Matchers::Contains;
using grader::student_diagnostics;

TEST_CASE("student_diagnostics keeps the student's lines and their source excerpts", "[build]") {
  const fs::path cwd = fs::current_path();
  const fs::path student = cwd / "grader-diag-test" / "online_softmax.cpp";
  const fs::path header = cwd / "grader-diag-test" / "helper.hpp";
  const std::string s = student.string(), h = header.string();
  const std::string output =
      "[1/3] Building CXX object "
      "lessons/lesson13/CMakeFiles/lesson13_tests.dir/submission/online_softmax.cpp.o\n"
      "FAILED: lessons/lesson13/CMakeFiles/lesson13_tests.dir/submission/online_softmax.cpp.o\n"
      "/usr/bin/c++ -O3 -std=c++20 -c "
      "/home/student/course/build/grade/lesson13/submission/online_softmax.cpp\n"
      "In file included from "
      "/home/student/course/build/grade/lesson13/submission/online_softmax.cpp:2:\n" +
      s + ": In function 'void course::attention(int)':\n" + s +
      ":42:27: error: 'm_nw' was not declared in this scope; did you mean 'm_new'?\n"
      "   42 |     const float scale = std::exp(m_old - m_nw);\n"
      "      |                                          ^~~~\n"
      "      |                                          m_new\n"
      "/usr/include/c++/12/bits/stl_algobase.h:259:5: note: candidate: 'const _Tp& std::max(const "
      "_Tp&, const _Tp&)'\n"
      "  259 |     max(const _Tp& __a, const _Tp& __b)\n"
      "      |     ^~~\n" +
      s + ".orig:1:1: error: not the student's file\n" + h +
      ":7:5: warning: unused variable 'tmp' [-Wunused-variable]\n"
      "    7 |     int tmp = 0;\n"
      "      |         ^~~\n"
      "ninja: build stopped: subcommand failed.\n";
  const std::string shown =
      student_diagnostics(output, {{"online_softmax.cpp", student}, {"helper.hpp", header}});
  CHECK(shown ==
        "grader-diag-test/online_softmax.cpp: In function 'void course::attention(int)':\n"
        "grader-diag-test/online_softmax.cpp:42:27: error: 'm_nw' was not declared in this scope; "
        "did you mean 'm_new'?\n"
        "   42 |     const float scale = std::exp(m_old - m_nw);\n"
        "      |                                          ^~~~\n"
        "      |                                          m_new\n"
        "grader-diag-test/helper.hpp:7:5: warning: unused variable 'tmp' [-Wunused-variable]\n"
        "    7 |     int tmp = 0;\n"
        "      |         ^~~\n");
}

TEST_CASE("student_diagnostics falls back to error and undefined-reference lines", "[build]") {
  const fs::path student = fs::current_path() / "grader-diag-test" / "online_softmax.cpp";
  const std::string linker =
      "[2/2] Linking CXX executable bin/lesson13_tests\n"
      "FAILED: bin/lesson13_tests\n"
      ": && /usr/bin/c++ -O3 CMakeFiles/x.o -o bin/lesson13_tests && :\n"
      "/usr/bin/ld: CMakeFiles/lesson13_tests.dir/tests/test_online_softmax.cpp.o: in function "
      "`run()':\n"
      "test_online_softmax.cpp:(.text+0x1c): undefined reference to `course::attention(int)'\n"
      "collect2: error: ld returned 1 exit status\n"
      "ninja: build stopped: subcommand failed.\n";
  CHECK(student_diagnostics(linker, {{"online_softmax.cpp", student}}) ==
        "test_online_softmax.cpp:(.text+0x1c): undefined reference to `course::attention(int)'\n"
        "collect2: error: ld returned 1 exit status\n");

  // At most 12 fallback lines.
  std::string many;
  for (int i = 0; i < 20; ++i)
    many += fmt::format("/elsewhere/lib.hpp:{}:1: error: e{}\n", i + 1, i);
  const std::string fallback = student_diagnostics(many, {{"online_softmax.cpp", student}});
  CHECK(std::count(fallback.begin(), fallback.end(), '\n') == 12);
  CHECK(fallback.starts_with("/elsewhere/lib.hpp:1:1: error: e0\n"));

  CHECK(student_diagnostics("ninja: no work to do.\n", {{"online_softmax.cpp", student}}).empty());
  CHECK(student_diagnostics("", {}).empty());
}

// gcc's excerpt of a line holding ": " (a range-for, a label, a ternary) is taken for a
// message line of another file and dropped.
TEST_CASE("student_diagnostics keeps an excerpt line that contains \": \"", "[build]") {
  const fs::path student = fs::current_path() / "grader-diag-test" / "online_softmax.cpp";
  const std::string output = student.string() +
                             ":10:17: error: 'row' was not declared in this scope\n" +
                             "   10 |   for (float v: row) total += v;\n"
                             "      |                 ^~~\n";
  CHECK(student_diagnostics(output, {{"online_softmax.cpp", student}}) ==
        "grader-diag-test/online_softmax.cpp:10:17: error: 'row' was not declared in this scope\n"
        "   10 |   for (float v: row) total += v;\n"
        "      |                 ^~~\n");
}
