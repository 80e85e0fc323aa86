// The grading pipeline, stage by stage (see grade.hpp).
#include "grader/pipeline/grade.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <nlohmann/json.hpp>
#include <algorithm>
#include <optional>
#include <thread>

#include "grader/base/error.hpp"
#include "grader/base/files.hpp"
#include "grader/lesson/answers.hpp"
#include "grader/pipeline/build.hpp"
#include "grader/pipeline/gpu.hpp"
#include "grader/pipeline/resolve.hpp"
#include "grader/pipeline/runner.hpp"
#include "grader/pipeline/score.hpp"

namespace fs = std::filesystem;

namespace grader {
namespace {

// The answers form a student release wrote for one answers exercise (RELEASE.json).
std::vector<part_form> release_form(const course& c, const manifest& m, const exercise& e) {
  const fs::path file = c.release_file();
  const auto j = nlohmann::json::parse(read_text(file), nullptr, false);
  const std::string where = display_path(file);
  if (j.is_discarded() || !j.is_object())
    throw cannot_grade(where + ": not a JSON object (regenerate the release)");
  const auto forms = j.find("answer_forms");
  if (j.value("lesson", "") != m.lesson || forms == j.end() || !forms->is_object() ||
      !forms->contains(e.id))
    throw cannot_grade(fmt::format("{}: no answer form for {} of {} (regenerate the release)",
                                   where, e.id, m.lesson));
  try {
    return form_from_json(forms->at(e.id), where);
  } catch (const input_error& err) {
    throw cannot_grade(err.what());
  }
}

// Each answers file graded against its key (the key is the course's, never the
// submission's). A student release has no key: there the file is only checked for being
// complete, and graded at submission; anywhere else a missing key stops the grade.
std::map<std::string, answers_result> grade_answer_files(const course& c, const manifest& m,
                                                         const resolved& what, lang l) {
  std::map<std::string, answers_result> out;
  for (const source_file& f : what.files) {
    if (f.ex->kind != "answers") continue;
    const fs::path key = c.solutions_dir(m.lesson) / f.ex->key;
    if (c.is_student_release() && !fs::exists(key))
      out[f.ex->id] = check_answers_form(f.path, release_form(c, m, *f.ex), l);
    else
      out[f.ex->id] = grade_answers_file(f.path, load_answer_key(key), l);
  }
  return out;
}

run_settings settings_of(const grade_request& req, const fs::path& tree) {
  run_settings s;
  s.seed = req.seed;
  s.limits.timeout = req.test_timeout;
  s.parallel = std::max(2u, std::thread::hardware_concurrency());
  s.fresh = req.fresh || req.marking;
  s.cache_seed = req.seed;  // results drawn with another seed are never reused
  s.cache_dir = tree / "bin" / "runs";
  return s;
}

}  // namespace

fs::path tree_of(const course& c, const manifest& m, const grade_request& req) {
  const fs::path tree = req.tree.empty() ? c.grading_tree(m.lesson) : req.tree;
  return req.marking ? fs::path(tree.string() + "-mark") : tree;
}

namespace {

// Stage 2 keeps the tree locked until its binaries have run (stage 3), so it lives here.
struct built_tree {
  std::optional<grading_tree> tree;
  build_result result;
};

// 2. build: each code exercise's test binary; a failure marks only its own.
void build_stage(const course& c, const manifest& m, const grade_request& req, const resolved& what,
                 const fs::path& dir, isolation confined, built_tree& out) {
  if (!what.needs_build()) return;
  out.tree.emplace(c, m, dir,
                   tree_options{{}, req.marking, req.confine_build ? confined : isolation::none});
  out.result = out.tree->build(what.paths(), req.build_timeout);
}

struct stage_runs {
  test_runs tests;
  std::map<std::string, answers_result> answers;
};

// 3. run: the tests of every built exercise, and the answers against their key.
stage_runs run_stage(const course& c, const manifest& m, const grade_request& req,
                     const resolved& what, const build_result& built, const fs::path& dir,
                     runner& tests) {
  return {run_tests(tests, what, built, settings_of(req, dir)),
          grade_answer_files(c, m, what, req.language)};
}

grade_facts facts_of(const grade_request& req, const runner& tests, std::string isolation,
                     std::string detail) {
  return {req.language,
          req.label,
          req.seed,
          std::move(isolation),
          std::string(to_string(tests.level())),
          std::move(detail),
          req.marking};
}

report grade_with(const course& c, const manifest& m, const grade_request& req, runner& tests,
                  isolation confined, const grade_facts& facts) {
  const fs::path dir = tree_of(c, m, req);
  resolved what = resolve(m, req.files, req.unit);  // 1. the units and the files they need
  inspect(c, m, what);                              //    and what their code shows
  built_tree built;
  build_stage(c, m, req, what, dir, confined, built);                      // 2.
  stage_runs runs = run_stage(c, m, req, what, built.result, dir, tests);  // 3.
  return score_report(m, what, built.result, std::move(runs.tests),        // 4.
                      std::move(runs.answers), req.overrides, facts);
}

// --gpu, the same stages on the GPU: build with nvcc, run there, score against the
// emulator's report (require_gpu() has been asked before any grading).
void grade_on_gpu(const course& c, const manifest& m, const grade_request& req, report& rep) {
  if (!req.gpu) return;
  const resolved what = resolve(m, req.files, req.unit);
  gpu_runner gpu;
  rep.gpu = score_gpu(run_gpu(c, m, req, what, gpu), rep, req.language);
}

// The level to grade at: asked for, or the strongest that works here; refused below
// `require` or where it cannot run.
isolation level_of(const grade_request& req) {
  const isolation level = req.sandbox.value_or(strongest_isolation());
  const std::string name(to_string(level));
  if (const std::string why = unavailable_reason(level); !why.empty())
    throw cannot_grade(
        fmt::format("{}: {}", req.sandbox ? "--sandbox " + name : "no sandbox", why));
  if (level < req.require) {
    const std::string wanted(to_string(req.require));
    throw cannot_grade(
        req.sandbox
            ? fmt::format("--sandbox {} is below the required isolation level {}", name, wanted)
            : fmt::format("isolation level {} is required, but only {} works here ({}); "
                          "--require-sandbox {} accepts it",
                          wanted, name, unavailable_reason(req.require), name));
  }
  return level;
}

}  // namespace

report grade(const course& c, const manifest& m, const grade_request& req, runner& tests) {
  if (req.gpu) require_gpu();  // before any grading: say so at once
  report rep =
      grade_with(c, m, req, tests, isolation::none, facts_of(req, tests, tests.isolation(), ""));
  grade_on_gpu(c, m, req, rep);
  return rep;
}

report grade(const course& c, const manifest& m, const grade_request& req) {
  const isolation level = level_of(req);
  if (req.gpu) require_gpu();  // before any grading: say so at once
  // The runner asked for (--runner), or the one for the level (pipeline/runner.hpp).
  const std::string name = req.runner.empty() ? default_runner(level) : req.runner;
  const std::unique_ptr<runner> tests = make_runner(name, level);
  if (!tests)
    throw cannot_grade(fmt::format("runner {} cannot isolate at level {} (runners: {})", name,
                                   to_string(level), fmt::join(runner_names(), ", ")));
  const std::string isolation_text = level != isolation::none ? tests->isolation()
                                     : req.sandbox
                                         ? "none: turned off (--sandbox off)"
                                         : "none: " + unavailable_reason(isolation::restricted);
  report rep = grade_with(c, m, req, *tests, level,
                          facts_of(req, *tests, isolation_text,
                                   level == isolation::none ? "" : isolation_detail(level)));
  grade_on_gpu(c, m, req, rep);
  return rep;
}

}  // namespace grader
