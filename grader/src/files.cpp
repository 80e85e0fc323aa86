// File helpers (see files.hpp).
#include "grader/files.hpp"

#include <fmt/format.h>

#include <fstream>
#include <sstream>

#include "grader/build.hpp"
#include "grader/error.hpp"

namespace grader {

std::string read_text(const std::filesystem::path& p) {
  std::ifstream in(p, std::ios::binary);
  if (!in) throw cannot_grade(fmt::format("cannot read {}", display_path(p)));
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

void write_if_changed(const std::filesystem::path& p, const std::string& content) {
  std::error_code ec;
  if (std::filesystem::exists(p, ec) && read_text(p) == content) return;
  std::ofstream out(p, std::ios::binary);
  out << content;
  if (!out) throw cannot_grade(fmt::format("cannot write {}", display_path(p)));
}

}  // namespace grader
