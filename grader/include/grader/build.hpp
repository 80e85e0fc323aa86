// The grader's own build tree for one lesson (build/grade/<lesson>): it configures
// the course with COURSE_GRADING_LESSON, points one-line wrapper files at the
// submission's C++ files and builds <lesson>_tests. The student's files are only
// ever read. On a re-grade only the student's translation units recompile.
#pragma once

#include <chrono>
#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include "grader/manifest.hpp"

namespace grader {

// One code exercise's part of a build: its own test binary, <lesson>_<id>_tests.
struct exercise_build {
  bool ok = false;
  std::string diagnostics;  // compiler errors in the student's file, gcc file:line:col form
  std::filesystem::path tests_binary;
};

struct build_outcome {
  std::map<std::string, exercise_build> exercises;  // by exercise id
  std::map<std::string, bool> extras;               // extra targets asked for: built?
  std::string output;                               // the build's own output
  double seconds = 0;
};

// Holds an exclusive lock on the tree while it lives, so two graders never build
// the same tree at once.
class grading_tree {
 public:
  // cmake_args: extra -D options for the configure (e.g. -DCOURSE_CUDA=ON).
  grading_tree(const course& c, const manifest& m, std::filesystem::path dir,
               std::vector<std::string> cmake_args = {});
  ~grading_tree();
  grading_tree(const grading_tree&) = delete;
  grading_tree& operator=(const grading_tree&) = delete;

  // files: exercise file name -> the file to compile (the student's own path).
  // Builds every code exercise's test binary, keeping going past a failing one, so
  // a compile error in one exercise leaves the others gradable.
  // Throws cannot_grade when cmake or the compiler is missing or configuring fails.
  build_outcome build(const std::map<std::string, std::filesystem::path>& files,
                      std::chrono::seconds timeout,
                      const std::vector<std::string>& extra_targets = {});

 private:
  const course& course_;
  const manifest& manifest_;
  std::filesystem::path dir_;
  std::vector<std::string> cmake_args_;
  int lock_fd_ = -1;
};

// Keeps the compiler's lines about `student_files`, with their paths shown
// relative to the current directory; falls back to any error lines (a linker
// error, say) when none mention them.
std::string student_diagnostics(const std::string& compiler_output,
                                const std::map<std::string, std::filesystem::path>& student_files);

// How a path is shown to the user: relative to the current directory when inside it.
std::string display_path(const std::filesystem::path& p);

}  // namespace grader
