// The grading pipeline (see grade.hpp).
#include "grader/grade.hpp"

#include <fmt/format.h>

#include <fstream>
#include <regex>
#include <set>
#include <sstream>
#include <thread>

#include "grader/answers.hpp"
#include "grader/build.hpp"
#include "grader/catch_run.hpp"
#include "grader/error.hpp"
#include "grader/files.hpp"
#include "grader/i18n.hpp"
#include "grader/regions.hpp"

namespace fs = std::filesystem;

namespace grader {
namespace {

// The tests' "rng seed ..." line: the report states the seed once instead.
bool is_seed_note(const std::string& info) {
  return info.rfind("rng seed", 0) == 0;
}

std::string item_tag(const item& it) {
  return "[" + it.id + "]";
}
// A veto's detector tests for one unit: [veto:<unit>:<id>].
std::string veto_tag(const unit& u, const veto& v) {
  return "[veto:" + u.id + ":" + v.id + "]";
}

// The first failure of a tag's tests, told briefly: the test, then what broke.
std::string failure_summary(const tag_run& run, lang l) {
  if (run.process.timed_out)
    return trf(l, "测试超时（{}）：学生代码里有死循环？",
               "tests {}: an infinite loop in the student code?", run.process.describe());
  if (run.process.term_signal) {
    // Catch2's signal handler records the test that was running when it crashed.
    std::string where;
    for (const test_record& r : run.records)
      for (const test_failure& f : r.failures)
        if (f.kind == "fatal") where = r.name;
    return where.empty()
               ? trf(l, "测试进程崩溃（{}）：越界访问？",
                     "the test process crashed ({}): an out-of-bounds access?",
                     run.process.describe())
               : trf(l, "'{}' 运行中崩溃（{}）：越界访问？",
                     "'{}' crashed ({}): an out-of-bounds access?", where, run.process.describe());
  }
  for (const test_record& r : run.records) {
    if (r.passed) continue;
    if (r.failures.empty())
      return fmt::format("'{}': {}", r.name, tr(l, "没有断言", "made no assertion"));
    const test_failure& f = r.failures.front();
    std::string what;
    if (f.kind == "exception" || f.kind == "fatal" || f.kind == "fail") {
      what = f.message;
    } else {
      what = f.expanded.empty() ? f.expression : fmt::format("{}  [{}]", f.expression, f.expanded);
    }
    std::string out = fmt::format("'{}': {}", r.name, what);
    for (const auto& info : f.info)
      if (!is_seed_note(info)) out += "\n  " + info;
    return out;
  }
  if (run.records.empty())
    return trf(l, "这一项没有测试（{}）", "no tests ran for this item ({})",
               run.process.describe());
  return trf(l, "测试进程异常结束（{}）", "the test process ended badly ({})",
             run.process.describe());
}

// A veto detector's reason: the INFO lines of its failed check.
std::string veto_reason(const tag_run& run) {
  for (const test_record& r : run.records)
    for (const test_failure& f : r.failures) {
      std::string out;
      for (const auto& info : f.info)
        if (!is_seed_note(info)) out += (out.empty() ? "" : " ") + info;
      return out.empty() ? r.name : out;
    }
  return {};
}

// A veto fires only when its detector ran to the end and failed.
bool veto_fired(const tag_run& run) {
  if (run.process.spawn_failed || run.process.timed_out || run.process.term_signal) return false;
  for (const test_record& r : run.records)
    if (!r.passed && !r.failures.empty() && r.failures.front().kind == "assertion") return true;
  return false;
}

}  // namespace

std::map<std::string, fs::path> submission_files(const manifest& m, const fs::path& dir,
                                                 const fs::path& fallback,
                                                 const std::string& unit_id) {
  if (!fs::is_directory(dir))
    throw cannot_grade(fmt::format("no such folder: {}", display_path(dir)));
  std::set<std::string> used;  // the exercises the chosen units grade
  for (const unit& u : m.units)
    if (unit_id.empty() || u.id == unit_id)
      for (const item& it : u.items) used.insert(it.exercise);
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

report grade(const course& c, const manifest& m, const grade_request& req) {
  const lang l = req.language;
  report rep;
  rep.lesson = m.lesson;
  rep.title = m.title.in(l);
  rep.submission = req.label;
  rep.language = l;
  rep.seed = req.seed;

  std::vector<const unit*> units;
  for (const unit& u : m.units)
    if (req.unit.empty() || req.unit == u.id) units.push_back(&u);
  if (units.empty())
    throw cannot_grade(fmt::format("lesson {} has no unit '{}'", m.lesson, req.unit));

  // Which exercises the chosen units touch.
  std::set<std::string> used;
  for (const unit* u : units)
    for (const item& it : u->items) used.insert(it.exercise);
  bool needs_build = false;
  for (const exercise& e : m.exercises) needs_build |= e.is_code() && used.count(e.id);

  // Static look at the C++ files: blanks still empty.
  for (const exercise& e : m.exercises) {
    if (!e.is_code() || !used.count(e.id)) continue;
    const auto blanks = find_blanks(read_text(req.files.at(e.file)));
    if (blanks.empty()) continue;
    std::string list;
    for (const auto& b : blanks)
      list += fmt::format("{}{} ({} {})", list.empty() ? "" : ", ", b.name, tr(l, "行", "line"),
                          b.line);
    rep.messages.push_back(trf(l, "{}：还有 {} 个空没填：{}（提示：grader hint {}）",
                               "{}: {} blank(s) still empty: {} (hints: grader hint {})",
                               display_path(req.files.at(e.file)), blanks.size(), list, m.lesson));
  }

  // Build and run the code tests, one child process per item and per veto detector,
  // each in its exercise's own test binary.
  std::map<std::string, tag_run> runs;           // by tag
  std::map<std::string, std::string> not_built;  // exercise id -> why
  if (needs_build) {
    grading_tree tree(c, m, req.tree.empty() ? c.grading_tree(m.lesson) : req.tree);
    const build_outcome built = tree.build(req.files, req.build_timeout);
    // Per exercise: its jobs, unless its test binary is unchanged since the last
    // grade, in which case that grade's results are reused.
    std::vector<tag_job> jobs;
    std::map<std::string, std::vector<std::string>> tags_of;  // exercise id -> tags it ran
    std::vector<std::string> reused;
    const fs::path runs_dir =
        (req.tree.empty() ? c.grading_tree(m.lesson) : req.tree) / "bin" / "runs";
    for (const exercise& e : m.exercises) {
      if (!e.is_code() || !used.count(e.id)) continue;
      const exercise_build& b = built.exercises.at(e.id);
      if (!b.ok) {
        not_built[e.id] = b.diagnostics;
        rep.messages.push_back(trf(l, "{} 编译失败：\n{}", "{} does not compile:\n{}",
                                   display_path(req.files.at(e.file)), b.diagnostics));
        continue;
      }
      const auto available = list_tags(b.tests_binary);
      std::vector<tag_job> mine;
      auto add = [&](const std::string& tag) {
        if (const auto it = available.find(tag); it != available.end())
          mine.push_back({b.tests_binary, tag, it->second});
      };
      for (const unit* u : units) {
        for (const item& it : u->items)
          if (it.exercise == e.id) {
            // An item with no tests in its binary still gets a (failing) run.
            if (!available.count(item_tag(it))) mine.push_back({b.tests_binary, item_tag(it), 0});
            add(item_tag(it));
          }
        for (const veto& v : u->vetoes) add(veto_tag(*u, v));
      }
      for (const auto& j : mine) tags_of[e.id].push_back(j.tag);
      unsigned cached_seed = 0;
      auto cached = req.fresh ? std::map<std::string, tag_run>{}
                              : load_cached_runs(runs_dir / (e.id + ".cache.json"),
                                                 binary_fingerprint(b.tests_binary), tags_of[e.id],
                                                 &cached_seed);
      if (!cached.empty()) {
        for (auto& [tag, run] : cached) runs[tag] = std::move(run);
        reused.push_back(fmt::format("{} (seed {})", e.file, cached_seed));
      } else {
        jobs.insert(jobs.end(), mine.begin(), mine.end());
      }
    }
    const unsigned parallel = std::max(2u, std::thread::hardware_concurrency());
    const auto results = run_jobs(jobs, req.seed, req.test_timeout, parallel);
    std::map<std::string, std::vector<tag_run>> fresh_by_exercise;
    for (const auto& run : results) {
      for (const auto& [id, tags] : tags_of)
        if (std::find(tags.begin(), tags.end(), run.tag) != tags.end())
          fresh_by_exercise[id].push_back(run);
      runs[run.tag] = run;
    }
    for (const auto& [id, list] : fresh_by_exercise) {
      // A timeout may be the machine's fault, not the code's: never keep one.
      const bool timed_out =
          std::any_of(list.begin(), list.end(), [](const tag_run& r) { return r.process.timed_out; });
      const fs::path cache = runs_dir / (id + ".cache.json");
      std::error_code ec;
      if (timed_out)
        fs::remove(cache, ec);
      else
        save_cached_runs(cache, binary_fingerprint(built.exercises.at(id).tests_binary), req.seed, list);
    }
    if (!reused.empty()) {
      std::string list;
      for (const auto& r : reused) list += (list.empty() ? "" : ", ") + r;
      rep.messages.push_back(
          trf(l, "未改动，沿用上次的测试结果：{}（--fresh 重新运行）",
              "Unchanged, so the last grade's test results are reused: {} (--fresh re-runs them)",
              list));
    }
  }

  // Answers files: parse once, grade against their key.
  std::map<std::string, std::vector<part_grade>> answer_grades;  // by exercise id
  std::map<std::string, std::string> answer_errors;
  for (const exercise& e : m.exercises) {
    if (e.kind != "answers" || !used.count(e.id)) continue;
    const answer_key key = load_answer_key(c.solutions_dir(m.lesson) / e.key);
    try {
      const answers_doc doc =
          parse_answers(read_text(req.files.at(e.file)), display_path(req.files.at(e.file)));
      answer_grades[e.id] = grade_answers(doc, key, l);
    } catch (const input_error& err) {
      answer_errors[e.id] = err.what();
      rep.messages.push_back(
          trf(l, "答案文件无法读取：{}", "Cannot read the answers file: {}", err.what()));
    }
  }

  for (const unit* u : units) {
    unit_report ur;
    ur.id = u->id;
    ur.title = u->title.in(l);
    ur.max_score = u->max_score;
    ur.pass_line = u->pass_line;
    auto veto_title = [&](const std::string& id) {
      for (const veto& v : u->vetoes)
        if (v.id == id) return v.title.in(l);
      return id;
    };
    for (const item& it : u->items) {
      item_result r{it.id, it.title.in(l), 0, it.points, item_status::fail, {}, false};
      const exercise& e = m.exercise_of(it);
      if (e.is_code()) {
        if (not_built.count(e.id)) {
          r.status = item_status::error;
          r.feedback = trf(l, "{} 无法编译（见上）", "{} does not compile (see above)", e.file);
        } else {
          const tag_run& run = runs.at(item_tag(it));
          if (run.passed()) {
            r.points = it.points;
            r.status = item_status::pass;
            r.feedback = it.pass_feedback.in(l);
          } else {
            r.status = run.process.timed_out || run.process.term_signal ? item_status::error
                                                                        : item_status::fail;
            // An unfilled blank is the whole story: the item's own advice would mislead.
            static const std::regex blank_message("blank `([A-Za-z0-9_]+)` is still empty");
            const std::string why = failure_summary(run, l);
            std::smatch found;
            if (std::regex_search(why, found, blank_message))
              r.feedback = trf(l, "先填好空 `{}`（见上方的空列表）", "fill in blank `{}` first (see the list of blanks above)",
                               found[1].str());
            else
              r.feedback = it.fail_feedback.in(l) + (it.fail_feedback.in(l).empty() ? "" : "\n") + why;
          }
        }
      } else if (answer_errors.count(e.id)) {
        r.status = item_status::error;
        r.feedback = answer_errors[e.id];
      } else {
        std::string notes, blank;
        for (const part_grade& g : answer_grades[e.id]) {
          if (g.item != it.id) continue;
          r.points += g.points;
          r.needs_review |= g.needs_review;
          if (g.blank)
            blank += (blank.empty() ? "" : ", ") + g.id;
          else if (!g.feedback.empty())
            notes += (notes.empty() ? "" : "\n") + g.feedback;
          for (const veto_hit& v : g.vetoes) ur.add_veto(v.id, veto_title(v.id), v.reason);
        }
        if (!blank.empty())
          notes =
              trf(l, "未作答：{}", "not answered: {}", blank) + (notes.empty() ? "" : "\n") + notes;
        r.feedback = notes;
        r.status = r.points >= it.points - 1e-9 ? item_status::pass
                   : r.points > 1e-9            ? item_status::partial
                                                : item_status::fail;
      }
      ur.items.push_back(std::move(r));
    }
    for (const veto& v : u->vetoes) {
      const auto run = runs.find(veto_tag(*u, v));
      if (run != runs.end() && veto_fired(run->second))
        ur.add_veto(v.id, v.title.in(l), tr(l, "代码：", "code: ") + veto_reason(run->second));
    }
    for (item_result& r : ur.items) {
      const auto o = req.overrides.find(r.id);
      if (o == req.overrides.end()) continue;
      r.points = std::clamp(o->second, 0.0, r.max_points);
      r.status = r.points >= r.max_points - 1e-9 ? item_status::pass
                 : r.points > 1e-9              ? item_status::partial
                                                : item_status::fail;
      r.needs_review = false;
      r.feedback += (r.feedback.empty() ? "" : "\n") +
                    trf(l, "（教师复核后定为 {:g} 分）", "(set to {:g} points by an instructor's review)", r.points);
    }
    ur.finish();
    rep.units.push_back(std::move(ur));
  }
  return rep;
}

}  // namespace grader
