// Unit tests for the ground-floor file helpers (files.cpp).
//   build/dev/bin/grader_tests "[files]"
#include <catch2/catch.hpp>

#include <filesystem>

#include <unistd.h>

#include "grader/base/error.hpp"
#include "grader/base/files.hpp"
#include "grader/base/zip.hpp"

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

TEST_CASE("write_replacing replaces a planted symlink instead of writing through it", "[files]") {
  const fs::path dir = fs::temp_directory_path() / ("grader-files-" + std::to_string(getpid()));
  fs::create_directories(dir);
  const fs::path victim = dir / "victim.txt", report = dir / "report.json";
  grader::write_if_changed(victim, "precious");
  fs::create_symlink(victim, report);
  grader::write_replacing(report, "{\"passed\": false}");
  CHECK(grader::read_text(victim) == "precious");
  CHECK_FALSE(fs::is_symlink(report));
  CHECK(grader::read_text(report) == "{\"passed\": false}");
  grader::write_replacing(report, "second");  // over its own earlier file
  CHECK(grader::read_text(report) == "second");
  fs::create_directories(dir / "a-folder");
  CHECK_THROWS_AS(grader::write_replacing(dir / "a-folder", "x"), grader::cannot_grade);
  CHECK(fs::is_directory(dir / "a-folder"));
  CHECK(std::distance(fs::directory_iterator(dir), fs::directory_iterator()) == 3);  // no temp
  fs::remove_all(dir);
}

// ==== the stored-zip writer (grader/base/zip.hpp)

TEST_CASE("crc32 matches the standard check value", "[zip]") {
  CHECK(grader::crc32("123456789") == 0xCBF43926u);
  CHECK(grader::crc32("") == 0u);
}

TEST_CASE("zip_archive is deterministic, and refuses names that leave the archive", "[zip]") {
  const std::vector<grader::zip_entry> entries = {{"setup.sh", "#!/bin/sh\n", true},
                                                  {"course/a b.txt", "x", false}};
  const std::string a = grader::zip_archive(entries), b = grader::zip_archive(entries);
  CHECK(a == b);
  CHECK(a.substr(0, 4) == std::string("PK\x03\x04", 4));
  CHECK(a.find("course/a b.txt") != std::string::npos);
  CHECK(a.substr(a.size() - 22, 4) == std::string("PK\x05\x06", 4));
  for (const char* bad : {"", "/etc/passwd", "../x", "a/../b", "a//b", "a\\b"})
    CHECK_THROWS_AS(grader::zip_archive({{bad, "x", false}}), grader::cannot_grade);
}
