// Confinement of processes that compile or run student code: bubblewrap (Debian's
// `bubblewrap`) where user namespaces work. One description, `confinement`, turns into
// the command prefix; the build stage (compiles) and the sandbox runner (tests) both
// use it, so the two can never drift apart.
//   auto argv = bwrap_command(spec); argv.push_back("/path/to/program");
#pragma once

#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

namespace grader {

struct confinement {
  std::vector<std::filesystem::path> read_only;  // shown read-only at the same path
  std::vector<std::filesystem::path> writable;   // shown read-write at the same path
  // Covered by an empty folder (after the binds above): what must stay out of view
  // inside a folder that is shown.
  std::vector<std::filesystem::path> hidden;
  std::vector<std::string> env;  // NAME=value; nothing else of the grader's environment
  std::filesystem::path cwd;     // default /tmp
  // rlimits (prlimit): processes, bytes per file written, address space (0: none), CPU
  // seconds (0: none), open files; core files are always off.
  unsigned processes = 256;
  std::uint64_t file_bytes = 64ull << 20;
  std::uint64_t address_space = 0;
  unsigned cpu_seconds = 0;
  unsigned open_files = 256;
  std::uint64_t tmp_bytes = 64ull << 20;  // the private /tmp
};

// bwrap's and prlimit's arguments up to (not including) the program: new user, pid,
// net, ipc, uts and cgroup namespaces; uid 65534 with no capabilities; read-only
// /usr; a private /tmp; /dev with null, zero and random only; dies with the grader.
std::vector<std::string> bwrap_command(const confinement& spec);

// Why bubblewrap cannot confine a process here ("bubblewrap (bwrap) is not installed",
// "... user namespaces blocked?"), or "" when it can. Probed once per process.
std::string bwrap_unavailable_reason();

}  // namespace grader
