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

TEST_CASE("changes_outside_blanks: blanks are the student's, every other edit is listed",
          "[regions]") {
  const std::string exercise =
      "#include <cmath>\n"
      "\n"
      "float f(float x, float m) {\n"
      "  // the new max\n"
      "  const float m_new = BLANK(m_new);\n"
      "  return std::exp(x - m_new);\n"
      "}\n";
  using grader::changes_outside_blanks;
  // Filled in one line, or in three, reformatted, comments changed: nothing to list.
  CHECK(changes_outside_blanks(exercise,
                               "#include <cmath>\nfloat f(float x,float m){\n"
                               "  const float m_new = std::max(x, m);  // mine\n"
                               "  return std::exp(x - m_new);\n}\n")
            .empty());
  CHECK(changes_outside_blanks(exercise,
                               "#include <cmath>\nfloat f(float x, float m) {\n"
                               "  float a = x;\n  float b = m;\n"
                               "  const float m_new = a > b ? a : b;\n"
                               "  return std::exp(x - m_new);\n}\n")
            .empty());
  // The return statement rewritten, a helper added, the include removed: each listed.
  const auto changed = changes_outside_blanks(exercise,
                                              "#include <cstdio>\n"
                                              "float f(float x, float m) {\n"
                                              "  const float m_new = std::max(x, m);\n"
                                              "  return 1.0f;\n"
                                              "}\n"
                                              "static int spy = std::puts(\"hi\");\n");
  REQUIRE(changed.size() == 3);
  CHECK(changed[0].kind == "changed");  // the exercise's line 1, the include
  CHECK(changed[0].line == 1);
  CHECK(changed[0].text == "#include <cmath>");
  CHECK(changed[1].kind == "changed");  // its line 6, the return, beside the filled blank
  CHECK(changed[1].line == 6);
  CHECK(changed[1].text == "  return std::exp(x - m_new);");
  CHECK(changed[2].kind == "added");  // the student's line 6
  CHECK(changed[2].line == 6);
  CHECK(changed[2].text == "static int spy = std::puts(\"hi\");");
  // A TUNABLE value's line is the student's too: a new value, or the macro gone.
  const std::string tunable = "constexpr int PAD = TUNABLE(0);  // padding\nint g();\n";
  CHECK(changes_outside_blanks(tunable, "constexpr int PAD = TUNABLE(1);\nint g();\n").empty());
  CHECK(changes_outside_blanks(tunable, "constexpr int PAD = 1;\nint g();\n").empty());
  CHECK(changes_outside_blanks(tunable, "constexpr int PAD = 1;\nint h();\n").size() == 1);
  // A line removed outright is a changed line of the exercise too.
  const auto removed = changes_outside_blanks(exercise,
                                              "#include <cmath>\nfloat f(float x, float m) {\n"
                                              "  const float m_new = m;\n}\n");
  REQUIRE(removed.size() == 1);
  CHECK(removed[0].kind == "changed");
  CHECK(removed[0].line == 6);
}
