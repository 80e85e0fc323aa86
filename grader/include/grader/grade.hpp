// Grades one submission of a lesson: builds its C++ files with the lesson's tests,
// runs each rubric item's and each veto's tests in its own child process, grades
// the answers file against the key, and returns the report.
#pragma once

#include <chrono>
#include <filesystem>
#include <map>
#include <string>

#include "grader/manifest.hpp"
#include "grader/report.hpp"

namespace grader {

struct grade_request {
  // Exercise file name -> the file to grade. Only read, never written.
  std::map<std::string, std::filesystem::path> files;
  std::string label;  // how the submission is named in the report
  std::string unit;   // empty: every unit
  lang language = lang::en;
  unsigned seed = 0;  // Catch2 --rng-seed for the tests
  std::chrono::milliseconds test_timeout{std::chrono::seconds(10)};
  std::chrono::seconds build_timeout{std::chrono::minutes(5)};
  std::filesystem::path tree;  // empty: the course's build/grade/<lesson>
  bool fresh = false;          // re-run every test, even of unchanged test binaries
  // Instructor review: item id -> points, replacing what the grader gave (an
  // explanation marked needs_review, say).
  std::map<std::string, double> overrides;
};

// The files of `dir` named like the exercise files of `unit` (every unit when
// empty). Files missing from `dir` come from `fallback` when given (a mutant holds
// only what it changes); otherwise a missing file throws cannot_grade.
std::map<std::string, std::filesystem::path> submission_files(
    const manifest& m, const std::filesystem::path& dir, const std::filesystem::path& fallback = {},
    const std::string& unit = {});

report grade(const course& c, const manifest& m, const grade_request& request);

}  // namespace grader
