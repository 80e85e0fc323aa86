// Unit tests for running child processes with a time limit (grader/src/subprocess.cpp).
//   build/bin/grader_tests "[subprocess]"
#include <signal.h>
#include <unistd.h>

#include <catch2/catch.hpp>

#include "temp_dir.hpp"
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fmt/format.h>
#include <fstream>
#include <random>
#include <string>
#include <thread>

#include "grader/base/subprocess.hpp"

namespace fs = std::filesystem;
using namespace std::chrono_literals;
using Catch::Matchers::Contains;
using Catch::Matchers::StartsWith;
using grader::on_path;
using grader::run_options;
using grader::run_process;
using grader::run_result;

namespace {

run_options with_timeout(std::chrono::milliseconds t) {
  run_options o;
  o.timeout = t;
  return o;
}

// True when `pid` no longer runs: gone, or a zombie nobody has reaped yet.
bool process_gone(pid_t pid) {
  std::ifstream stat(fmt::format("/proc/{}/stat", pid));
  if (!stat) return true;
  std::string content((std::istreambuf_iterator<char>(stat)), std::istreambuf_iterator<char>());
  const auto paren = content.rfind(')');
  if (paren == std::string::npos || paren + 2 >= content.size()) return true;
  const char state = content[paren + 2];
  return state == 'Z' || state == 'X';
}

}  // namespace

TEST_CASE("run_process captures stdout and stderr together", "[subprocess]") {
  const run_result r =
      run_process({"sh", "-c", "echo out; echo err 1>&2; printf 'no newline'"}, with_timeout(10s));
  CHECK(r.output == "out\nerr\nno newline");
  CHECK(r.exit_code == 0);
  CHECK(r.term_signal == 0);
  CHECK_FALSE(r.timed_out);
  CHECK_FALSE(r.spawn_failed);
  CHECK(r.ok());
  CHECK(r.describe() == "exit code 0");
  CHECK(r.seconds >= 0);
  CHECK(r.seconds < 10);
}

TEST_CASE("run_process passes arguments verbatim, without a shell", "[subprocess]") {
  const run_result r = run_process({"printf", "%s|", "a b", "$HOME", "'q'", ""}, with_timeout(10s));
  CHECK(r.output == "a b|$HOME|'q'||");
  CHECK(r.ok());
}

TEST_CASE("run_process reports exit codes", "[subprocess]") {
  for (int code : {1, 2, 3, 127, 255}) {
    const run_result r = run_process({"sh", "-c", fmt::format("exit {}", code)}, with_timeout(10s));
    INFO("exit " << code);
    CHECK(r.exit_code == code);
    CHECK(r.term_signal == 0);
    CHECK_FALSE(r.ok());
    CHECK(r.describe() == fmt::format("exit code {}", code));
  }
}

TEST_CASE("run_process reports the signal that killed the child", "[subprocess]") {
  temp_dir dir;  // any core file lands here and goes away with it
  run_options o = with_timeout(10s);
  o.cwd = dir.path;
  const run_result r =
      run_process({"sh", "-c", "ulimit -c 0; echo before; kill -SEGV $$; echo after"}, o);
  CHECK(r.term_signal == SIGSEGV);
  CHECK(r.output == "before\n");
  CHECK_FALSE(r.timed_out);
  CHECK_FALSE(r.ok());
  CHECK(r.describe() == "killed by SIGSEGV");

  const run_result killed = run_process({"sh", "-c", "kill -KILL $$"}, with_timeout(10s));
  CHECK(killed.term_signal == SIGKILL);
  CHECK(killed.describe() == "killed by SIGKILL");
}

TEST_CASE("run_process stops a child at the timeout, promptly", "[subprocess]") {
  const auto start = std::chrono::steady_clock::now();
  const run_result r = run_process({"sleep", "5"}, with_timeout(200ms));
  const double wall =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  CHECK(r.timed_out);
  CHECK_FALSE(r.ok());
  CHECK_FALSE(r.spawn_failed);
  CHECK(r.seconds >= 0.19);
  CHECK(r.seconds < 2);
  CHECK(wall < 2);
  CHECK_THAT(r.describe(), StartsWith("timed out after "));
}

TEST_CASE("run_process kills the child's whole process group at the timeout", "[subprocess]") {
  // The shell starts a grandchild sleep, prints its pid, and waits.
  const run_result r = run_process({"sh", "-c", "sleep 30 & echo $!; wait"}, with_timeout(300ms));
  CHECK(r.timed_out);
  CHECK(r.seconds < 3);
  const pid_t grandchild = static_cast<pid_t>(std::stol(r.output));
  REQUIRE(grandchild > 1);
  bool gone = false;
  for (int i = 0; i < 200 && !gone; ++i) {
    gone = process_gone(grandchild);
    if (!gone) std::this_thread::sleep_for(10ms);
  }
  CHECK(gone);
  if (!gone) kill(grandchild, SIGKILL);  // do not leave it behind
}

TEST_CASE("run_process stops a child that floods its output at the output limit", "[subprocess]") {
  run_options o = with_timeout(20s);
  o.max_output = 1000;
  const run_result r = run_process({"sh", "-c", "while :; do echo yyyyyyyyyyyyyyyy; done"}, o);
  CHECK(r.output_exceeded);
  CHECK_FALSE(r.timed_out);
  CHECK_FALSE(r.ok());
  CHECK(r.seconds < 3);  // stopped at once, not at the time limit
  CHECK(r.output.size() == 1000);
  CHECK_THAT(r.describe(), Contains("output limit"));
}

TEST_CASE("run_process stops a process tree that holds more memory than max_memory",
          "[subprocess]") {
  run_options o = with_timeout(20s);
  o.max_memory = 64ull << 20;
  // A child of the shell writes 512 MiB: the tree's resident total counts it.
  const run_result r = run_process(
      {"sh", "-c", "python3 -c 'import time; b = b\"x\" * (512 << 20); time.sleep(5)'; true"}, o);
  CHECK(r.memory_exceeded);
  CHECK_FALSE(r.ok());
  CHECK(r.seconds < 4);
  CHECK_THAT(r.describe(), Contains("memory limit"));
}

TEST_CASE("run_process stops a process tree with more than max_processes at once", "[subprocess]") {
  run_options o = with_timeout(20s);
  o.max_processes = 20;
  // 60 sleepers: over the limit within one check (50 ms), whatever the user (root too).
  const run_result r = run_process({"sh", "-c", "for i in $(seq 60); do sleep 30 & done; wait"}, o);
  CHECK(r.processes_exceeded);
  CHECK_FALSE(r.ok());
  CHECK(r.seconds < 5);
  CHECK_THAT(r.describe(), StartsWith("process limit"));
  o.max_processes = 80;  // under the limit: runs to the end
  CHECK(run_process({"sh", "-c", "for i in $(seq 10); do sleep 0.2 & done; wait"}, o).ok());
}

TEST_CASE("run_process with inherit_env = false passes only the allowlist and options.env",
          "[subprocess]") {
  setenv("GRADER_TEST_SECRET", "sekrit", 1);
  run_options o = with_timeout(10s);
  o.inherit_env = false;
  o.env = {"GRADER_TEST_GIVEN=yes"};
  const run_result r = run_process({"sh", "-c", "env"}, o);
  CHECK_THAT(r.output, Contains("GRADER_TEST_GIVEN=yes"));
  CHECK_THAT(r.output, Contains("PATH="));  // the toolchain is still found
  CHECK_THAT(r.output, !Contains("sekrit"));
  o.inherit_env = true;
  CHECK_THAT(run_process({"sh", "-c", "env"}, o).output, Contains("GRADER_TEST_SECRET=sekrit"));
  unsetenv("GRADER_TEST_SECRET");
}

TEST_CASE("run_process reports a program it cannot start", "[subprocess]") {
  const run_result missing = run_process({"/nonexistent/grader-test-program"}, with_timeout(10s));
  CHECK(missing.spawn_failed);
  CHECK_FALSE(missing.ok());
  CHECK_THAT(missing.output, Contains("No such file or directory"));
  CHECK_THAT(missing.describe(), StartsWith("could not start: "));
  CHECK_THAT(missing.describe(), Contains("/nonexistent/grader-test-program"));

  const run_result not_on_path =
      run_process({"grader-test-no-such-program-xyz"}, with_timeout(10s));
  CHECK(not_on_path.spawn_failed);
  CHECK_THAT(not_on_path.output, Contains("grader-test-no-such-program-xyz"));

  temp_dir dir;
  const fs::path not_exec = dir.path / "script.sh";
  std::ofstream(not_exec) << "#!/bin/sh\necho hi\n";
  const run_result denied = run_process({not_exec.string()}, with_timeout(10s));
  CHECK(denied.spawn_failed);
  CHECK_THAT(denied.output, Contains("Permission denied"));
}

TEST_CASE("run_process keeps output up to max_output and stops the child past it", "[subprocess]") {
  run_options o = with_timeout(20s);
  o.max_output = 1000;
  // Far more than a pipe holds: the child would block forever if nobody read it.
  const run_result r = run_process({"head", "-c", "1000000", "/dev/zero"}, o);
  CHECK(r.output_exceeded);
  CHECK(r.output == std::string(1000, '\0'));
  o.max_output = 5;
  CHECK(run_process({"echo", "0123456789"}, o).output == "01234");
  o.max_output = 11;  // exactly what it writes: within the limit
  const run_result exact = run_process({"echo", "0123456789"}, o);
  CHECK(exact.ok());
  CHECK(exact.output == "0123456789\n");
}

TEST_CASE("run_process runs the child in options.cwd with options.env and no stdin",
          "[subprocess]") {
  temp_dir dir;
  run_options o = with_timeout(10s);
  o.cwd = dir.path;
  CHECK(run_process({"pwd", "-P"}, o).output == fs::canonical(dir.path).string() + "\n");

  std::ofstream(dir.path / "here.txt") << "x";
  CHECK(run_process({"ls"}, o).output == "here.txt\n");

  o.env = {"GRADER_TEST_A=one", "GRADER_TEST_B=two words"};
  CHECK(run_process({"sh", "-c", "echo \"$GRADER_TEST_A/$GRADER_TEST_B\""}, o).output ==
        "one/two words\n");
  CHECK(std::getenv("GRADER_TEST_A") == nullptr);  // only the child's environment changed

  // stdin is /dev/null: a child that reads it ends at once.
  const run_result cat = run_process({"cat"}, with_timeout(5s));
  CHECK(cat.ok());
  CHECK(cat.output.empty());
  CHECK_FALSE(cat.timed_out);

  o.cwd = dir.path / "missing";
  const run_result bad_cwd = run_process({"pwd"}, o);
  CHECK(bad_cwd.spawn_failed);
}

// A child that exits at once but leaves a background process holding its output is
// reported as timed out (and waited on until the deadline): the read loop waits for
// the pipe to close rather than for the child to exit.
TEST_CASE("run_process: a child that exits leaving a background process is not timed out",
          "[subprocess]") {
  const run_result r = run_process({"sh", "-c", "sleep 3 & echo started"}, with_timeout(800ms));
  CHECK_FALSE(r.timed_out);
  CHECK(r.exit_code == 0);
  CHECK(r.output == "started\n");
  CHECK(r.seconds < 0.5);
}

TEST_CASE("on_path finds programs on PATH and executable paths", "[subprocess]") {
  CHECK(on_path("sh"));
  CHECK(on_path("/bin/sh"));
  CHECK_FALSE(on_path("grader-test-no-such-program-xyz"));
  CHECK_FALSE(on_path("/nonexistent/sh"));
  CHECK_FALSE(on_path("/etc/passwd"));  // exists, not executable

  temp_dir dir;
  const fs::path tool = dir.path / "grader-test-tool";
  std::ofstream(tool) << "#!/bin/sh\n";
  CHECK_FALSE(on_path(tool.string()));
  fs::permissions(tool, fs::perms::owner_exec, fs::perm_options::add);
  CHECK(on_path(tool.string()));
}

// The header promises "a path to an executable file"; access(X_OK) is also true for
// directories, and "" becomes "<dir>/" for every PATH entry.
TEST_CASE("on_path is false for directories and the empty name", "[subprocess]") {
  temp_dir dir;
  CHECK_FALSE(on_path(dir.path.string()));
  CHECK_FALSE(on_path("/tmp"));
  CHECK_FALSE(on_path(""));
}

TEST_CASE("run_process on a timeout kills the child's whole tree, other sessions included",
          "[subprocess]") {
  // ninja starts each compiler in a process group of its own; `setsid` stands in for it.
  const std::string marker = "77." + std::to_string(getpid() % 1000);
  grader::run_options opts;
  opts.timeout = std::chrono::milliseconds(400);
  const auto r = grader::run_process({"sh", "-c", "setsid sleep " + marker + " & sleep 30"}, opts);
  CHECK(r.timed_out);
  std::this_thread::sleep_for(std::chrono::milliseconds(100));
  const auto ps = grader::run_process({"ps", "-eo", "args"});
  CHECK_THAT(ps.output, !Catch::Contains("sleep " + marker));
}

TEST_CASE("run_process with records_fd reads fd 3 apart from the output, and caps it",
          "[subprocess]") {
  run_options o = with_timeout(20s);
  o.records_fd = true;
  const run_result r = run_process({"sh", "-c", "echo out; echo record >&3; echo err >&2"}, o);
  CHECK(r.ok());
  CHECK(r.output == "out\nerr\n");
  CHECK(r.records == "record\n");
  // More than 16 MiB of records is an output limit, however little it printed.
  const run_result flood = run_process({"sh", "-c", "head -c 20000000 /dev/zero >&3"}, o);
  CHECK(flood.output_exceeded);
  CHECK(flood.output.empty());
}
