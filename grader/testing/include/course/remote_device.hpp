// Marking mode's process boundary (course/remote.hpp) for CUDA exercises on the CPU
// emulator. The student's host function takes device pointers; in the judge a stand-in
// downloads each array from the judge's emulator, the compute process runs the function
// on copies in its own emulator under the judge's settings (schedule, time limit), and
// the results come back over the originals. The launches the compute process made join
// the judge's records (cuda_emu::launches()), with its peak device memory, so the tests
// read them as if the kernels had run in the judge.
//
// What this protects: every comparison, reference and verdict stays in the judge. What
// it cannot: the counters and sanitizer reports are measured by the emulator inside the
// student's process, so a kernel that forges them can pass a counting item; its outputs
// are still checked by the judge. Not built for a GPU tree (COURSE_CUDA).
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <initializer_list>
#include <string>
#include <string_view>
#include <vector>

#include "course/remote.hpp"
#include "cuda_emu/emulator.hpp"

namespace course::remote {

// Judge side: one argument of the student's function, a device pointer of this
// process's emulator and how many floats it covers.
struct device_array {
  const float* data;
  std::size_t count;
};

// Runs `function` in the compute process on these integers and device arrays, as
// above; returns the function's integer result (0 for a void function). Throws as
// call() does, and compute_failed when the launch records come back malformed.
std::int64_t device_call(const char* function, std::initializer_list<std::int64_t> ints,
                         std::initializer_list<device_array> arrays);

// Compute side: the student's function called on device copies of the arrays (in the
// order the judge sent them; nullptr for an empty one). Returns its integer result.
using device_function = std::function<std::int64_t(const std::vector<std::int64_t>& ints,
                                                   const std::vector<float*>& d)>;
// A handler for serve() that does the copying, the emulator's settings and records.
handler on_device(device_function f);

// The reply's encoding, apart for its tests: decode_reply() reads untrusted bytes, and
// throws compute_failed on anything malformed (a length past the end, too many
// entries, an unknown report kind, bytes left over).
namespace detail {
struct device_reply {
  std::int64_t result = 0;
  std::uint64_t peak_above = 0;  // device bytes allocated above what was in use
  std::vector<cuda_emu::launch_record> launches;
};
std::string encode_reply(const device_reply& r);
device_reply decode_reply(std::string_view bytes);
}  // namespace detail

}  // namespace course::remote
