// The grading pipeline, stage by stage (see grade.hpp).
#include "grader/pipeline/grade.hpp"

#include <fmt/format.h>

#include <nlohmann/json.hpp>
#include <algorithm>
#include <optional>
#include <thread>

#include "grader/base/error.hpp"
#include "grader/base/files.hpp"
#include "grader/lesson/answers.hpp"
#include "grader/lesson/source_checks.hpp"
#include "grader/pipeline/build.hpp"
#include "grader/pipeline/resolve.hpp"
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

// The manifest forbids edits outside this exercise's blanks: its items score nothing.
// Every item `e` earns scores 0, with `why` as its feedback.
void fail_items_of(const manifest& m, const exercise& e, report& rep, const std::string& why) {
  for (unit_report& u : rep.units) {
    const auto owner =
        std::find_if(m.units.begin(), m.units.end(), [&](const unit& mu) { return mu.id == u.id; });
    if (owner == m.units.end()) continue;
    for (item_result& it : u.items)
      for (const item& mi : owner->items)
        if (mi.id == it.id && mi.exercise == e.id) {
          it.points = it.auto_points = 0;
          it.status = item_status::fail;
          it.feedback = why;
        }
    u.finish();
  }
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

report grade_with(const course& c, const manifest& m, const grade_request& req, runner& tests,
                  isolation confined) {
  // 1. resolve: the units, and the files they need.
  const resolved what = resolve(m, req.files, req.unit);

  // 2. build: each code exercise's test binary; a failure marks only its own. The tree
  //    stays locked until its binaries have run.
  std::optional<grading_tree> tree;
  build_result built;
  if (what.needs_build()) {
    tree.emplace(c, m, tree_of(c, m, req),
                 tree_options{{}, req.marking, req.confine_build ? confined : isolation::none});
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
    const auto changes = changes_outside_blanks(read_text(given), read_text(f.path));
    for (const outside_change& change : changes) rep.outside_blanks.push_back({f.ex->file, change});
    if (!changes.empty() && f.ex->outside_blanks_fail)
      fail_items_of(m, *f.ex, rep,
                    trf(rep.language, "{} 在空以外有改动，本课不允许（见上方列表）",
                        "{} was edited outside its blanks, which this lesson does not allow "
                        "(see the list above)",
                        f.ex->file));
  }
  // 6. CUDA code the emulator runs: its counters must see every access (source_checks.hpp).
  for (const source_file& f : what.files) {
    if (f.ex->kind != "cu") continue;
    const auto found = uninstrumented_accesses(read_text(f.path));
    if (found.empty()) continue;
    const source_finding& first = found.front();
    const std::string why =
        first.token.starts_with("#")
            ? trf(rep.language,
                  "{} 第 {} 行的 `{}` "
                  "引入了另一个源文件（或由宏算出的文件），其中的代码不经过这里的"
                  "检查，访存数字无法信任，本练习各项不给分",
                  "{} line {}: `{}` brings in another source file (or one a macro names), whose "
                  "code these checks never see, so no count of this exercise can be trusted and "
                  "its items score 0",
                  f.ex->file, first.line, first.token)
        : first.token == kEmulatorNamespace
            ? trf(rep.language,
                  "{} 第 {} 行用到了 `{}`：那是 CUDA 模拟器自己的接口，通过它可以改写模拟器记下的"
                  "计数和报告，访存数字无法信任，本练习各项不给分",
                  "{} line {}: `{}` is the CUDA emulator's own API, through which code can "
                  "rewrite the counters and reports the emulator records, so no count of this "
                  "exercise can be trusted and its items score 0",
                  f.ex->file, first.line, first.token)
            : trf(rep.language,
                  "{} 第 {} 行的 `{}` 让内存访问绕过了模拟器的计数（编译时关掉插桩、内联汇编、"
                  "libc 拷贝或 ## 拼接），访存数字无法信任，本练习各项不给分",
                  "{} line {}: `{}` takes memory accesses out of the emulator's counters (an "
                  "attribute that turns its hooks off, inline assembly, a libc copy, or ## "
                  "pasting that can spell one), so no count of this exercise can be trusted and "
                  "its items score 0",
                  f.ex->file, first.line, first.token);
    fail_items_of(m, *f.ex, rep, why);
    rep.messages.push_back(why);
  }
  rep.isolation = tests.isolation();
  rep.isolation_level = to_string(tests.level());
  rep.mode = req.marking ? "marking" : "practice";
  for (const auto& [id, b] : built.exercises)
    if (b.ok && !b.compute_binary.empty()) rep.judged_apart.push_back(b.file);
  return rep;
}

}  // namespace

report grade(const course& c, const manifest& m, const grade_request& req, runner& tests) {
  return grade_with(c, m, req, tests, isolation::none);
}

report grade(const course& c, const manifest& m, const grade_request& req) {
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
  if (level == isolation::none) {
    process_runner tests;
    report r = grade_with(c, m, req, tests, isolation::none);
    r.isolation = req.sandbox ? "none: turned off (--sandbox off)"
                              : "none: " + unavailable_reason(isolation::restricted);
    return r;
  }
  sandbox_runner tests(level);
  report r = grade_with(c, m, req, tests, level);
  r.isolation_detail = isolation_detail(level);
  return r;
}

report ungraded_report(const manifest& m, const std::string& unit, lang l,
                       const std::string& submission, const std::string& why) {
  report rep;
  rep.lesson = m.lesson;
  rep.title = m.title.in(l);
  rep.submission = submission;
  rep.language = l;
  rep.not_graded = why;
  rep.isolation = "none: not graded";
  rep.isolation_level = "none";
  rep.messages.push_back(trf(l, "没有评分：{}", "not graded: {}", why));
  for (const struct unit& u : m.units) {
    if (!unit.empty() && u.id != unit) continue;
    unit_report ur;
    ur.id = u.id;
    ur.title = u.title.in(l);
    ur.max_score = u.max_score;
    ur.pass_line = u.pass_line;
    for (const item& it : u.items) {
      item_result r;
      r.id = it.id;
      r.title = it.title.in(l);
      r.max_points = it.points;
      r.status = item_status::error;
      r.feedback = trf(l, "没有评分：{}", "not graded: {}", why);
      ur.items.push_back(std::move(r));
    }
    ur.finish();
    rep.units.push_back(std::move(ur));
  }
  return rep;
}

}  // namespace grader
