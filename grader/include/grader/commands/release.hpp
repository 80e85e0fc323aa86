// `grader dev release <lesson> --out DIR`: writes the course as students get it, for a
// separate student branch or repository (docs/grader.md, "The student release"):
//   kept:      the course's files (git ls-files in a checkout, else the tree, without
//              build/ and dot-folders but .ci/), the lesson's own folders only;
//   left out:  solutions/ (completed files, keys, mutants, instructor notes, hidden
//              tests), answer_key*.json anywhere, the grader's and the emulator's own
//              tests and benchmarks (they quote answers), docs/release/;
//   rewritten: docs/release/<path>.student.<ext> replaces <path>.<ext> (README.md);
//              <!-- instructor-only --> ... <!-- end instructor-only --> blocks are
//              dropped from every Markdown file; the manifest goes through the hint filter;
//   added:     RELEASE.json (lesson, source commit, the questions' answer forms), which
//              tells the grader it runs in a release.
// Tests: grader_tests "[release]", and ctest -R grader.release (the release built,
// configured and graded).
#pragma once

#include <filesystem>
#include <ostream>
#include <string>
#include <string_view>
#include <vector>

#include "grader/lesson/manifest.hpp"

namespace grader {

// The course's files, relative to its root: git's list (tracked, and untracked ones not
// ignored) in a checkout, else the tree; build/ and dot-folders but .ci/ skipped.
// `from_git` says which.
std::vector<std::string> course_files(const std::filesystem::path& root, bool* from_git);

// Why `path` (relative to the course root, with '/') stays out of `lesson`'s release, or ""
// when it goes in.
std::string left_out_of_release(std::string_view path, const std::string& lesson);

// A template's place in the release: "docs/release/README.student.md" -> "README.md";
// "" for any other path.
std::string release_template_target(std::string_view path);

// `markdown` without its instructor-only blocks (their marker lines included); `dropped`
// counts them. Throws input_error naming `file` and the line of a block left open.
std::string strip_instructor_blocks(std::string_view markdown, const std::string& file,
                                    int* dropped = nullptr);

// Writes the release; replaces an earlier release at `out` (keeping its .git). Throws
// cannot_grade, before writing anything, when `out` is inside the course or is a non-empty
// folder that is no earlier release, or when a kept file would link to or hold what the
// release leaves out. Prints a summary to `log`.
void dev_release(const course& c, const manifest& m, const std::filesystem::path& out,
                 std::ostream& log);

}  // namespace grader
