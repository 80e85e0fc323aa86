// Confinement of processes that compile or run student code, at one of two levels:
//   full        bubblewrap (Debian's `bubblewrap`), where user namespaces work;
//   restricted  grader-confine (grader/app/confine.cpp), where they are blocked: rlimits,
//               no_new_privs, seccomp, Landlock, a uid of its own when root.
// One description, `confinement`, turns into the command prefix; the build stage
// (compiles) and the sandbox runner (tests) both use it, so they can never drift apart.
//   auto argv = confine_command(isolation::full, spec); argv.push_back("/path/to/program");
#pragma once

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace grader {

// How much a confined process is kept from: ordered, so a requirement is a minimum.
enum class isolation { none, restricted, full };
std::string_view to_string(isolation level);
std::optional<isolation> isolation_named(std::string_view name);  // "none", "restricted", "full"

struct confinement {
  std::vector<std::filesystem::path> read_only;  // shown read-only at the same path
  std::vector<std::filesystem::path> writable;   // shown read-write at the same path
  std::vector<std::string> env;  // NAME=value; nothing else of the grader's environment
  std::filesystem::path cwd;     // default /tmp (restricted: `tmp`)
  // restricted: the private temporary folder (HOME, TMPDIR), which the caller makes
  // empty and removes afterwards; it is handed to the sandbox's uid. full: a tmpfs.
  std::filesystem::path tmp;
  // rlimits (prlimit): processes, bytes per file written, address space (0: none), CPU
  // seconds (0: none), open files; core files are always off.
  unsigned processes = 256;
  std::uint64_t file_bytes = 64ull << 20;
  std::uint64_t address_space = 0;
  unsigned cpu_seconds = 0;
  unsigned open_files = 256;
  std::uint64_t tmp_bytes = 64ull << 20;  // the private /tmp (full only)
  // As root: stay uid 0 (restricted: without capabilities), for a compiler writing our
  // tree. Otherwise both levels run as a uid of their own, where it reaches the paths.
  bool keep_uid = false;
};

// bwrap's and prlimit's arguments up to (not including) the program: new user, pid,
// net, ipc, uts and cgroup namespaces; uid 65534 with no capabilities; read-only
// /usr; a private /tmp; /dev with null, zero and random only; dies with the grader.
std::vector<std::string> bwrap_command(const confinement& spec);

// grader-confine's arguments up to the program (see confine.cpp): Landlock shows the
// system's libraries, `read_only` and `writable`, and nothing else.
std::vector<std::string> restricted_command(const confinement& spec);

// What a sandbox must show for build tools found outside /usr (ninja and cmake in a Python
// virtual environment, a toolkit under /opt) to run in it. For each program (an absolute
// path): the folder above its bin/, the same for the file a link leads to, and for a
// script's interpreter (#!). Folders every level shows anyway (/usr, /bin, /lib) are left
// out; one that holds a path of `hidden` (the course and its solutions) narrows to the
// program's own folder, or is left out when that holds one too.
struct tool_view {
  std::vector<std::filesystem::path> folders;  // to show read-only
  std::string path;  // PATH inside: the programs' folders first, then /usr/bin:/bin
};
tool_view show_tools(const std::vector<std::string>& programs,
                     const std::vector<std::filesystem::path>& hidden);

// The prefix for `level`: bwrap_command, restricted_command, or nothing for none.
std::vector<std::string> confine_command(isolation level, const confinement& spec);

// Why `level` cannot confine a process here ("bubblewrap (bwrap) is not installed",
// "... user namespaces blocked?"), or "" when it can. Probed once per process.
std::string unavailable_reason(isolation level);

// What the level holds on this machine, for the report ("bubblewrap: ...", "seccomp,
// no_new_privs, rlimits, Landlock ABI 7, a uid of its own").
std::string isolation_detail(isolation level);

// The strongest level that works here.
isolation strongest_isolation();

}  // namespace grader
