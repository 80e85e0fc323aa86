// The Gradescope autograder bundle (see gradescope_bundle.hpp).
#include "grader/commands/gradescope_bundle.hpp"

#include <fmt/format.h>

#include "grader/base/error.hpp"
#include "grader/base/files.hpp"
#include "grader/base/zip.hpp"
#include "grader/commands/release.hpp"

namespace fs = std::filesystem;

namespace grader {
namespace {

// "{lesson}" stands for the lesson: fmt's braces would clash with the shell's.
std::string with_lesson(std::string text, const std::string& lesson) {
  for (size_t at; (at = text.find("{lesson}")) != std::string::npos;) text.replace(at, 8, lesson);
  return text;
}

constexpr const char* kSetup = R"(#!/usr/bin/env bash
# Gradescope's setup step for {lesson} (written by `grader dev gradescope`): installs the
# course's Debian packages, builds the grader, and builds the marking tree once by marking
# the solutions, so each submission costs only its own compiles and tests.
# AUTOGRADER_ROOT moves /autograder (for tests).
set -euo pipefail
root="${AUTOGRADER_ROOT:-/autograder}"
course="$root/source/course"
"$course/.ci/install-deps"
# Only `grader mark` and `dev manifest` run here: the student build, without the instructor's
# commands, is enough.
cmake -S "$course" -B "$root/grader-build" -G Ninja -DCMAKE_BUILD_TYPE=Release \
  -DCOURSE_BUILD_TESTS=OFF -DCOURSE_INSTRUCTOR_COMMANDS=OFF
cmake --build "$root/grader-build" --target grader grader-confine
# The solutions are the instructor's own: marked without the sandbox, only to build the tree.
mkdir -p "$root/warm-up"
for f in $("$root/grader-build/bin/grader" dev manifest {lesson} --all --root "$course" | awk '{print $3}'); do
  cp "$course/solutions/{lesson}/$f" "$root/warm-up/"
done
"$root/grader-build/bin/grader" mark {lesson} "$root/warm-up" --root "$course" \
  --build-dir "$root/tree" --allow-unconfined --lang en >"$root/warm-up.txt" 2>&1 ||
  { tail -20 "$root/warm-up.txt"; echo "setup: the solutions do not mark cleanly" >&2; exit 1; }
echo "setup: the grader and the {lesson} marking tree are built"
)";

constexpr const char* kRun = R"(#!/usr/bin/env bash
# Gradescope runs this for each submission of {lesson} (written by `grader dev gradescope`):
# `grader mark` in the sandbox (the strongest level that works here, at least restricted:
# Gradescope's containers have no user namespaces) writes /autograder/results/results.json.
# It is always written: a submission that cannot be marked gets one that says why.
# AUTOGRADER_ROOT moves /autograder (for tests).
set -uo pipefail
root="${AUTOGRADER_ROOT:-/autograder}"
course="$root/source/course"
results="$root/results"
mkdir -p "$results"
rm -f "$results/results.json"
submission="$root/submission"
# Uploaded from a repository: the files may sit in exercises/{lesson}/.
[ -d "$submission/exercises/{lesson}" ] && submission="$submission/exercises/{lesson}"
"$root/grader-build/bin/grader" mark {lesson} "$submission" --root "$course" \
  --build-dir "$root/tree" --require-sandbox restricted --lang "${GRADER_LANG:-en}" \
  --write "gradescope=$results/results.json" >"$results/report.txt" 2>&1
rc=$?
cat "$results/report.txt"
if [ ! -s "$results/results.json" ]; then
  printf '{"score": 0, "output": "The autograder itself failed (exit %d); your instructor has its log.", "tests": []}\n' \
    "$rc" >"$results/results.json"
fi
exit 0
)";

}  // namespace

std::string gradescope_setup_script(const std::string& lesson) {
  return with_lesson(kSetup, lesson);
}
std::string gradescope_run_script(const std::string& lesson) {
  return with_lesson(kRun, lesson);
}

void dev_gradescope(const course& c, const manifest& m, const fs::path& out, std::ostream& log) {
  std::error_code ec;
  const fs::path target = fs::weakly_canonical(fs::absolute(out), ec);
  bool from_git = false;
  std::vector<zip_entry> entries = {{"setup.sh", gradescope_setup_script(m.lesson), true},
                                    {"run_autograder", gradescope_run_script(m.lesson), true}};
  size_t bytes = 0;
  for (const std::string& path : course_files(c.root, &from_git)) {
    const fs::path p = c.root / path;
    if (!fs::is_regular_file(fs::symlink_status(p, ec))) continue;  // links stay out
    if (fs::weakly_canonical(p, ec) == target) continue;  // an earlier bundle in the course
    // Only the lessons' own folders of this lesson: another lesson's key is not needed.
    if ((path.starts_with("lessons/") || path.starts_with("solutions/") ||
         path.starts_with("exercises/")) &&
        path.find("/" + m.lesson + "/") == std::string::npos)
      continue;
    zip_entry e{"course/" + path, read_text(p),
                (fs::status(p).permissions() & fs::perms::owner_exec) != fs::perms::none};
    bytes += e.data.size();
    entries.push_back(std::move(e));
  }
  write_replacing(out, zip_archive(entries));
  log << fmt::format(
      "wrote {}: setup.sh, run_autograder and {} course files ({:.1f} MiB, from {})\n",
      out.string(), entries.size() - 2, bytes / 1048576.0,
      from_git ? "git's file list" : "the folder");
}

}  // namespace grader
