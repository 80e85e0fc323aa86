// Trusted comparison for marking mode: the student's functions run in a separate
// "compute" process that only computes, and the tests (inputs, references, every
// comparison, the records) run in a "judge" process that never loads student code.
// Overriding libc or libm, forging records or exiting early in student code can then
// change only the outputs it sends back, which the judge checks like any others.
//
// A lesson opts an exercise in with lessons/<lesson>/tests/remote_<id>.cpp, built twice:
//   COURSE_REMOTE_JUDGE:   defines the student's functions as calls: call("name", ints, arrays)
//   COURSE_REMOTE_COMPUTE: defines handlers(), the table serve() dispatches to
// The grader starts the judge with COURSE_COMPUTE set to the compute process's command
// line (inside the sandbox), fields separated by '\x1f'; the judge starts it on the
// first call and again after it dies. Each call ships every array both ways, so a write
// into an input shows up in the judge as it would in one process.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <initializer_list>
#include <map>
#include <stdexcept>
#include <string>
#include <vector>

#include "course/protocol.hpp"

namespace course::remote {

using ::course::protocol::compute_variable;  // the environment variable with its command

// An array argument of a call: where it is and how many floats it holds.
struct array_ref {
  const float* data;
  std::size_t count;
};

// Bytes that cross the boundary beside the arrays, for a layer above this one (the CUDA
// emulator's settings one way, its launch records back: course/remote_device.hpp).
// The judge must treat `reply` as untrusted, as it does the arrays.
struct exchange {
  std::string request;  // judge -> compute, at most 1 MiB
  std::string reply;    // compute -> judge, at most 64 MiB
};

// The compute process ended or answered out of protocol: the call has no outputs.
class compute_failed : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// Judge side: runs `function` in the compute process on these integers and arrays and
// copies the arrays it sends back over the originals. A blank the student left
// rethrows as course::unfilled_blank, another exception as std::runtime_error with its
// message; a missing or malformed answer throws compute_failed. The call's peak heap
// counts in this process's course::alloc_scope (both sides link course_alloc_count).
void call(const char* function, std::initializer_list<std::int64_t> ints,
          std::initializer_list<array_ref> arrays);
// The same, with `x.request` sent along and `x.reply` set from the answer.
void call(const char* function, const std::vector<std::int64_t>& ints,
          const std::vector<array_ref>& arrays, exchange& x);

// Compute side: one function of the student's, called on the request's integers and
// arrays (sized as the judge sent them), with the exchange's request to read and its
// reply to fill.
using handler = std::function<void(const std::vector<std::int64_t>& ints,
                                   std::vector<std::vector<float>>& arrays, exchange& x)>;
// Defined by the lesson's remote_<id>.cpp in its compute role.
std::map<std::string, handler> handlers();
// The compute process's loop: requests on fd 3, replies on fd 4 (the judge starts it so,
// with stdin /dev/null and stdout on stderr: the student's own printing, even before
// main(), never mixes with the replies). Returns at EOF.
int serve(const std::map<std::string, handler>& table);

}  // namespace course::remote
