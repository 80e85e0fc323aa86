// grader dev supervise: runs one command in a session of its own, under caps that bind its
// whole process tree (wall time, memory, process count, the machine's free memory), and
// tells what happened in one JSON line. Every figure is measured from outside, through
// /proc (base/process_tree.hpp), never taken from the command. The supervisor is the
// tree's subreaper, so a process that double-forks away from its parent stays counted, and
// any process still running once the command has ended (after `linger_s`) is named, then
// killed. The adversarial suite grades each hostile submission under it.
//   grader dev supervise --wall 130 --max-tree-mib 8192 --max-processes 3000
//     --min-available-mib 2048 --max-file-mib 2048 --json out.json -- grader mark ...
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <string>
#include <vector>

namespace grader {

struct supervise_options {
  double wall_s = 600;                  // the tree is killed past this
  std::uint64_t max_tree_mib = 0;       // Pss of the whole tree; 0: no cap
  unsigned max_processes = 0;           // live processes in the tree at once; 0: no cap
  std::uint64_t min_available_mib = 0;  // the machine's MemAvailable; 0: no floor
  // RLIMIT_FSIZE of the command and all it starts; 0: as inherited. It never dumps core
  // (RLIMIT_CORE 0) either way.
  std::uint64_t max_file_mib = 0;
  double linger_s = 2;            // after the command exits, how long its processes may take
  std::vector<std::string> argv;  // the command; argv[0] is looked up on PATH
};

struct supervise_result {
  std::string spawn_error;  // the command could not be started: why
  int exit_code = -1;       // valid when it exited normally
  int term_signal = 0;      // the signal that ended it, or 0
  double seconds = 0;       // from its start to its end (or to the kill)
  std::uint64_t peak_tree_mib = 0;
  unsigned peak_processes = 0;
  // Which cap stopped it: "", "wall", "memory", "processes", "low-memory", or
  // "interrupted" (the supervisor got SIGTERM, SIGINT or SIGHUP); `stopped_at` is the
  // figure that passed the cap (seconds, MiB, processes, MiB available).
  std::string stopped_by;
  double stopped_at = 0;
  struct leftover {
    pid_t pid = 0;
    std::string command;
  };
  std::vector<leftover> left;  // still running `linger_s` after the command ended
};

// Runs `o.argv` with this process's stdin, stdout, stderr, environment and working folder.
supervise_result supervise(const supervise_options& o);

// The result as one line of JSON: {"exit", "signal", "seconds", "peak_tree_mib",
// "peak_processes", "stopped_by", "stopped_at", "left": [{"pid", "command"}],
// "spawn_error"}; "exit" is null unless the command exited by itself.
std::string supervise_json(const supervise_result& r);

// The command: supervises, writes the JSON line to `json_path` (stdout when empty); 0 when
// the command ran (whatever its own status), 2 when it could not start.
int run_supervise(const supervise_options& o, const std::string& json_path);

}  // namespace grader
