// `grader dev gradescope <lesson> --out autograder.zip`: a Gradescope autograder bundle
// (Gradescope's "Autograder Specifications": setup.sh and run_autograder at the zip's
// root; the zip unpacks into /autograder/source). It holds the whole course (instructor
// side: the answer key and hidden tests are needed to mark; Gradescope never shows the
// bundle to students) under course/, and two scripts:
//   setup.sh         installs the course's Debian packages (.ci/install-deps), builds the
//                    grader once, and builds the lesson's marking tree by marking the
//                    solutions (the image keeps both)
//   run_autograder   marks /autograder/submission with `grader mark` in the sandbox
//                    (--require-sandbox restricted: Gradescope's containers have no user
//                    namespaces) into /autograder/results/results.json (the gradescope
//                    format); a submission that cannot be marked still gets a results.json
//                    that says why, and so does a grader that fails
// AUTOGRADER_ROOT moves /autograder (the tests run both scripts in a temporary root).
// Tests: ctest -R grader.gradescope (grader/tests/gradescope_test.sh).
#pragma once

#include <filesystem>
#include <ostream>

#include "grader/lesson/manifest.hpp"

namespace grader {

// The bundle's two scripts for `lesson`, as written into the zip.
std::string gradescope_setup_script(const std::string& lesson);
std::string gradescope_run_script(const std::string& lesson);

// Writes the bundle (replacing `out`, never through a link); says what went in on `log`.
void dev_gradescope(const course& c, const manifest& m, const std::filesystem::path& out,
                    std::ostream& log);

}  // namespace grader
