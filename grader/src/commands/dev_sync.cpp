// dev sync and dev manifest (see dev.hpp): the student files generated from the solutions,
// and the manifest's exercises as CMake and scripts read them.
#include <fmt/format.h>
#include <fmt/ostream.h>

#include "grader/base/files.hpp"
#include "grader/commands/dev.hpp"
#include "grader/lesson/regions.hpp"

namespace fs = std::filesystem;

namespace grader {
namespace {

// Line number of the first difference, for a drift message.
int first_difference(const std::string& a, const std::string& b) {
  const auto la = split_lines(a), lb = split_lines(b);
  size_t i = 0;
  while (i < la.size() && i < lb.size() && la[i] == lb[i]) ++i;
  return static_cast<int>(i + 1);
}

}  // namespace

int dev_sync(const course& c, const manifest& m, bool check_only, std::ostream& out) {
  int changed = 0;
  for (const exercise& e : m.exercises) {
    const fs::path solution = c.solutions_dir(m.lesson) / e.file;
    const fs::path student = c.exercises_dir(m.lesson) / e.file;
    const std::string want = make_student_file(read_text(solution), e.kind, display_path(solution));
    const std::string have = fs::exists(student) ? read_text(student) : std::string();
    if (want == have) continue;
    ++changed;
    if (check_only) {
      fmt::print(
          out, "{}: differs from what {} generates (first at line {}); run: grader dev sync {}\n",
          display_path(student), display_path(solution), first_difference(want, have), m.lesson);
    } else {
      fs::create_directories(student.parent_path());
      write_if_changed(student, want);
      fmt::print(out, "wrote {}\n", display_path(student));
    }
  }
  return changed;
}

void dev_manifest_files(const manifest& m, bool all, std::ostream& out) {
  for (const exercise& e : m.exercises)
    if (all || e.is_code()) fmt::print(out, "{} {} {}\n", e.id, e.kind, e.file);
}

}  // namespace grader
