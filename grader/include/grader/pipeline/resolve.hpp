// Stage 1, resolve: the manifest and a submission give the units to grade and the
// files they need, each with where it comes from and, for code, the blanks still
// empty in it. Nothing is built or run yet; a missing file stops here with a
// one-line reason.
#pragma once

#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include "grader/lesson/manifest.hpp"
#include "grader/lesson/regions.hpp"

namespace grader {

struct source_file {
  const exercise* ex = nullptr;
  std::filesystem::path path;  // absolute; only ever read
  std::vector<blank> blanks;   // code files: BLANK(name) still in the code
};

struct resolved {
  std::vector<const unit*> units;  // the units graded, in manifest order
  std::vector<source_file> files;  // the exercises they use, in manifest order

  const source_file* find(const std::string& exercise_id) const;
  bool needs_build() const;  // some graded exercise is code
  // Exercise file name -> path, the form the build stage takes.
  std::map<std::string, std::filesystem::path> paths() const;
};

// The units named (every unit when `unit` is empty) and the files of `files`
// (exercise file name -> path) they need. Throws cannot_grade on an unknown unit
// or a missing file.
resolved resolve(const manifest& m, const std::map<std::string, std::filesystem::path>& files,
                 const std::string& unit);

// The files of `dir` named like the exercise files of `unit` (every unit when
// empty). Files missing from `dir` come from `fallback` when given (a mutant holds
// only what it changes); otherwise a missing file throws cannot_grade.
std::map<std::string, std::filesystem::path> submission_files(
    const manifest& m, const std::filesystem::path& dir, const std::filesystem::path& fallback = {},
    const std::string& unit = {});

}  // namespace grader
