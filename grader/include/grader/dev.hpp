// Instructor commands that keep a lesson honest:
//   dev sync:  regenerate exercises/<lesson>/ from solutions/<lesson>/ (or, with
//              check, fail when they have drifted apart);
//   dev check: the untouched exercises earn no code points and FAIL, the solutions
//              earn full marks with no veto, and every mutant in
//              solutions/<lesson>/mutants/ gets exactly the verdict it declares.
#pragma once

#include <ostream>
#include <string>

#include "grader/manifest.hpp"

namespace grader {

// Returns the number of files that differ (check) or were rewritten.
int dev_sync(const course& c, const manifest& m, bool check_only, std::ostream& out);

struct dev_check_result {
  int passed = 0, failed = 0;
};
dev_check_result dev_check(const course& c, const manifest& m, unsigned seed, std::ostream& out);

}  // namespace grader
