// A process tree seen from outside, through /proc: what a supervisor counts, measures and
// kills without asking any process of the tree (a verdict never rests on a child's reply).
// Used by `grader dev supervise` (commands/supervise.hpp).
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <string>
#include <vector>

namespace grader {

// One process as /proc/<pid>/stat shows it.
struct proc_entry {
  pid_t pid = 0;
  pid_t parent = 0;
  // Start time in clock ticks since boot: with the pid it names one process, so a pid
  // reused by a newer process is not taken for the old one.
  std::uint64_t start = 0;
  char state = '?';  // R, S, D, T, Z (zombie), X (dead), ...
  bool running() const { return state != 'Z' && state != 'X'; }
};

// Every process on the machine now (those that end while it is read are left out).
std::vector<proc_entry> process_table();

// The processes below `root` in `table` (not `root` itself), found through parent links,
// parents before their children.
std::vector<proc_entry> tree_below(pid_t root, const std::vector<proc_entry>& table);

// Resident bytes of one process (statm); 0 when it is gone.
std::uint64_t resident_bytes(pid_t pid);
// Proportional bytes of one process (smaps_rollup's Pss: a page shared by k processes
// counts 1/k), so a fork bomb's shared libraries count once; 0 when it is gone.
std::uint64_t proportional_bytes(pid_t pid);

// The memory `pids` hold together: their Pss summed; with more than `most` of them, over the
// `most` largest by resident size (reading smaps_rollup walks page tables: slow).
std::uint64_t tree_memory(const std::vector<pid_t>& pids, std::size_t most = 256);

// The machine's MemAvailable in bytes (UINT64_MAX when /proc/meminfo cannot be read).
std::uint64_t memory_available();

// A process's command line with its NULs and runs of blanks as one space, at most `limit`
// characters; "" when it is gone.
std::string command_line(pid_t pid, std::size_t limit = 80);

// Stops every process (SIGSTOP), then kills them (SIGKILL): frozen first, a fork bomb
// cannot start new processes faster than they go.
void stop_and_kill(const std::vector<pid_t>& pids);

}  // namespace grader
