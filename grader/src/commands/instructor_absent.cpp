// What a student build (COURSE_INSTRUCTOR_COMMANDS=OFF, the default preset) links in place of
// the instructor's commands: each answers with one line naming the preset that builds them.
// A student has no solutions/, answer keys or hidden tests, so these commands could not run
// there anyway; leaving them out is about a fifth of the grader's build (docs/benchmarks.md).
#include <fmt/format.h>

#include "grader/base/error.hpp"
#include "grader/commands/batch.hpp"
#include "grader/commands/dev.hpp"
#include "grader/commands/gradescope_bundle.hpp"
#include "grader/commands/release.hpp"
#include "grader/commands/review_queue.hpp"

namespace fs = std::filesystem;

namespace grader {
namespace {

[[noreturn]] void instructor_only(const char* command) {
  throw cannot_grade(fmt::format(
      "`grader {}` is an instructor command, left out of this student build; build it with: {}",
      command, kInstructorBuild));
}

}  // namespace

bool instructor_commands_built() {
  return false;
}

dev_check_result dev_check(const course&, const manifest&, const dev_check_options&,
                           std::ostream&) {
  instructor_only("dev check");
}

void dev_release(const course&, const manifest&, const fs::path&, std::ostream&) {
  instructor_only("dev release");
}

void dev_gradescope(const course&, const manifest&, const fs::path&, std::ostream&) {
  instructor_only("dev gradescope");
}

batch_result run_batch(const course&, const manifest&, const batch_options&, std::ostream&) {
  instructor_only("batch");
}

int merge_batches(const manifest&, const std::vector<fs::path>&, const fs::path&, std::ostream&) {
  instructor_only("batch --merge");
}

int run_review(const course&, const review_options&, std::istream&, std::ostream&) {
  instructor_only("review");
}

}  // namespace grader
