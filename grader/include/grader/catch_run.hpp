// Runs a lesson's Catch2 test binary for one tag in a child process (with the
// course-json reporter) and reads back one record per test case.
#pragma once

#include <chrono>
#include <filesystem>
#include <string>
#include <vector>

#include "grader/subprocess.hpp"

namespace grader {

struct test_failure {
  std::string file;
  int line = 0;
  std::string kind;  // assertion, exception, fatal, fail
  std::string expression, expanded, message;
  std::vector<std::string> info;  // INFO() messages in scope
};

struct test_record {
  std::string name;
  std::vector<std::string> tags;
  bool passed = false;
  std::vector<test_failure> failures;
};

struct tag_run {
  std::string tag;
  std::vector<test_record> records;
  run_result process;

  // Every test ran and passed, and the process ended cleanly.
  bool passed() const;
};

tag_run run_tag(const std::filesystem::path& binary, const std::string& tag, unsigned seed,
                std::chrono::milliseconds timeout);

// Runs several tags at once (one process each), up to `jobs` in parallel.
std::vector<tag_run> run_tags(const std::filesystem::path& binary,
                              const std::vector<std::string>& tags, unsigned seed,
                              std::chrono::milliseconds timeout, unsigned jobs);

// The tags the binary's tests carry, e.g. "[code.update]".
std::vector<std::string> list_tags(const std::filesystem::path& binary);

// Parses the reporter's JSON lines; skips anything else the process printed.
std::vector<test_record> parse_records(const std::string& output);

}  // namespace grader
