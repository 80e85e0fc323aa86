// Errors the grader reports to the user as one line.
//   cannot_grade: nothing can be graded (missing file, no compiler): exit code 2.
//   input_error:  a file the user wrote is malformed; the message names file:line.
#pragma once

#include <filesystem>
#include <stdexcept>
#include <string>

namespace grader {

class cannot_grade : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

class input_error : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// "file: what", as an input_error.
[[noreturn]] inline void bad_input(const std::filesystem::path& file, const std::string& what) {
  throw input_error(file.string() + ": " + what);
}

}  // namespace grader
