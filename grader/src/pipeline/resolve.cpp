// The resolve stage (see resolve.hpp).
#include "grader/pipeline/resolve.hpp"

#include <fmt/format.h>

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

}  // namespace grader
