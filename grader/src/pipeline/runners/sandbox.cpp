// The bubblewrap runner (see run.hpp): each test process in a sandbox that shows it only
// what a test needs (grader/base/sandbox.hpp). In marking mode the judge runs outside
// and only its compute process, which holds the student's code, is confined.
#include <filesystem>

#include "grader/base/sandbox.hpp"
#include "grader/pipeline/run.hpp"

namespace grader {
namespace fs = std::filesystem;

std::string sandbox_runner::unavailable_reason() {
  return bwrap_unavailable_reason();
}

std::vector<std::string> sandbox_runner::confine(const fs::path& binary) const {
  confinement spec;
  spec.read_only = {fs::absolute(binary)};
  return bwrap_command(spec);
}

tag_run sandbox_runner::run(const test_job& job, unsigned seed, const run_limits& limits) {
  test_job boxed = job;
  confinement spec;
  spec.env = sanitizer_environment();
  if (!job.compute.empty()) {  // the judge is trusted; its compute process sees no folder of ours
    spec.read_only = {fs::absolute(job.compute)};
    boxed.compute_wrapper = bwrap_command(spec);
    return inner_.run(boxed, seed, limits);
  }
  spec.read_only = {fs::absolute(job.binary)};  // writable: its private /tmp alone
  boxed.wrapper = bwrap_command(spec);
  boxed.wrapper.insert(boxed.wrapper.end(), job.wrapper.begin(), job.wrapper.end());
  boxed.binary = fs::absolute(job.binary);
  return inner_.run(boxed, seed, limits);
}

}  // namespace grader
