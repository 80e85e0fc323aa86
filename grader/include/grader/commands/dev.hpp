// Instructor commands that keep a lesson honest:
//   dev sync:     regenerate exercises/<lesson>/ from solutions/<lesson>/ (or, with
//                 check, fail when they have drifted apart);
//   dev check:    small named checks, each runnable alone (--only NAME, --list):
//                 the untouched exercises fail and name their blanks, the solutions
//                 earn full marks with no veto, a compile error in one exercise
//                 changes no other unit, and every mutant in
//                 solutions/<lesson>/mutants/, graded on the whole lesson, gets
//                 exactly the verdict it declares (docs/mutant.schema.json);
//   dev manifest: print what the manifest says, for CMake and scripts.
#pragma once

#include <ostream>
#include <string>
#include <vector>

#include "grader/lesson/manifest.hpp"

namespace grader {

// Returns the number of files that differ (check) or were rewritten.
int dev_sync(const course& c, const manifest& m, bool check_only, std::ostream& out);

struct dev_check_options {
  unsigned seed = 0;
  // Run only these checks: exact names, or a prefix ending in ':' ("mutant:").
  std::vector<std::string> only;
  bool list = false;  // print the checks' names instead of running them
};

struct dev_check_result {
  int passed = 0, failed = 0;
  std::vector<std::string> unmatched;  // --only names that matched no check
};
dev_check_result dev_check(const course& c, const manifest& m, const dev_check_options& o,
                           std::ostream& out);

// Whether this grader was built with the instructor's commands (dev check, dev release,
// dev gradescope, batch, review): false in the student build (instructor_absent.cpp).
bool instructor_commands_built();
// What builds them, as the student build's messages and help name it.
inline constexpr const char* kInstructorBuild = "cmake --workflow --preset instructor";

// One line per code exercise: "<id> <kind> <file>" (what CMake builds), or with
// `all`, every exercise.
void dev_manifest_files(const manifest& m, bool all, std::ostream& out);

}  // namespace grader
