// File, path and line helpers (see files.hpp).
#include "grader/base/files.hpp"

#include <fmt/format.h>
#include <fcntl.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>

#include <fstream>
#include <sstream>

#include "grader/base/error.hpp"

namespace fs = std::filesystem;

namespace grader {

std::string read_text(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  if (!in) throw cannot_grade(fmt::format("cannot read {}", display_path(p)));
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

void write_if_changed(const fs::path& p, const std::string& content) {
  std::error_code ec;
  if (fs::exists(p, ec) && read_text(p) == content) return;
  std::ofstream out(p, std::ios::binary);
  out << content;
  if (!out) throw cannot_grade(fmt::format("cannot write {}", display_path(p)));
}

void write_replacing(const fs::path& p, const std::string& content) {
  const fs::path dir = p.has_parent_path() ? p.parent_path() : fs::path(".");
  const fs::path tmp = dir / fmt::format(".{}.{}.tmp", p.filename().string(), getpid());
  const int fd = open(tmp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
  bool ok = fd >= 0;
  for (size_t done = 0; ok && done < content.size();) {
    const ssize_t n = write(fd, content.data() + done, content.size() - done);
    ok = n > 0;
    done += ok ? static_cast<size_t>(n) : 0;
  }
  if (fd >= 0) ok = close(fd) == 0 && ok;
  std::error_code ec;
  if (ok && fs::is_directory(fs::symlink_status(p, ec))) ok = false;  // never over a folder
  if (ok) ok = std::rename(tmp.c_str(), p.c_str()) == 0;
  if (!ok) {
    fs::remove(tmp, ec);
    throw cannot_grade(fmt::format("cannot write {}", display_path(p)));
  }
}

std::string display_path(const fs::path& p) {
  std::error_code ec;
  const fs::path rel = fs::relative(p, fs::current_path(ec), ec);
  if (!ec && !rel.empty() && !rel.string().starts_with("..")) return rel.string();
  return p.string();
}

std::vector<std::string_view> split_lines(std::string_view text) {
  std::vector<std::string_view> lines;
  size_t start = 0;
  while (start < text.size()) {
    const size_t end = text.find('\n', start);
    std::string_view line =
        end == std::string_view::npos ? text.substr(start) : text.substr(start, end - start);
    if (line.ends_with('\r')) line.remove_suffix(1);  // CRLF files (Git for Windows)
    lines.push_back(line);
    if (end == std::string_view::npos) break;
    start = end + 1;
  }
  return lines;
}

fs::path executable_build_dir() {
  std::error_code ec;
  const fs::path exe = fs::canonical("/proc/self/exe", ec);
  if (ec) return fs::current_path(ec) / "build";
  return exe.parent_path().parent_path();
}

std::string_view trim_ascii(std::string_view s) {
  const size_t b = s.find_first_not_of(" \t\r\n");
  if (b == std::string_view::npos) return {};
  return s.substr(b, s.find_last_not_of(" \t\r\n") - b + 1);
}

std::string replaced(std::string text, const std::string& from, const std::string& to) {
  if (from.empty()) return text;
  for (size_t at = 0; (at = text.find(from, at)) != std::string::npos; at += to.size())
    text.replace(at, from.size(), to);
  return text;
}

scratch_folder::scratch_folder() {
  std::string tmpl = (std::filesystem::temp_directory_path() / "grader-XXXXXX").string();
  if (!mkdtemp(tmpl.data()))
    throw cannot_grade("cannot create a folder under " +
                       std::filesystem::temp_directory_path().string());
  path_ = tmpl;
}

scratch_folder::~scratch_folder() {
  std::error_code ec;
  std::filesystem::remove_all(path_, ec);
}

}  // namespace grader
