// The confined runner (see run.hpp): each test process in a sandbox, bubblewrap's or
// grader-confine's, that shows it only what a test needs (grader/base/sandbox.hpp). In
// marking mode the judge runs outside and only its compute process, which holds the
// student's code, is confined.
#include <filesystem>

#include "grader/base/files.hpp"
#include "grader/base/sandbox.hpp"
#include "grader/pipeline/runner.hpp"

namespace grader {
namespace fs = std::filesystem;

std::string sandbox_runner::isolation() const {
  return level_ == grader::isolation::full ? "bubblewrap" : "restricted";
}

std::vector<std::string> sandbox_runner::confine(const fs::path& binary) const {
  confinement spec;
  spec.read_only = {fs::absolute(binary)};
  return confine_command(level_, spec);
}

tag_run sandbox_runner::run(const test_job& job, unsigned seed, const run_limits& limits) {
  test_job boxed = job;
  confinement spec;
  spec.env = sanitizer_environment();
  // grader-confine's private folder: ours to remove, whatever the test left in it.
  std::optional<scratch_folder> tmp;
  if (level_ == grader::isolation::restricted) spec.tmp = tmp.emplace().path();
  if (!job.compute.empty()) {  // the judge is trusted; its compute process sees no folder of ours
    spec.read_only = {fs::absolute(job.compute)};
    boxed.compute_wrapper = confine_command(level_, spec);
    spec.env = sanitizer_environment(true);
    boxed.compute_measured_wrapper = confine_command(level_, spec);
    return inner_.run(boxed, seed, limits);
  }
  spec.read_only = {fs::absolute(job.binary)};  // writable: its private /tmp alone
  boxed.wrapper = confine_command(level_, spec);
  boxed.wrapper.insert(boxed.wrapper.end(), job.wrapper.begin(), job.wrapper.end());
  boxed.binary = fs::absolute(job.binary);
  return inner_.run(boxed, seed, limits);
}

namespace {
std::unique_ptr<runner> make_sandbox_runner(isolation level) {
  if (level == isolation::none) return nullptr;  // --sandbox off is the process runner
  return std::make_unique<sandbox_runner>(level);
}
}  // namespace

// `make_runner("sandbox", level)` at restricted or full (runner.hpp).
const runner_registration sandbox_registration{"sandbox", make_sandbox_runner, 20};

}  // namespace grader
