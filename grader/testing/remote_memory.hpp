// The judge's own measure of a compute process's memory (course/remote.hpp): read from
// /proc around one call, never taken from the process's reply, which the student's code
// could forge. Private to course_remote.
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <map>
#include <string>

namespace course::remote {

// One call's peak resident memory in the process tree below `root`: start() before the
// request goes out (the process idle, its peak reset to what it holds), peak_above() once
// the reply is in. The measure is void, and peak_above() says why, when the tree changed
// during the call (a helper process started or ended), when a process's peak could not be
// reset and stood above its use, or when /proc could not be read.
class memory_watch {
 public:
  void start(pid_t root);
  // Bytes above the start's level at the call's peak, summed over the tree; "" in `why`,
  // or why the measure is void.
  std::uint64_t peak_above(pid_t root, std::string& why) const;

 private:
  struct process {
    std::uint64_t base = 0;         // the level its peak counts from, in bytes
    std::uint64_t child_ticks = 0;  // CPU time of the children it has reaped
  };
  std::map<pid_t, process> tree_;
  std::string void_;  // set by start() when the measure cannot be trusted
};

}  // namespace course::remote
