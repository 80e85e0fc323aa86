// Unit tests for student-file generation and blank scanning (grader/src/regions.cpp).
//   build/bin/grader_tests "[regions]"
#include <catch2/catch.hpp>

#include "grader/base/error.hpp"
#include "grader/lesson/regions.hpp"

using grader::find_blanks;
using grader::make_student_file;

TEST_CASE("a C++ region becomes its PROMPT lines at the marker's indentation", "[regions]") {
  const std::string solution =
      "int f(int x) {\n"
      "    // BEGIN SOLUTION\n"
      "    int y = x * 2;\n"
      "    // PROMPT int y = BLANK(double_it);\n"
      "    // END SOLUTION\n"
      "  return y;\n"
      "}\n";
  CHECK(make_student_file(solution, "cpp", "f.cpp") ==
        "int f(int x) {\n"
        "    int y = BLANK(double_it);\n"
        "  return y;\n"
        "}\n");
}

TEST_CASE("a region without PROMPT lines disappears", "[regions]") {
  CHECK(make_student_file("a\n// BEGIN SOLUTION\nb\n// END SOLUTION\nc\n", "cpp", "f.cpp") ==
        "a\nc\n");
}

TEST_CASE("unbalanced markers name the file and line", "[regions]") {
  CHECK_THROWS_WITH(make_student_file("a\n// BEGIN SOLUTION\nb\n", "cpp", "f.cpp"),
                    "f.cpp:2: BEGIN SOLUTION is never closed");
  CHECK_THROWS_WITH(make_student_file("// END SOLUTION\n", "cpp", "f.cpp"),
                    "f.cpp:1: END SOLUTION without BEGIN SOLUTION");
  CHECK_THROWS_WITH(make_student_file("// BEGIN SOLUTION\n// BEGIN SOLUTION\n", "cpp", "f.cpp"),
                    "f.cpp:2: BEGIN SOLUTION inside the region opened at line 1");
  CHECK_THROWS_WITH(make_student_file("// PROMPT x\n", "cpp", "f.cpp"),
                    "f.cpp:1: PROMPT outside a SOLUTION region");
}

TEST_CASE("marker words inside other comments are left alone", "[regions]") {
  const std::string text = "// BEGIN SOLUTIONS are explained below\nint x;\n";
  CHECK(make_student_file(text, "cpp", "f.cpp") == text);
}

TEST_CASE("answers files lose their ticks and their answer text", "[regions]") {
  const std::string solution =
      "### [q1.a] Pick one\n"
      "- [x] (a) right\n"
      "- [ ] (b) wrong\n"
      "\n"
      "### [q1.b] A number\n"
      "answer: 32\n"
      "\n"
      "### [q1.c] Explain\n"
      "answer:\n"
      "first line\n"
      "second line\n"
      "\n"
      "## Q2\n";
  CHECK(make_student_file(solution, "answers", "answers.md") ==
        "### [q1.a] Pick one\n"
        "- [ ] (a) right\n"
        "- [ ] (b) wrong\n"
        "\n"
        "### [q1.b] A number\n"
        "answer:\n"
        "\n"
        "### [q1.c] Explain\n"
        "answer:\n"
        "\n"
        "## Q2\n");
}

TEST_CASE("answers files lose every answer the parser would read, whatever its spelling",
          "[regions]") {
  // "Answer:" and the full-width "answer：" are answers to the parser too: left in
  // the student's file, the model answer would ship and score.
  CHECK(make_student_file("### [q.a] N\nAnswer: 32\n### [q.b] M\n  answer：64\n", "answers",
                          "answers.md") == "### [q.a] N\nAnswer:\n### [q.b] M\n  answer：\n");
}

TEST_CASE("find_blanks lists BLANK(name) in code, not in comments", "[regions]") {
  const auto blanks = find_blanks(
      "float a = BLANK(m_new);\n"
      "// float b = BLANK(commented);\n"
      "x = BLANK( scale ) + BLANK(l_new);  // BLANK(also_comment)\n"
      "#define BLANKET 1\n");
  REQUIRE(blanks.size() == 3);
  CHECK(blanks[0].name == "m_new");
  CHECK(blanks[0].line == 1);
  CHECK(blanks[1].name == "scale");
  CHECK(blanks[2].name == "l_new");
  CHECK(blanks[2].line == 3);
}
