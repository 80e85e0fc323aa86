// Stage 3, run: each test job (one tag of one exercise's test binary) runs in its
// own process through a `runner`, which applies the limits and returns the records
// the test reporter wrote (course/protocol.hpp). Records come from a file, never
// from the process's output, so nothing the student's code prints can pose as one.
//
// A runner is one class behind the `runner` interface: process_runner (a plain
// child process with a time limit) is the first; a sandboxed runner plugs in the
// same way.
#pragma once

#include <chrono>
#include <cstdint>
#include <filesystem>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "grader/base/sandbox.hpp"
#include "grader/base/subprocess.hpp"
#include "grader/lesson/manifest.hpp"
#include "grader/pipeline/build.hpp"
#include "grader/pipeline/resolve.hpp"

namespace grader {

struct test_failure {
  std::string file;
  int line = 0;
  std::string kind;  // course::protocol::failure_kind
  std::string expression, expanded, message;
  std::vector<std::string> info;  // INFO() messages in scope
};

struct test_record {
  std::string name;
  std::vector<std::string> tags;
  bool passed = false;
  std::vector<test_failure> failures;
  std::string blank;                  // the unfilled blank the case ran into, if any
  std::vector<std::string> warnings;  // WARN() messages, passed or not
};

// One process to run: a binary's tests for one tag, and how many tests it has.
struct test_job {
  std::string exercise;  // the exercise whose binary it is
  std::filesystem::path binary;
  std::string tag;
  int expected_tests = 0;  // from --list-tags; 0 when unknown
  // A command the binary runs under (compute-sanitizer on a GPU, say); usually none.
  std::vector<std::string> wrapper = {};
  // Marking mode (course/remote.hpp): `binary` is then a judge with no student code,
  // and this program, the only one that runs student code, is started by it.
  std::filesystem::path compute = {};
  std::vector<std::string> compute_wrapper = {};  // the command it runs under (a sandbox)
  // The same for a compute process whose memory the judge measures from outside: its
  // sanitizer keeps no freed blocks aside (sanitizer_environment(true)).
  std::vector<std::string> compute_measured_wrapper = {};
  // Seconds this tag's last run took, if known (cached_run_seconds): run_all starts the
  // longest jobs first, so a short one is not left to end a grade alone.
  double estimate = 0;
};

struct tag_run {
  std::string exercise, tag;
  int expected_tests = 0;
  std::vector<test_record> records;
  std::string raw_records;  // the reporter's lines, as written
  run_result process;

  // The process ended cleanly and every expected test reported and passed, so an
  // early exit cannot skip a test unnoticed.
  bool passed() const;
  // The blank the first failing record ran into, or "".
  std::string blank() const;
};

// The exit status of a test process that AddressSanitizer or UBSan stopped
// (ASAN_OPTIONS/UBSAN_OPTIONS exitcode, set by every runner): such a run is a
// memory error or undefined behaviour, never a test's verdict.
inline constexpr int sanitizer_exit_code = 86;
// The environment entries that set it, and stop at the first error. `measured`: for a
// compute process whose peak memory the judge reads from /proc, AddressSanitizer keeps no
// freed blocks in quarantine, so the resident memory follows the live heap (a block
// allocated and freed per tile would otherwise add up to an n x n matrix's bytes).
std::vector<std::string> sanitizer_environment(bool measured = false);

// What a sanitizer reported in a test's output, told in one line with the place in
// `file` (an exercise's file name) where the student's code did it, or "" if none.
std::string sanitizer_summary(const std::string& output, const std::string& file);

struct run_limits {
  std::chrono::milliseconds timeout{std::chrono::seconds(10)};
  size_t max_output = 1u << 20;  // stdout and stderr together: past it, output limit
  // Resident, all of a grade's tests at once: run_all gives each of its parallel jobs an
  // equal share, so a grade holds no more than this however many cores it uses.
  std::uint64_t max_memory = 3ull << 30;
  unsigned max_processes = 256;  // in the test's tree at once
};

class runner {
 public:
  virtual ~runner() = default;
  // How the tests are isolated, for the report: "process", "bubblewrap", ...
  virtual std::string isolation() const = 0;
  // The same as a level (grader/base/sandbox.hpp), for --require-sandbox and the report.
  virtual grader::isolation level() const { return grader::isolation::none; }
  // Runs one job to the end (or its limits). Never throws for what the test does.
  virtual tag_run run(const test_job& job, unsigned seed, const run_limits& limits) = 0;
  // The command that confines any other run of a test binary (--list-tags): the
  // student's code runs then too, in its static constructors.
  virtual std::vector<std::string> confine(const std::filesystem::path& /*binary*/) const {
    return {};
  }
};

// A plain child process in its own process group, killed at the time limit. The
// reporter writes to a pipe the grader reads while the test runs (fd 3).
class process_runner final : public runner {
 public:
  std::string isolation() const override { return "process"; }
  tag_run run(const test_job& job, unsigned seed, const run_limits& limits) override;
};

// Each job confined (src/pipeline/runners/sandbox.cpp, grader/base/sandbox.hpp). At the
// full level, bubblewrap: no network, an empty environment but the sanitizers', the
// system's libraries and the test binary the only files it sees (read-only), a 64 MiB
// private /tmp its only writable folder (records go to a pipe), uid 65534 in its own
// user, pid and IPC namespaces (every process it starts, daemons included, dies with
// it). At the restricted level, grader-confine: the same files through Landlock, no
// network sockets, a uid of its own when root, a private temporary folder, and a
// supervisor that kills what the test leaves behind. Both: at most 256 processes, 64
// MiB per file written and 256 open files. The course, the solutions, the answer key,
// $HOME and the submission are not there to read or write. A marking job's judge runs
// outside, with no student code in it, and only its compute process is confined (with
// no folder of the grader's).
class sandbox_runner final : public runner {
 public:
  explicit sandbox_runner(grader::isolation level = grader::isolation::full) : level_(level) {}
  std::string isolation() const override;
  grader::isolation level() const override { return level_; }
  tag_run run(const test_job& job, unsigned seed, const run_limits& limits) override;
  std::vector<std::string> confine(const std::filesystem::path& binary) const override;

 private:
  grader::isolation level_;
  process_runner inner_;
};

// Runs the jobs, up to `parallel` at once, the longest (by estimate) first; results in
// job order.
std::vector<tag_run> run_all(runner& r, const std::vector<test_job>& jobs, unsigned seed,
                             const run_limits& limits, unsigned parallel);

// The same verdicts as run_all, for less: the judge jobs (marking mode) of one exercise
// run as one process, all their tags at once, so its start, its compute process and the
// sandbox around that are paid once, not once per tag. The judge is trusted, so a tag
// whose tests all reported is done whatever ended the process later; a tag left
// incomplete (a hang, a crash, a limit) runs again alone, with the limits it would have
// had. Jobs without a judge run one per process, as run_all runs them.
std::vector<tag_run> run_grouped(runner& r, const std::vector<test_job>& jobs, unsigned seed,
                                 const run_limits& limits, unsigned parallel);

// The run stage as a whole: for each built exercise, one job per item tag and per
// veto tag of the graded units, unless the cache holds that binary's results.
struct run_settings {
  unsigned seed = 0;
  run_limits limits;
  unsigned parallel = 2;
  bool fresh = false;                  // ignore the cache
  std::optional<unsigned> cache_seed;  // reuse only runs made with this seed
  std::filesystem::path cache_dir;     // where each binary's results are kept
};
struct test_runs {
  std::vector<tag_run> runs;
  std::vector<std::string> reused;  // exercise files whose results came from the cache
};
test_runs run_tests(runner& r, const resolved& what, const build_result& built,
                    const run_settings& s);

// The tags the binary's tests carry, e.g. "[code.update]", with their test counts.
std::map<std::string, int> list_tags(const std::filesystem::path& binary,
                                     const std::vector<std::string>& confine = {});

// Parses the reporter's JSON lines; skips anything that is not a well-formed record.
std::vector<test_record> parse_records(const std::string& output);

}  // namespace grader
