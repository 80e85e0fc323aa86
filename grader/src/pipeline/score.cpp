// The score stage (see score.hpp).
#include "grader/pipeline/score.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "course/protocol.hpp"
#include "grader/base/files.hpp"
#include "grader/base/i18n.hpp"

namespace grader {
namespace protocol = ::course::protocol;
namespace {

item_status status_of(double points, double max_points) {
  return points >= max_points - 1e-9 ? item_status::pass
         : points > 1e-9             ? item_status::partial
                                     : item_status::fail;
}

// The first failure of a tag's tests, told briefly: the test, then what broke.
std::string failure_summary(const tag_run& run, lang l) {
  if (run.process.timed_out)
    return trf(l, "测试超时（{}）：学生代码里有死循环？",
               "tests {}: an infinite loop in the student code?", run.process.describe());
  if (run.process.output_exceeded || run.process.memory_exceeded || run.process.processes_exceeded)
    return trf(l, "测试被限额终止（{}）", "the tests were stopped at a limit ({})",
               run.process.describe());
  if (run.process.term_signal) {
    // Catch2's signal handler records the test that was running when it crashed.
    std::string where;
    for (const test_record& r : run.records)
      for (const test_failure& f : r.failures)
        if (f.kind == protocol::failure_kind::fatal) where = r.name;
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
    if (f.kind == protocol::failure_kind::assertion)
      what = f.expanded.empty() ? f.expression : fmt::format("{}  [{}]", f.expression, f.expanded);
    else
      what = f.message;
    std::string out = fmt::format("'{}': {}", r.name, what);
    for (const auto& info : f.info)
      if (!protocol::is_seed_line(info) && !protocol::is_cause_line(info) && !info.empty())
        out += "\n  " + info;
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
        if (!protocol::is_seed_line(info)) out += (out.empty() ? "" : " ") + info;
      return out.empty() ? r.name : out;
    }
  return {};
}

std::string reviewed_note(lang l, double automatic) {
  return trf(l, "（教师复核后改定；自动评分为 {:g}）",
             "(set by an instructor's review; automatic: {:g})", round_points(automatic));
}

// A student release ships no key: the item is graded at submission, and here only
// checked for every part answered in a form the key can grade.
item_result score_at_submission(const item& it, const answers_result& a, lang l) {
  item_result r{it.id, it.title.in(l), 0, it.points, item_status::at_submission,
                {},    false,          0, false};
  r.at_submission = true;
  std::string blank, problems;
  int parts = 0;
  for (const part_grade& g : a.parts) {
    if (g.item != it.id) continue;
    ++parts;
    if (g.blank)
      blank += (blank.empty() ? "" : ", ") + g.id;
    else if (!g.feedback.empty())
      problems += (problems.empty() ? "" : "\n") + g.feedback;
  }
  if (blank.empty() && problems.empty()) {
    r.feedback = trf(l, "提交时评分（{} 个小题都已作答）",
                     "graded at submission (all {} parts answered)", parts);
    return r;
  }
  r.status = item_status::fail;
  if (!blank.empty()) r.feedback = trf(l, "还没有作答：{}", "still to answer: {}", blank);
  if (!problems.empty()) r.feedback += (r.feedback.empty() ? "" : "\n") + problems;
  r.feedback += std::string("\n") + tr(l, "（提交时评分）", "(graded at submission)");
  return r;
}

item_result score_answers_item(const item& it, const answers_result& a, unit_report& ur,
                               const unit& u, const review& rev, lang l) {
  item_result r{it.id, it.title.in(l), 0, it.points, item_status::fail, {}, false, 0, false};
  r.at_submission = a.at_submission;
  if (!a.error.empty()) {
    r.status = item_status::error;
    r.feedback = a.error;
    return r;
  }
  if (a.at_submission) return score_at_submission(it, a, l);
  auto veto_title = [&](const std::string& id) {
    for (const veto& v : u.vetoes)
      if (v.id == id) return v.title.in(l);
    return id;
  };
  std::string notes, blank;
  for (const part_grade& g : a.parts) {
    if (g.item != it.id) continue;
    r.auto_points += g.points;
    const auto o = rev.parts.find(g.id);
    const bool reviewed = o != rev.parts.end();
    r.points += reviewed ? o->second : g.points;
    r.reviewed |= reviewed;
    r.needs_review |= g.needs_review && !reviewed;
    if (g.blank)
      blank += (blank.empty() ? "" : ", ") + g.id;
    else if (!g.feedback.empty())
      notes += (notes.empty() ? "" : "\n") + g.feedback;
    if (reviewed) notes += (notes.empty() ? "" : "\n") + g.id + " " + reviewed_note(l, g.points);
    for (const veto_hit& v : g.vetoes)
      ur.add_veto({v.id, veto_title(v.id), v.reason, v.provisional, false, {}});
    for (const veto_hit& v : g.lifted)
      ur.add_veto({v.id, veto_title(v.id), v.reason, v.provisional, true, {}});
  }
  if (!blank.empty())
    notes = trf(l, "未作答：{}", "not answered: {}", blank) + (notes.empty() ? "" : "\n") + notes;
  r.feedback = notes;
  r.status = status_of(r.points, it.points);
  return r;
}

void apply_override(item_result& r, double points, lang l) {
  r.points = points;
  r.status = status_of(r.points, r.max_points);
  r.needs_review = false;
  r.reviewed = true;
  r.feedback += (r.feedback.empty() ? "" : "\n") + reviewed_note(l, r.auto_points);
}

// The reviewer's decisions on a unit's vetoes: set raises (or confirms) one, clear
// removes it; both are kept in the report beside what the grader found.
void apply_veto_review(unit_report& ur, const unit& u, const review& rev, lang l) {
  const auto decisions = rev.vetoes.find(u.id);
  if (decisions == rev.vetoes.end()) return;
  for (const auto& [id, decision] : decisions->second) {
    bool found = false;
    for (veto_result& v : ur.vetoes)
      if (v.id == id) {
        found = true;
        v.review = decision == veto_decision::set ? "set" : "cleared";
      }
    if (!found && decision == veto_decision::set) {
      veto_result v;
      v.id = id;
      for (const veto& x : u.vetoes)
        if (x.id == id) v.title = x.title.in(l);
      v.reason = tr(l, "教师复核时判定", "raised by an instructor's review");
      v.review = "set";
      ur.vetoes.push_back(v);
    }
  }
}

}  // namespace

const tag_run* find_run(const score_inputs& in, const std::string& exercise,
                        const std::string& tag) {
  for (const tag_run& r : in.runs)
    if (r.exercise == exercise && r.tag == tag) return &r;
  return nullptr;
}

bool veto_fired(const tag_run& run) {
  if (run.process.spawn_failed || run.process.timed_out || run.process.term_signal) return false;
  // A memory error is not the misconception's signature, whatever failed before it.
  if (run.process.exit_code == sanitizer_exit_code) return false;
  for (const test_record& r : run.records)
    if (!r.passed && !r.failures.empty() &&
        r.failures.front().kind == protocol::failure_kind::assertion)
      return true;
  return false;
}

std::string rerun_command(const score_inputs& in, const std::string& exercise,
                          const std::string& tag) {
  const auto b = in.rerun_binaries.find(exercise);
  if (b == in.rerun_binaries.end()) return {};
  return fmt::format("{} \"{}\" --rng-seed {}", b->second, tag, in.seed);
}

item_result score_code_item(const item& it, const exercise& e, const score_inputs& in, lang l) {
  item_result r{it.id, it.title.in(l), 0, it.points, item_status::fail, {}, false, 0, false};
  if (const auto nb = in.not_built.find(e.id); nb != in.not_built.end()) {
    r.status = item_status::error;
    r.feedback = nb->second.timed_out
                     ? trf(l, "{} 没有在时限内编译完（见上）",
                           "{} did not finish compiling in time (see above)", e.file)
                     : trf(l, "{} 无法编译（见上）", "{} does not compile (see above)", e.file);
    return r;
  }
  const tag_run* run = find_run(in, e.id, protocol::item_tag(it.id));
  if (!run) {
    r.status = item_status::error;
    r.feedback = trf(l, "这一项的测试没有运行", "this item's tests did not run");
    return r;
  }
  for (const test_record& rec : run->records)
    for (const std::string& w : rec.warnings)
      if (std::find(r.warnings.begin(), r.warnings.end(), w) == r.warnings.end())
        r.warnings.push_back(w);
  if (run->passed()) {
    r.points = it.points;
    r.status = item_status::pass;
    r.feedback = it.pass_feedback.in(l);
    return r;
  }
  if (run->process.spawn_failed) {  // nothing of the student's ran: no advice about it
    r.status = item_status::error;
    r.feedback = trf(l, "测试程序无法启动：{}", "the tests could not start: {}",
                     run->process.output.empty() ? run->process.describe() : run->process.output);
    return r;
  }
  r.status =
      run->process.timed_out || run->process.term_signal ? item_status::error : item_status::fail;
  // An unfilled blank is the whole story: the item's own advice would mislead.
  if (const std::string blank = run->blank(); !blank.empty()) {
    // Said in full here: formats other than text (JUnit, an LMS) show the item alone.
    const std::string named = in.lesson_manifest ? hint_name(*in.lesson_manifest, e, blank) : "";
    r.feedback = trf(l, "先填好空 `{}`（`grader hint {} {}` 讲它的思路）",
                     "fill in blank `{}` first (`grader hint {} {}` explains the idea)", blank,
                     in.lesson, named.empty() ? blank : named);
    return r;
  }
  r.rerun = rerun_command(in, e.id, protocol::item_tag(it.id));
  // A sanitizer's report is the cause: the item's advice about the maths would mislead.
  if (run->process.exit_code == sanitizer_exit_code) {
    const std::string found = sanitizer_summary(run->process.output, e.file);
    r.feedback = trf(l, "内存错误或未定义行为（AddressSanitizer/UBSan）：{}",
                     "a memory error or undefined behaviour (AddressSanitizer/UBSan): {}",
                     found.empty() ? run->process.describe() : found);
    return r;
  }
  // A cause the test established beats the item's advice, which guesses at another; so
  // does a call the student's compute process never answered (marking mode), whose
  // message below is the whole story.
  std::string advice = it.fail_feedback.in(l);
  for (const test_record& rec : run->records)
    if (!rec.passed && !rec.failures.empty()) {
      const test_failure& first = rec.failures.front();
      for (const std::string& info : first.info)
        if (protocol::is_cause_line(info)) advice = info.substr(protocol::cause_prefix.size());
      if (first.kind == protocol::failure_kind::exception &&
          protocol::is_compute_failure(first.message))
        advice.clear();
      break;
    }
  r.feedback = advice + (advice.empty() ? "" : "\n") + failure_summary(*run, l);
  return r;
}

namespace {

// A unit's report before any item is scored: its id, title, maximum and pass line.
unit_report unit_header(const unit& u, lang l) {
  unit_report ur;
  ur.id = u.id;
  ur.title = u.title.in(l);
  ur.max_score = u.max_score;
  ur.pass_line = u.pass_line;
  return ur;
}

}  // namespace

unit_report score_unit(const manifest& m, const unit& u, const score_inputs& in, lang l) {
  unit_report ur = unit_header(u, l);
  for (const item& it : u.items) {
    const exercise& e = m.exercise_of(it);
    if (e.is_code()) {
      ur.items.push_back(score_code_item(it, e, in, l));
    } else {
      answers_result none;
      none.error = "no answers graded";
      const auto a = in.answers.find(e.id);
      ur.items.push_back(
          score_answers_item(it, a == in.answers.end() ? none : a->second, ur, u, in.overrides, l));
    }
  }
  for (const veto& v : u.vetoes) {
    const std::string tag = protocol::veto_tag(u.id, v.id);
    for (const tag_run& run : in.runs)
      if (run.tag == tag && veto_fired(run))
        ur.add_veto(v.id, v.title.in(l), tr(l, "代码：", "code: ") + veto_reason(run));
  }
  for (item_result& r : ur.items) {
    if (!r.reviewed) r.auto_points = r.points;
    if (const auto o = in.overrides.items.find(r.id); o != in.overrides.items.end())
      apply_override(r, o->second, l);
  }
  apply_veto_review(ur, u, in.overrides, l);
  ur.finish();
  return ur;
}

report score_report(const manifest& m, const resolved& what, const build_result& built,
                    test_runs runs, std::map<std::string, answers_result> answers, review overrides,
                    const grade_facts& facts) {
  const lang l = facts.language;
  report rep;
  rep.lesson = m.lesson;
  rep.title = m.title.in(l);
  rep.language = l;
  rep.submission = facts.submission;
  rep.seed = facts.seed;
  rep.isolation = facts.isolation;
  rep.isolation_level = facts.isolation_level;
  rep.isolation_detail = facts.isolation_detail;
  rep.mode = facts.marking ? "marking" : "practice";
  for (const auto& [id, b] : built.exercises)
    if (b.ok && !b.compute_binary.empty()) rep.judged_apart.push_back(b.file);
  // One blank at a time: the next to fill, and the command for its first hint.
  for (const source_file& f : what.files) {
    if (f.blanks.empty()) continue;
    const blank& next = f.blanks.front();
    const std::string name = hint_name(m, *f.ex, next.name);
    const std::string hint = name.empty() ? std::string()
                                          : trf(l, "，提示：grader hint {} {}",
                                                ", hint: grader hint {} {}", m.lesson, name);
    rep.messages.push_back(trf(l, "{0}：还有 {1} 个空没填；下一个：{2}（第 {3} 行）{5}",
                               "{0}: {1} {4} still empty; next: {2} (line {3}){5}",
                               display_path(f.path), f.blanks.size(), next.name, next.line,
                               f.blanks.size() == 1 ? "blank" : "blanks", hint));
  }
  // Said once, so nobody takes a C++ pass for "no memory errors" where none were looked for.
  if (built.sanitizers.starts_with("off") &&
      std::any_of(what.files.begin(), what.files.end(),
                  [](const source_file& f) { return f.ex->kind == "cpp"; }))
    rep.messages.push_back(
        trf(l, "本机不能运行 AddressSanitizer/UBSan（{}）：C++ 代码的内存错误没有检查",
            "AddressSanitizer/UBSan cannot be used here ({}): memory errors in the C++ code "
            "were not checked",
            built.sanitizers.substr(std::min<size_t>(built.sanitizers.size(), 5))));
  score_inputs in;
  in.lesson = m.lesson;
  in.lesson_manifest = &m;
  in.seed = facts.seed;
  if (!facts.marking)
    for (const auto& [id, b] : built.exercises)
      if (b.ok && b.compute_binary.empty() && !b.tests_binary.empty())
        in.rerun_binaries[id] = display_path(b.tests_binary);
  for (const source_file& f : what.files) {
    if (!f.ex->is_code() || built.built(f.ex->id)) continue;
    const auto b = built.exercises.find(f.ex->id);
    const build_failure failure{f.ex->file,
                                b == built.exercises.end() ? std::string() : b->second.diagnostics,
                                b != built.exercises.end() && b->second.timed_out};
    in.not_built[f.ex->id] = failure;
    rep.build_failures.push_back(failure);
  }
  for (const auto& [id, a] : answers) {
    if (!a.error.empty())
      rep.messages.push_back(
          trf(l, "答案文件无法读取：{}", "Cannot read the answers file: {}", a.error));
    if (!a.note.empty()) rep.messages.push_back(a.note);  // e.g. read as GB18030
  }
  rep.reused = runs.reused;
  in.runs = std::move(runs.runs);
  in.answers = std::move(answers);
  rep.review_file = overrides.file;
  in.overrides = std::move(overrides);
  for (const unit* u : what.units) rep.units.push_back(score_unit(m, *u, in, l));
  apply_source_findings(m, what, rep);
  score_blanks(m, what, in, rep);
  // A wrong blank's own test, to run again exactly (the same inputs: the seed).
  for (blank_state& b : rep.blanks)
    if (b.status == blank_status::fail && b.judged_alone)
      b.rerun = rerun_command(in, b.exercise, protocol::blank_tag(b.name));
  return rep;
}

void score_blanks(const manifest& m, const resolved& what, const score_inputs& in, report& rep) {
  for (const source_file& f : what.files) {
    if (!f.ex->is_code()) continue;
    // Every graded item of the exercise passes: each of its blanks is right as far as the
    // tests can tell, whether or not a test judges it alone.
    bool items_pass = true, any_item = false;
    for (const unit_report& u : rep.units)
      for (const item_result& it : u.items)
        for (const unit& mu : m.units)
          if (mu.id == u.id)
            for (const item& mi : mu.items)
              if (mi.id == it.id && mi.exercise == f.ex->id) {
                any_item = true;
                items_pass &= it.status == item_status::pass;
              }
    items_pass &= any_item;
    const tag_run* own = find_run(in, f.ex->id, std::string(protocol::blanks_tag));
    const bool built = !in.not_built.count(f.ex->id);
    // The blanks' tests ended early (a crash, a sanitizer's report, a timeout): the first
    // filled blank without a record is the one whose test was running.
    const bool crashed =
        own && (own->process.term_signal || own->process.exit_code == sanitizer_exit_code ||
                own->process.timed_out || own->process.output_exceeded ||
                own->process.memory_exceeded || own->process.processes_exceeded);
    bool crash_told = false;
    for (const blank& b : f.given_blanks.empty() ? f.blanks : f.given_blanks) {
      blank_state st{f.ex->id,
                     f.ex->file,
                     b.name,
                     b.line,
                     blank_status::filled,
                     {},
                     hint_name(m, *f.ex, b.name)};
      const bool empty = std::any_of(f.blanks.begin(), f.blanks.end(),
                                     [&](const blank& e) { return e.name == b.name; });
      const std::string tag = std::string(protocol::blank_tag_prefix) + b.name;
      const test_record* rec = nullptr;
      if (own)
        for (const test_record& r : own->records)
          if (std::find(r.tags.begin(), r.tags.end(), tag) != r.tags.end()) rec = &r;
      st.judged_alone = rec != nullptr;
      if (empty) {
        st.status = blank_status::empty;
      } else if (!built) {
        st.status = blank_status::error;
        st.detail = trf(rep.language, "{} 无法编译", "{} does not compile", f.ex->file);
      } else if (rec && rec->passed) {
        st.status = blank_status::pass;
      } else if (rec && !rec->blank.empty() && rec->blank != b.name) {
        st.status = blank_status::waiting;
        st.detail = rec->blank;
      } else if (rec && !rec->failures.empty()) {
        const test_failure& first = rec->failures.front();
        st.status = blank_status::fail;
        // The trace: the failure's message, else its INFO lines (not the seed's).
        st.detail = first.message;
        for (const std::string& info : first.info)
          if (st.detail.empty() && !info.empty() && !protocol::is_seed_line(info)) st.detail = info;
        if (st.detail.empty()) st.detail = first.expression;
        if (first.kind == protocol::failure_kind::fatal)  // a signal while its test ran
          st.detail = trf(rep.language, "测试在判它时崩溃：{}", "its test crashed: {}", st.detail);
      } else if (!rec && crashed && !crash_told) {
        crash_told = true;
        st.judged_alone = true;
        st.status = blank_status::fail;
        const std::string found = own->process.exit_code == sanitizer_exit_code
                                      ? sanitizer_summary(own->process.output, f.ex->file)
                                      : std::string();
        st.detail = trf(rep.language, "测试在判它时中止：{}", "its test stopped: {}",
                        found.empty() ? own->process.describe() : found);
      } else if (items_pass) {
        st.status = blank_status::pass;
      }
      rep.blanks.push_back(std::move(st));
    }
  }
}

namespace {

// Every item of exercise `e` scores 0, with `why` as its feedback.
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

// Why no count of a CUDA exercise can be trusted, from its first uninstrumented access.
std::string uninstrumented_reason(const exercise& e, const source_finding& first, lang l) {
  if (first.token.starts_with("#"))
    return trf(l,
               "{} 第 {} 行的 `{}` "
               "引入了另一个源文件（或由宏算出的文件），其中的代码不经过这里的"
               "检查，访存数字无法信任，本练习各项不给分",
               "{} line {}: `{}` brings in another source file (or one a macro names), whose "
               "code these checks never see, so no count of this exercise can be trusted and "
               "its items score 0",
               e.file, first.line, first.token);
  if (first.token == kEmulatorNamespace)
    return trf(l,
               "{} 第 {} 行用到了 `{}`：那是 CUDA 模拟器自己的接口，通过它可以改写模拟器记下的"
               "计数和报告，访存数字无法信任，本练习各项不给分",
               "{} line {}: `{}` is the CUDA emulator's own API, through which code can "
               "rewrite the counters and reports the emulator records, so no count of this "
               "exercise can be trusted and its items score 0",
               e.file, first.line, first.token);
  return trf(l,
             "{} 第 {} 行的 `{}` 让内存访问绕过了模拟器的计数（编译时关掉插桩、内联汇编、"
             "libc 拷贝或 ## 拼接），访存数字无法信任，本练习各项不给分",
             "{} line {}: `{}` takes memory accesses out of the emulator's counters (an "
             "attribute that turns its hooks off, inline assembly, a libc copy, or ## "
             "pasting that can spell one), so no count of this exercise can be trusted and "
             "its items score 0",
             e.file, first.line, first.token);
}

}  // namespace

void apply_source_findings(const manifest& m, const resolved& what, report& rep) {
  const lang l = rep.language;
  for (const source_file& f : what.files) {
    for (const outside_change& change : f.outside_blanks)
      rep.outside_blanks.push_back({f.ex->file, change});
    if (!f.outside_blanks.empty() && f.ex->outside_blanks_fail)
      fail_items_of(m, *f.ex, rep,
                    trf(l, "{} 在空以外有改动，本课不允许（见上方列表）",
                        "{} was edited outside its blanks, which this lesson does not allow "
                        "(see the list above)",
                        f.ex->file));
  }
  for (const source_file& f : what.files) {
    if (f.uninstrumented.empty()) continue;
    const std::string why = uninstrumented_reason(*f.ex, f.uninstrumented.front(), l);
    fail_items_of(m, *f.ex, rep, why);
    rep.messages.push_back(why);
  }
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
    unit_report ur = unit_header(u, l);
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
