// The resolve stage (see resolve.hpp).
#include "grader/pipeline/resolve.hpp"

#include <fmt/format.h>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <set>

#include "grader/base/error.hpp"
#include "grader/base/files.hpp"

namespace fs = std::filesystem;

namespace grader {
namespace {

std::set<std::string> exercises_of(const manifest& m, const std::string& unit_id) {
  std::set<std::string> used;
  for (const unit& u : m.units)
    if (unit_id.empty() || u.id == unit_id)
      for (const item& it : u.items) used.insert(it.exercise);
  return used;
}

void require_unit(const manifest& m, const std::string& unit_id) {
  if (unit_id.empty()) return;
  for (const unit& u : m.units)
    if (u.id == unit_id) return;
  std::string known;
  for (const unit& u : m.units) known += (known.empty() ? "" : ", ") + u.id;
  throw cannot_grade(
      fmt::format("lesson {} has no unit '{}' (its units: {})", m.lesson, unit_id, known));
}

}  // namespace

const source_file* resolved::find(const std::string& exercise_id) const {
  for (const source_file& f : files)
    if (f.ex->id == exercise_id) return &f;
  return nullptr;
}

bool resolved::needs_build() const {
  for (const source_file& f : files)
    if (f.ex->is_code()) return true;
  return false;
}

std::map<std::string, fs::path> resolved::paths() const {
  std::map<std::string, fs::path> out;
  for (const source_file& f : files) out[f.ex->file] = f.path;
  return out;
}

resolved resolve(const manifest& m, const std::map<std::string, fs::path>& files,
                 const std::string& unit_id) {
  require_unit(m, unit_id);
  resolved r;
  for (const unit& u : m.units)
    if (unit_id.empty() || u.id == unit_id) r.units.push_back(&u);
  const auto used = exercises_of(m, unit_id);
  for (const exercise& e : m.exercises) {
    if (!used.count(e.id)) continue;
    const auto f = files.find(e.file);
    if (f == files.end())
      throw cannot_grade(fmt::format("no file given for {} ({})", e.file, e.id));
    source_file sf{&e, fs::absolute(f->second).lexically_normal(), {}};
    if (e.is_code()) sf.blanks = find_blanks(read_text(sf.path));
    r.files.push_back(std::move(sf));
  }
  return r;
}

std::map<std::string, fs::path> submission_files(const manifest& m, const fs::path& dir,
                                                 const fs::path& fallback,
                                                 const std::string& unit_id) {
  require_unit(m, unit_id);
  if (!fs::is_directory(dir))
    throw cannot_grade(fmt::format("no such folder: {}", display_path(dir)));
  const auto used = exercises_of(m, unit_id);
  std::map<std::string, fs::path> files;
  for (const exercise& e : m.exercises) {
    if (!used.count(e.id)) continue;
    fs::path p = dir / e.file;
    if (!fs::exists(p) && !fallback.empty()) p = fallback / e.file;
    if (!fs::is_regular_file(p)) {
      std::string expected;
      for (const exercise& x : m.exercises)
        if (used.count(x.id)) expected += (expected.empty() ? "" : ", ") + x.file;
      throw cannot_grade(fmt::format("missing file {} (a {} submission{} holds: {})",
                                     display_path(dir / e.file), m.lesson,
                                     unit_id.empty() ? "" : " for " + unit_id, expected));
    }
    files[e.file] = fs::absolute(p).lexically_normal();
  }
  return files;
}

std::string printable_name(const std::string& name) {
  std::string out;
  const std::string_view s(name);
  for (size_t i = 0; i < s.size();) {
    const auto c = static_cast<unsigned char>(s[i]);
    size_t len = c < 0x80 ? 1 : (c >> 5) == 6 ? 2 : (c >> 4) == 14 ? 3 : (c >> 3) == 30 ? 4 : 0;
    bool valid = len > 0 && i + len <= s.size() && c >= 0x20 && c != 0x7f;
    for (size_t k = 1; valid && k < len; ++k)
      valid = (static_cast<unsigned char>(s[i + k]) & 0xc0) == 0x80;
    if (valid) {
      out.append(s.substr(i, len));
      i += len;
    } else {
      out += fmt::format("\\x{:02x}", c);
      ++i;
    }
  }
  return out;
}

staged_submission stage_submission(const manifest& m, const fs::path& dir, const fs::path& into,
                                   const std::string& unit_id) {
  constexpr off_t kMaxBytes = 1 << 20;
  require_unit(m, unit_id);
  struct stat dst {};
  if (lstat(dir.c_str(), &dst) != 0 || !S_ISDIR(dst.st_mode))
    throw cannot_grade(fmt::format("no such folder: {}", display_path(dir)));
  const auto used = exercises_of(m, unit_id);
  staged_submission out;
  std::set<std::string> named;
  for (const exercise& e : m.exercises) {
    named.insert(e.file);
    if (!used.count(e.id)) continue;
    const fs::path p = dir / e.file;
    const std::string shown = display_path(p);
    // O_NOFOLLOW and O_NONBLOCK: a link or a FIFO is refused, never followed or waited on.
    const int fd = open(p.c_str(), O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
    struct stat st {};
    if (fd < 0) {
      const int err = errno;
      struct stat lst {};
      if (lstat(p.c_str(), &lst) == 0 && S_ISLNK(lst.st_mode))
        throw cannot_grade(fmt::format("{} is a symbolic link: submit the file itself", shown));
      throw cannot_grade(err == ENOENT ? fmt::format("missing file {}", shown)
                                       : fmt::format("cannot read {}: {}", shown, strerror(err)));
    }
    const bool regular = fstat(fd, &st) == 0 && S_ISREG(st.st_mode);
    if (!regular || st.st_size > kMaxBytes) {
      close(fd);
      throw cannot_grade(regular ? fmt::format("{} is {} bytes; an exercise file may hold at most "
                                               "1 MiB",
                                               shown, st.st_size)
                                 : fmt::format("{} is not a regular file", shown));
    }
    std::string text;
    char buf[65536];
    for (ssize_t n;
         (n = read(fd, buf, sizeof buf)) > 0 && text.size() <= static_cast<size_t>(kMaxBytes);)
      text.append(buf, static_cast<size_t>(n));
    close(fd);
    if (text.size() > static_cast<size_t>(kMaxBytes))
      throw cannot_grade(fmt::format("{} grew past 1 MiB while being read", shown));
    const fs::path copy = into / e.file;
    write_if_changed(copy, text);
    out.files[e.file] = copy;
  }
  std::error_code ec;
  for (const auto& entry : fs::directory_iterator(dir, ec)) {
    const std::string name = entry.path().filename().string();
    if (!named.count(name)) out.ignored.push_back(printable_name(name));
  }
  std::sort(out.ignored.begin(), out.ignored.end());
  return out;
}

namespace {

// The given file's blanks, each placed in the student's file: an empty one where it still is,
// a filled one at the first line (after the previous blank's) that starts like the given
// line before its BLANK(, e.g. "const float scale =".
std::vector<blank> place_blanks(const std::string& given, const std::string& student,
                                const std::vector<blank>& still_empty) {
  const std::vector<std::string_view> given_lines = split_lines(given);
  const std::vector<std::string_view> student_lines = split_lines(student);
  std::vector<blank> out;
  size_t from = 0;
  for (blank b : find_blanks(given)) {
    const auto empty = std::find_if(still_empty.begin(), still_empty.end(),
                                    [&](const blank& e) { return e.name == b.name; });
    if (empty != still_empty.end()) {
      b.line = empty->line;
    } else {
      const std::string_view text = given_lines.at(static_cast<size_t>(b.line) - 1);
      const std::string prefix(trim_ascii(text.substr(0, text.find("BLANK"))));
      b.line = 0;
      for (size_t i = from; prefix.size() >= 3 && i < student_lines.size(); ++i)
        if (trim_ascii(student_lines[i]).starts_with(prefix)) {
          b.line = static_cast<int>(i) + 1;
          break;
        }
    }
    if (b.line > 0) from = static_cast<size_t>(b.line);
    out.push_back(b);
  }
  return out;
}

}  // namespace

void inspect(const course& c, const manifest& m, resolved& what) {
  for (source_file& f : what.files) {
    if (!f.ex->is_code()) continue;
    const fs::path given = c.exercises_dir(m.lesson) / f.ex->file;
    std::error_code ec;
    f.given_blanks = f.blanks;
    if (fs::is_regular_file(given, ec)) {
      const std::string given_text = read_text(given), student_text = read_text(f.path);
      f.given_blanks = place_blanks(given_text, student_text, f.blanks);
      if (!fs::equivalent(given, f.path, ec))
        f.outside_blanks = changes_outside_blanks(given_text, student_text);
    }
    if (f.ex->kind == "cu") f.uninstrumented = uninstrumented_accesses(read_text(f.path));
  }
}

}  // namespace grader
