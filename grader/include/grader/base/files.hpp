// Ground-floor helpers for paths, files and lines, shared by every grader module.
#pragma once

#include <concepts>
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

// A new private folder (mode 0700) under the system's temporary folder, removed with
// everything in it when the object goes. Throws cannot_grade when it cannot be made.
class scratch_folder {
 public:
  scratch_folder();
  ~scratch_folder();
  scratch_folder(const scratch_folder&) = delete;
  scratch_folder& operator=(const scratch_folder&) = delete;
  const std::filesystem::path& path() const { return path_; }

 private:
  std::filesystem::path path_;
};

// How a path is shown to the user: relative to the current directory when inside it.
std::string display_path(const std::filesystem::path& p);

// Splits text into lines without their '\n' or '\r\n' (a final newline adds no empty line).
std::vector<std::string_view> split_lines(std::string_view text);
// The lines would point into a string about to die: a range-for over
// split_lines(read_text(f)) read freed memory (the --gpu SIGSEGV). Name the string first.
// (Exactly an rvalue std::string: string literals still split.)
template <class T>
std::vector<std::string_view> split_lines(T&& text) requires std::same_as<T, std::string>
= delete;

// `text` with every `from` replaced by `to`.
std::string replaced(std::string text, const std::string& from, const std::string& to);

// `s` without leading and trailing ASCII spaces, tabs, '\r' and '\n'.
std::string_view trim_ascii(std::string_view s);

// The build directory this program was built in: the parent of the folder holding
// the running executable (build/bin/grader -> build). Grading trees live under it,
// so a grade never writes into the course's checkout.
std::filesystem::path executable_build_dir();

}  // namespace grader
