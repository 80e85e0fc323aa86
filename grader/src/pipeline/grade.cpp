// The grading pipeline, stage by stage (see grade.hpp).
#include "grader/pipeline/grade.hpp"

#include <optional>
#include <thread>

#include "grader/base/error.hpp"
#include "grader/base/files.hpp"
#include "grader/lesson/answers.hpp"
#include "grader/pipeline/build.hpp"
#include "grader/pipeline/resolve.hpp"
#include "grader/pipeline/score.hpp"

namespace fs = std::filesystem;

namespace grader {
namespace {

// Each answers file graded against its key (the key is the course's, never the
// submission's).
std::map<std::string, answers_result> grade_answer_files(const course& c, const manifest& m,
                                                         const resolved& what, lang l) {
  std::map<std::string, answers_result> out;
  for (const source_file& f : what.files)
    if (f.ex->kind == "answers")
      out[f.ex->id] =
          grade_answers_file(f.path, load_answer_key(c.solutions_dir(m.lesson) / f.ex->key), l);
  return out;
}

run_settings settings_of(const grade_request& req, const fs::path& tree) {
  run_settings s;
  s.seed = req.seed;
  s.limits.timeout = req.test_timeout;
  s.parallel = std::max(2u, std::thread::hardware_concurrency());
  s.fresh = req.fresh;
  s.cache_seed = req.seed;  // results drawn with another seed are never reused
  s.cache_dir = tree / "bin" / "runs";
  return s;
}

}  // namespace

fs::path tree_of(const course& c, const manifest& m, const grade_request& req) {
  return req.tree.empty() ? c.grading_tree(m.lesson) : req.tree;
}

report grade(const course& c, const manifest& m, const grade_request& req, runner& tests) {
  // 1. resolve: the units, and the files they need.
  const resolved what = resolve(m, req.files, req.unit);

  // 2. build: each code exercise's test binary; a failure marks only its own. The tree
  //    stays locked until its binaries have run.
  std::optional<grading_tree> tree;
  build_result built;
  if (what.needs_build()) {
    tree.emplace(c, m, tree_of(c, m, req));
    built = tree->build(what.paths(), req.build_timeout);
  }

  // 3. run: the tests of every built exercise, and the answers against their key.
  test_runs runs = run_tests(tests, what, built, settings_of(req, tree_of(c, m, req)));
  auto answers = grade_answer_files(c, m, what, req.language);

  // 4. score: plain data in, the report out.
  report rep = score_report(m, what, built, std::move(runs), std::move(answers), req.overrides,
                            req.language);
  rep.submission = req.label;
  rep.seed = req.seed;
  // 5. flag edits outside the blanks (against the exercise file the student was given).
  for (const source_file& f : what.files) {
    if (!f.ex->is_code()) continue;
    const std::filesystem::path given = c.exercises_dir(m.lesson) / f.ex->file;
    std::error_code ec;
    if (!std::filesystem::is_regular_file(given, ec) ||
        std::filesystem::equivalent(given, f.path, ec))
      continue;
    for (outside_change& change : changes_outside_blanks(read_text(given), read_text(f.path)))
      rep.outside_blanks.push_back({f.ex->file, std::move(change)});
  }
  rep.isolation = tests.isolation();
  return rep;
}

report grade(const course& c, const manifest& m, const grade_request& req) {
  const std::filesystem::path scratch = tree_of(c, m, req) / "bin" / "runs";
  const std::string why =
      req.sandbox == "off" ? "turned off (--sandbox off)" : sandbox_runner::unavailable_reason();
  if (why.empty()) {
    sandbox_runner tests(scratch);
    return grade(c, m, req, tests);
  }
  if (req.sandbox == "on") throw cannot_grade("--sandbox on, but " + why);
  process_runner tests(scratch);
  report r = grade(c, m, req, tests);
  r.isolation = "none: " + why;
  return r;
}

}  // namespace grader
