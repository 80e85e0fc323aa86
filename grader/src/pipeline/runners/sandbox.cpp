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

namespace {
// A test binary and the shared libraries of the tree it loads (Catch2's, in bin/lib beside
// it: grader/testing/CMakeLists.txt), read-only; nothing else of the tree.
std::vector<fs::path> test_binary_view(const fs::path& binary) {
  std::vector<fs::path> view = {fs::absolute(binary)};
  std::error_code ec;
  if (const fs::path lib = view.front().parent_path() / "lib"; fs::is_directory(lib, ec))
    view.push_back(lib);
  return view;
}
}  // namespace

std::vector<std::string> sandbox_runner::confine(const fs::path& binary) const {
  confinement spec;
  spec.read_only = test_binary_view(binary);
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
  spec.read_only = test_binary_view(job.binary);  // writable: its private /tmp alone
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
