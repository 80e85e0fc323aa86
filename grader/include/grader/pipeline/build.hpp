// Stage 2, build: the grader's own build tree for one lesson (by default
// <grader's build dir>/grade/<lesson>). It configures the course with
// COURSE_GRADING_LESSON, copies the submission's code files into the tree and builds
// each exercise's test binary, <lesson>_<id>_tests: all in one
// build-tool run, and when that fails, each target in a run of its own, whose exit
// status alone says whether that exercise built. A compile error marks only its own
// exercise. The student's files are only ever read; on a re-grade only their
// translation units recompile.
#pragma once

#include <chrono>
#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include "grader/base/sandbox.hpp"
#include "grader/lesson/manifest.hpp"

namespace grader {

struct exercise_build {
  std::string exercise, file;  // the exercise's id and file name
  bool ok = false;
  bool timed_out = false;   // the build ran out of time (it may have been fine)
  std::string diagnostics;  // why not: compiler errors in its file, gcc file:line:col form
  std::filesystem::path tests_binary;
  // Marking mode, for exercises with tests/remote_<id>.cpp: tests_binary is then the
  // judge (no student code) and this is the only binary with the student's code.
  std::filesystem::path compute_binary;
};

// How a grading tree builds: marking mode's extra binaries, and how the compiler is
// confined (grader/base/sandbox.hpp: the course's lessons/, grader/ and cmake/
// read-only, the tree writable, nothing else of the host; no solutions/, answer keys
// or hidden tests).
struct tree_options {
  std::vector<std::string> cmake_args;  // extra -D options (e.g. -DCOURSE_CUDA=ON)
  bool marking = false;
  isolation confinement = isolation::none;
};

// Whether marking mode splits exercise `e`'s tests into a judge and a compute process.
bool has_remote_tests(const course& c, const manifest& m, const exercise& e);

struct build_result {
  std::map<std::string, exercise_build> exercises;  // by exercise id
  std::map<std::string, bool> extras;               // extra targets asked for: built?
  double seconds = 0;
  // Whether the C++ exercises' code runs under ASan and UBSan in this tree: "on", or
  // "off: why" (the tree's configure checks that sanitized programs run here).
  std::string sanitizers;

  bool built(const std::string& exercise_id) const;
};

// Holds an exclusive lock on the tree while it lives, so two graders never build
// the same tree at once.
class grading_tree {
 public:
  // cmake_args: extra -D options for the configure (e.g. -DCOURSE_CUDA=ON).
  grading_tree(const course& c, const manifest& m, std::filesystem::path dir,
               tree_options options = {});
  ~grading_tree();
  grading_tree(const grading_tree&) = delete;
  grading_tree& operator=(const grading_tree&) = delete;

  const std::filesystem::path& dir() const { return dir_; }

  // files: exercise file name -> the student's file, copied into the tree before it is
  // compiled (so a confined compiler needs no view of the submission's folder).
  // Builds the test binary of every code exercise in `files`. Throws cannot_grade when cmake or the
  // compiler is missing or the configure fails. `extra_targets` build the student's code
  // (confined, like the tests); `trusted_targets` only the course's own (the solution's
  // timing program, which reads solutions/ and so cannot be built confined).
  build_result build(const std::map<std::string, std::filesystem::path>& files,
                     std::chrono::seconds timeout,
                     const std::vector<std::string>& extra_targets = {},
                     const std::vector<std::string>& trusted_targets = {});

 private:
  const course& course_;
  const manifest& manifest_;
  std::filesystem::path dir_;
  tree_options options_;
  int lock_fd_ = -1;
};

// Keeps the compiler's lines about `student_files`, with their paths shown
// relative to the current directory; falls back to any error lines (a linker
// error, say) when none mention them.
std::string student_diagnostics(const std::string& compiler_output,
                                const std::map<std::string, std::filesystem::path>& student_files);

}  // namespace grader
