// Ground-floor helpers for paths, files and lines, shared by every grader module.
#pragma once

#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

namespace grader {

// The whole file; throws cannot_grade naming the file when it cannot be read.
std::string read_text(const std::filesystem::path& p);

// Writes only when the content differs, so an unchanged file keeps its timestamp
// and the build has nothing to redo.
void write_if_changed(const std::filesystem::path& p, const std::string& content);

// Writes `content` to a new file beside `p`, then renames it over `p`: a symlink planted
// at `p` is replaced, never followed, and a reader never sees half a file. Throws
// cannot_grade naming `p` when it cannot.
void write_replacing(const std::filesystem::path& p, const std::string& content);

// How a path is shown to the user: relative to the current directory when inside it.
std::string display_path(const std::filesystem::path& p);

// Splits text into lines without their '\n' or '\r\n' (a final newline adds no empty line).
std::vector<std::string_view> split_lines(std::string_view text);

// `s` without leading and trailing ASCII spaces, tabs, '\r' and '\n'.
std::string_view trim_ascii(std::string_view s);

// The build directory this program was built in: the parent of the folder holding
// the running executable (build/bin/grader -> build). Grading trees live under it,
// so a grade never writes into the course's checkout.
std::filesystem::path executable_build_dir();

}  // namespace grader
