// Runs a child process with a time limit, capturing its output. Used for builds
// and for test binaries that run student code: a crash or a hang in the child
// never takes the grader down.
#pragma once

#include <chrono>
#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

namespace grader {

struct run_result {
  int exit_code = -1;   // valid when the child exited normally
  int term_signal = 0;  // the signal that ended it, or 0
  bool timed_out = false;
  bool spawn_failed = false;        // the program could not be started (see output)
  bool output_exceeded = false;     // it wrote more than max_output: stopped there
  bool memory_exceeded = false;     // its processes held more than max_memory: stopped
  bool processes_exceeded = false;  // it had more than max_processes at once: stopped
  std::uint64_t memory_cap = 0;     // the max_memory it ran under (told by describe())
  // The most resident bytes its tree held when sampled (every 50 ms, while a memory or
  // process limit watches it; 0 otherwise): what a limit is set from (docs/measurements).
  std::uint64_t peak_memory = 0;
  std::string output;   // stdout and stderr, interleaved, capped at max_output
  std::string records;  // what it wrote to fd 3 (options.records_fd), read live
  double seconds = 0;

  bool ok() const {
    return !spawn_failed && !timed_out && !output_exceeded && !memory_exceeded &&
           !processes_exceeded && term_signal == 0 && exit_code == 0;
  }
  // "exit code 2", "killed by SIGSEGV", "timed out after 10.0 s", "output limit: ..."
  std::string describe() const;
};

struct run_options {
  std::filesystem::path cwd;  // empty: inherit
  std::chrono::milliseconds timeout{std::chrono::minutes(10)};
  size_t max_output = 8u << 20;  // more than this stops the process tree (output limit)
  // Resident memory of the whole process tree, checked every 50 ms; 0: no limit.
  // (Not RLIMIT_AS: AddressSanitizer and the emulator reserve far more than they use.)
  std::uint64_t max_memory = 0;
  // Processes in the tree at once, checked with the memory (RLIMIT_NPROC does not bind a
  // grader running as root); 0: no limit.
  unsigned max_processes = 0;
  std::vector<std::string> env;  // extra NAME=value entries
  // false: of the grader's environment the child gets only an allowlist (PATH, locale,
  // TMPDIR, the toolchain's CUDA_*/NVIDIA_*/LD_LIBRARY_PATH), never a token or a key.
  bool inherit_env = true;
  // The child gets a pipe on fd 3 (records), read while it runs into run_result::records:
  // nothing it or a helper does later can rewrite what was read. More than 16 MiB is an
  // output limit.
  bool records_fd = false;
};

// argv[0] is looked up on PATH. At a limit (time, output, memory) the child's whole
// process tree is killed.
run_result run_process(const std::vector<std::string>& argv, const run_options& options = {});

// True when `program` is on PATH (or is a path to an executable file).
bool on_path(const std::string& program);
// Where PATH finds `program`, as an absolute path (a path given is kept); "" if nowhere.
std::string find_program(const std::string& program);

}  // namespace grader
