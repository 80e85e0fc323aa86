// Unit tests for the ground-floor file helpers (files.cpp).
//   build/dev/bin/grader_tests "[files]"
#include <catch2/catch.hpp>

#include <filesystem>

#include "grader/base/files.hpp"

namespace fs = std::filesystem;

TEST_CASE("display_path is relative inside the current directory, absolute outside", "[files]") {
  const fs::path cwd = fs::current_path();
  CHECK(grader::display_path(cwd / "exercises" / "lesson13" / "answers.md") ==
        "exercises/lesson13/answers.md");
  if (cwd != cwd.root_path()) {
    const fs::path outside = cwd.root_path() / "grader-no-such-dir" / "f.cpp";
    CHECK(grader::display_path(outside) == outside.string());
  }
}

TEST_CASE("split_lines splits on LF and CRLF, a final newline adding no line", "[files]") {
  using V = std::vector<std::string_view>;
  CHECK(grader::split_lines("") == V{});
  CHECK(grader::split_lines("a") == V{"a"});
  CHECK(grader::split_lines("a\n") == V{"a"});
  CHECK(grader::split_lines("a\r\nb\n\nc") == V{"a", "b", "", "c"});
}

TEST_CASE("executable_build_dir is the folder above the running program's bin/", "[files]") {
  const fs::path dir = grader::executable_build_dir();
  CHECK(fs::exists(dir / "bin" / "grader_tests"));
  CHECK(fs::exists(dir / "CMakeCache.txt"));
}
