// Runs a lesson's Catch2 test binary for one tag in a child process (with the
// course-json reporter) and reads back one record per test case.
#pragma once

#include <chrono>
#include <filesystem>
#include <map>
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
  int expected_tests = 0;  // from --list-tags; 0 when unknown
  std::vector<test_record> records;
  std::string raw_records;  // the reporter's lines, as written
  run_result process;

  // The process ended cleanly and every expected test reported and passed. Records
  // are read from a file (Catch2's --out), so output the student's code prints
  // cannot pose as a result, and an early exit cannot skip a test unnoticed.
  bool passed() const;
};

tag_run run_tag(const std::filesystem::path& binary, const std::string& tag, unsigned seed,
                std::chrono::milliseconds timeout, int expected_tests = 0);

// One process to run: a binary's tests for one tag, and how many tests it has.
struct tag_job {
  std::filesystem::path binary;
  std::string tag;
  int expected_tests = 0;
};

// Runs the jobs (one process each), up to `parallel` at once; results in job order.
std::vector<tag_run> run_jobs(const std::vector<tag_job>& jobs, unsigned seed,
                              std::chrono::milliseconds timeout, unsigned parallel);

// Runs several tags of one binary at once. `counts` gives the number of tests per
// tag (list_tags), when known.
std::vector<tag_run> run_tags(const std::filesystem::path& binary,
                              const std::vector<std::string>& tags, unsigned seed,
                              std::chrono::milliseconds timeout, unsigned jobs,
                              const std::map<std::string, int>& counts = {});

// The tags the binary's tests carry, e.g. "[code.update]", with their test counts.
std::map<std::string, int> list_tags(const std::filesystem::path& binary);

// A test binary's results, reused while the binary is unchanged (like Go's test
// cache): the fingerprint is the binary's size and modification time.
std::string binary_fingerprint(const std::filesystem::path& binary);
void save_cached_runs(const std::filesystem::path& file, const std::string& fingerprint,
                      unsigned seed, const std::vector<tag_run>& runs);
// The cached runs for `tags`, or nothing when the cache is stale or lacks one.
std::map<std::string, tag_run> load_cached_runs(const std::filesystem::path& file,
                                                const std::string& fingerprint,
                                                const std::vector<std::string>& tags,
                                                unsigned* seed);

// Parses the reporter's JSON lines; skips anything that is not a well-formed record.
std::vector<test_record> parse_records(const std::string& output);

}  // namespace grader
