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
#include "grader/lesson/source_checks.hpp"

namespace grader {

struct source_file {
  const exercise* ex = nullptr;
  std::filesystem::path path;  // absolute; only ever read
  std::vector<blank> blanks;   // code files: BLANK(name) still in the code
  // What inspect() read in the code, before anything is built; score turns it into verdicts.
  std::vector<outside_change> outside_blanks = {};  // edits outside the blanks, vs the given file
  std::vector<source_finding> uninstrumented = {};  // CUDA: accesses the emulator cannot count
  // Every blank of the file the student was given, each with its line in the student's file
  // (0 where the filled line cannot be found); `blanks` when no given file is known.
  std::vector<blank> given_blanks = {};
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

// The source findings of each code file: its edits outside the blanks, against the
// exercise file the student was given (exercises/<lesson>/; none when that is the file
// itself or absent), and for CUDA the accesses the emulator's counters would not see
// (lesson/source_checks.hpp). Reads the files; decides nothing.
void inspect(const course& c, const manifest& m, resolved& what);

// The files of `dir` named like the exercise files of `unit` (every unit when
// empty). Files missing from `dir` come from `fallback` when given (a mutant holds
// only what it changes); otherwise a missing file throws cannot_grade.
std::map<std::string, std::filesystem::path> submission_files(
    const manifest& m, const std::filesystem::path& dir, const std::filesystem::path& fallback = {},
    const std::string& unit = {});

// Marking mode's intake: the files of `unit` (every unit when empty) that the manifest
// names, copied from `dir` into `into` (a folder of the grader's) and only the copies
// graded, so nothing the student controls is read twice. A link, a special file, a file
// over 1 MiB or a missing one throws cannot_grade with its name; every other entry of
// `dir` is listed in `ignored` and never read.
struct staged_submission {
  std::map<std::string, std::filesystem::path> files;  // exercise file name -> the copy
  std::vector<std::string> ignored;                    // printable names, sorted
};
staged_submission stage_submission(const manifest& m, const std::filesystem::path& dir,
                                   const std::filesystem::path& into, const std::string& unit = {});

// A name from a submission, safe to print on one line: controls and bytes that are not
// UTF-8 shown as \xNN.
std::string printable_name(const std::string& name);

}  // namespace grader
