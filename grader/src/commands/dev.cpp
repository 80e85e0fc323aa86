// dev check (see dev.hpp); dev sync and dev manifest are in dev_sync.cpp.
#include "grader/commands/dev.hpp"

#include <fmt/format.h>
#include <fmt/ostream.h>

#include <algorithm>
#include <functional>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <set>
#include <sstream>

#include "course/protocol.hpp"
#include "grader/base/error.hpp"
#include "grader/base/files.hpp"
#include "grader/commands/hint.hpp"
#include "grader/lesson/answers.hpp"
#include "grader/lesson/regions.hpp"
#include "grader/pipeline/build.hpp"
#include "grader/pipeline/grade.hpp"
#include "grader/pipeline/resolve.hpp"

namespace fs = std::filesystem;
namespace protocol = ::course::protocol;

namespace grader {
namespace {

std::string join(const std::set<std::string>& s) {
  std::string out;
  for (const auto& x : s) out += (out.empty() ? "" : ", ") + x;
  return out.empty() ? "none" : out;
}

std::set<std::string> not_passed(const unit_report& u) {
  std::set<std::string> s;
  for (const auto& it : u.items)
    if (it.status != item_status::pass) s.insert(it.id);
  return s;
}

// The vetoes that count against the verdict (a lifted or cleared one is listed, not applied).
std::set<std::string> veto_ids(const unit_report& u) {
  std::set<std::string> s;
  for (const auto& v : u.vetoes)
    if (v.applies()) s.insert(v.id);
  return s;
}

std::set<std::string> lifted_ids(const unit_report& u) {
  std::set<std::string> s;
  for (const auto& v : u.vetoes)
    if (!v.applies()) s.insert(v.id);
  return s;
}

std::set<std::string> failed_builds(const report& r) {
  std::set<std::string> s;
  for (const auto& b : r.build_failures) s.insert(b.file);
  return s;
}

std::string verdict_text(const unit_report& u) {
  return fmt::format("{:g}/{:g}, not passed: {}; vetoes: {}; lifted: {}; {}{}", u.score,
                     u.max_score, join(not_passed(u)), join(veto_ids(u)), join(lifted_ids(u)),
                     u.passed ? "PASS" : "FAIL", u.provisional ? " (provisional)" : "");
}

// Two grades of one unit agree: every item's points and status, the vetoes, the verdict.
bool same_unit(const unit_report& a, const unit_report& b) {
  if (a.items.size() != b.items.size() || veto_ids(a) != veto_ids(b) || a.passed != b.passed ||
      a.score != b.score)
    return false;
  for (size_t i = 0; i < a.items.size(); ++i)
    if (a.items[i].id != b.items[i].id || a.items[i].points != b.items[i].points ||
        a.items[i].status != b.items[i].status)
      return false;
  return true;
}

const unit_report* find_unit(const report& r, const std::string& id) {
  for (const auto& u : r.units)
    if (u.id == id) return &u;
  return nullptr;
}

struct verdict {
  bool ok = false;
  std::string why;  // shown under a failed check
};

struct named_check {
  std::string name, description;
  std::function<verdict()> run;
};

// What the checks share, computed once and only when a selected check needs it.
class check_context {
 public:
  check_context(const course& c, const manifest& m, unsigned seed) : c_(c), m_(m) {
    base_.seed = seed;
    base_.language = lang::en;
    // Results are reused only from byte-identical test binaries run with this seed;
    // the solutions' grade runs everything afresh.
  }

  const course& c() const { return c_; }
  const manifest& m() const { return m_; }
  fs::path solutions() const { return c_.solutions_dir(m_.lesson); }
  fs::path scratch() const { return c_.scratch_dir(m_.lesson); }

  grade_request request(std::map<std::string, fs::path> files, std::string label,
                        std::string unit = {}) const {
    grade_request r = base_;
    r.files = std::move(files);
    r.label = std::move(label);
    r.unit = std::move(unit);
    return r;
  }

  const report& solved() {
    if (!solved_) {
      grade_request r = request(submission_files(m_, solutions()), "solutions");
      r.fresh = true;
      solved_ = grade(c_, m_, r);
    }
    return *solved_;
  }

  const report& untouched() {
    if (!untouched_)
      untouched_ =
          grade(c_, m_, request(submission_files(m_, c_.exercises_dir(m_.lesson)), "exercises"));
    return *untouched_;
  }

 private:
  const course& c_;
  const manifest& m_;
  grade_request base_;
  std::optional<report> solved_, untouched_;
};

verdict check_sync(check_context& cx) {
  std::ostringstream drift;
  return {dev_sync(cx.c(), cx.m(), true, drift) == 0, drift.str()};
}

// The manifest's hints cover exactly the BLANK(name)s of the exercise's file.
verdict check_hints(check_context& cx, const exercise& e) {
  const fs::path file = cx.c().exercises_dir(cx.m().lesson) / e.file;
  const std::string why = hint_blank_mismatch(e, find_blanks(read_text(file)));
  return {why.empty(), why};
}

verdict check_key_points(check_context& cx, const exercise& e) {
  const answer_key key = load_answer_key(cx.solutions() / e.key);
  std::string why;
  for (const unit& u : cx.m().units)
    for (const item& it : u.items)
      if (it.exercise == e.id && std::abs(key.points_of(it.id) - it.points) > 1e-9)
        why += fmt::format("{} has {:g} points in the key, {:g} in the manifest. ", it.id,
                           key.points_of(it.id), it.points);
  return {why.empty(), why};
}

verdict check_solutions(check_context& cx, const unit& u) {
  const unit_report* r = find_unit(cx.solved(), u.id);
  return {r && r->score == r->max_score && r->vetoes.empty() && r->passed &&
              cx.solved().build_failures.empty(),
          r ? verdict_text(*r) : "not graded"};
}

// Each code item has tests in its exercise's binary; every test tag is declared.
verdict check_tags(check_context& cx) {
  cx.solved();  // builds the solutions' binaries
  grading_tree tree(cx.c(), cx.m(), cx.c().grading_tree(cx.m().lesson));
  const build_result built =
      tree.build(submission_files(cx.m(), cx.solutions()), std::chrono::minutes(5));
  std::set<std::string> known, missing, unknown,
      declared{std::string(protocol::emulator_tag), std::string(protocol::baseline_tag)};
  std::map<std::string, std::map<std::string, int>> tags_of;
  for (const auto& [id, b] : built.exercises) {
    tags_of[id] = list_tags(b.tests_binary);
    for (const auto& [tag, count] : tags_of[id]) known.insert(tag);
  }
  for (const unit& u : cx.m().units) {
    for (const item& it : u.items)
      if (cx.m().exercise_of(it).is_code()) {
        declared.insert(protocol::item_tag(it.id));
        if (!tags_of[it.exercise].count(protocol::item_tag(it.id))) missing.insert(it.id);
      }
    for (const veto& v : u.vetoes) declared.insert(protocol::veto_tag(u.id, v.id));
  }
  // A blank's own tests (issue 24) name a blank of their exercise, as the given file has it.
  for (const auto& [id, tags] : tags_of) {
    const exercise* e = cx.m().find_exercise(id);
    if (!e) continue;
    std::set<std::string> blanks;
    for (const blank& b : find_blanks(read_text(cx.c().exercises_dir(cx.m().lesson) / e->file)))
      blanks.insert(protocol::blank_tag(b.name));
    for (const auto& [tag, count] : tags)
      if (tag == protocol::blanks_tag || blanks.count(tag)) known.erase(tag);
  }
  for (const auto& t : known)
    if (!declared.count(t)) unknown.insert(t);
  return {missing.empty() && unknown.empty(),
          fmt::format("items without tests: {}; tags not in the manifest: {}", join(missing),
                      join(unknown))};
}

verdict check_untouched(check_context& cx, const unit& u) {
  const unit_report* r = find_unit(cx.untouched(), u.id);
  if (!r) return {false, "not graded"};
  double code_points = 0;
  for (const item& it : u.items)
    if (cx.m().exercise_of(it).is_code())
      for (const auto& res : r->items)
        if (res.id == it.id) code_points += res.points;
  // A build failure would earn 0 points too, and prove nothing about the blanks.
  const bool built = cx.untouched().build_failures.empty();
  return {code_points == 0 && !r->passed && built,
          verdict_text(*r) + (built ? "" : "; an exercise does not compile")};
}

// Every untouched code file has blanks, the report counts them and names the first
// with its line and hint command, and each code exercise has an item whose tests
// stopped at one of its blanks (the reporter's structured signal, shown as "fill in
// blank `name` first").
verdict check_blanks(check_context& cx) {
  const report& r = cx.untouched();
  const auto files = submission_files(cx.m(), cx.c().exercises_dir(cx.m().lesson));
  std::string why;
  for (const exercise& e : cx.m().exercises) {
    if (!e.is_code()) continue;
    const auto blanks = find_blanks(read_text(files.at(e.file)));
    if (blanks.empty()) {
      why += e.file + " has no blank. ";
      continue;
    }
    bool listed = false, signalled = false;
    const std::string next = fmt::format("next: {} (line {})", blanks[0].name, blanks[0].line);
    for (const auto& msg : r.messages)
      listed |= msg.find(e.file) != std::string::npos &&
                msg.find(fmt::format(" {} blank", blanks.size())) != std::string::npos &&
                msg.find(next) != std::string::npos;
    for (const unit& u : cx.m().units)
      for (const item& it : u.items) {
        if (it.exercise != e.id) continue;
        const unit_report* ur = find_unit(r, u.id);
        for (const auto& res : ur ? ur->items : std::vector<item_result>{})
          for (const auto& b : blanks)
            signalled |=
                res.id == it.id && res.feedback.find("`" + b.name + "`") != std::string::npos;
      }
    if (!listed) why += e.file + "'s blanks are not counted, or the first is not named. ";
    if (!signalled) why += e.file + ": no item reports an unfilled blank. ";
  }
  return {why.empty(), why};
}

// A compile error in one exercise marks only that exercise's items, the report
// names that file alone, and every unit scores as it does graded alone (--unit).
verdict check_isolation(check_context& cx, const exercise& broken) {
  auto files = submission_files(cx.m(), cx.solutions());
  const fs::path dir = cx.scratch() / ("isolation-" + broken.id);
  fs::create_directories(dir);
  const fs::path bad = dir / broken.file;
  write_if_changed(bad, read_text(files.at(broken.file)) +
                            "\n// dev check: a deliberate compile error\nint broken = ;\n");
  files[broken.file] = bad;
  const report whole = grade(cx.c(), cx.m(), cx.request(files, "isolation " + broken.id));
  std::string why;
  if (failed_builds(whole) != std::set<std::string>{broken.file})
    why += fmt::format("files reported as not compiling: {} (want {}). ",
                       join(failed_builds(whole)), broken.file);
  for (const auto& b : whole.build_failures)
    if (b.diagnostics.find(broken.file) == std::string::npos)
      why += fmt::format("the diagnostics for {} do not name it: {}. ", b.file, b.diagnostics);
  for (const unit& u : cx.m().units) {
    const unit_report* in_whole = find_unit(whole, u.id);
    const report alone = grade(cx.c(), cx.m(), cx.request(files, "isolation " + broken.id, u.id));
    if (!in_whole || alone.units.size() != 1 || !same_unit(*in_whole, alone.units.front()))
      why += fmt::format("unit {}: {} in the whole lesson, {} alone. ", u.id,
                         in_whole ? verdict_text(*in_whole) : "missing",
                         alone.units.empty() ? "missing" : verdict_text(alone.units.front()));
    // The broken exercise's items are errors; every other item scores as in the
    // solutions' own grade.
    const unit_report* solved = find_unit(cx.solved(), u.id);
    for (const item& it : u.items) {
      const bool mine = it.exercise == broken.id;
      for (const auto& r : in_whole ? in_whole->items : std::vector<item_result>{}) {
        if (r.id != it.id) continue;
        if (mine != (r.status == item_status::error))
          why += fmt::format("item {} is {}. ", it.id, to_string(r.status));
        for (const auto& sr : solved && !mine ? solved->items : std::vector<item_result>{})
          if (sr.id == it.id && (sr.points != r.points || sr.status != r.status))
            why += fmt::format("item {} has {:g} points ({}), the solutions {:g} ({}). ", it.id,
                               r.points, to_string(r.status), sr.points, to_string(sr.status));
      }
    }
  }
  return {why.empty(), why};
}

// A mutant: the solution with the mutant folder's files laid over it and its
// "edits" applied (each `find` must occur exactly once, so a mutant cannot
// silently go stale when the solution changes).
struct mutant {
  std::string name;
  nlohmann::json spec;
  std::map<std::string, std::string> text;  // every exercise file, as the mutant has it
  std::set<std::string> changed;            // the files that differ from the solution
  std::string error;                        // a malformed, stale or empty mutant
};

// Reads a mutant and applies it in memory; nothing is written until it is checked.
mutant load_mutant(check_context& cx, const fs::path& dir) {
  mutant mu;
  mu.name = dir.filename().string();
  try {
    if (!fs::exists(dir / "mutant.json")) throw input_error("the folder has no mutant.json");
    mu.spec = nlohmann::json::parse(read_text(dir / "mutant.json"));
    const auto solution = submission_files(cx.m(), cx.solutions());
    // A file in the folder must be an exercise file it replaces: a misnamed one
    // would otherwise be ignored, and the mutant graded as the solution.
    for (const auto& entry : fs::directory_iterator(dir)) {
      const std::string name = entry.path().filename().string();
      if (name != "mutant.json" && !solution.count(name))
        throw input_error(fmt::format("{} is not an exercise file of {}", name, cx.m().lesson));
    }
    for (const auto& [file, path] : solution) mu.text[file] = read_text(path);
    for (const auto& [file, path] : solution)
      if (fs::exists(dir / file)) mu.text[file] = read_text(dir / file);
    for (const auto& e : mu.spec.value("edits", nlohmann::json::array())) {
      const std::string file = e.at("file"), find = e.at("find"), replace = e.at("replace");
      if (!mu.text.count(file)) throw input_error(fmt::format("edits unknown file {}", file));
      std::string& t = mu.text[file];
      const size_t at = t.find(find);
      if (at == std::string::npos || t.find(find, at + 1) != std::string::npos)
        throw input_error(
            fmt::format("\"{}\" must occur exactly once in {} (stale mutant?)", find, file));
      t.replace(at, find.size(), replace);
    }
    for (const auto& [file, path] : solution)
      if (mu.text[file] != read_text(path)) mu.changed.insert(file);
    if (mu.changed.empty()) throw input_error("the mutant changes nothing in the solution");
  } catch (const std::exception& e) {
    mu.error = e.what();
  }
  return mu;
}

// Every file is written out, so `grader --submission <folder>` reproduces the
// mutant; unchanged ones are graded from solutions/, so their binaries are reused.
std::map<std::string, fs::path> write_mutant(check_context& cx, const mutant& mu) {
  const auto solution = submission_files(cx.m(), cx.solutions());
  const fs::path out = cx.scratch() / "mutants" / mu.name;
  fs::create_directories(out);
  std::map<std::string, fs::path> files;
  for (const auto& [file, t] : mu.text) {
    write_if_changed(out / file, t);
    files[file] = mu.changed.count(file) ? out / file : solution.at(file);
  }
  return files;
}

// The blank whose solution region (BEGIN SOLUTION .. END SOLUTION) holds every line the
// mutant changed in `file`, or "" when the change is outside the regions or spans several.
std::string touched_blank(const std::string& solution, const std::string& changed) {
  const std::vector<std::string_view> a = split_lines(solution), b = split_lines(changed);
  size_t first = 0;
  while (first < a.size() && first < b.size() && a[first] == b[first]) ++first;
  size_t tail = 0;
  while (tail < a.size() - first && tail < b.size() - first &&
         a[a.size() - 1 - tail] == b[b.size() - 1 - tail])
    ++tail;
  const size_t last = a.size() - tail;  // solution lines [first, last) changed (or an insert)
  int begin = -1;
  std::string name;
  for (size_t i = 0; i < a.size(); ++i) {
    const std::string_view t = trim_ascii(a[i]);
    if (t.starts_with("// BEGIN SOLUTION")) {
      begin = static_cast<int>(i);
      name.clear();
    } else if (begin >= 0 && t.starts_with("// PROMPT") && name.empty()) {
      const std::vector<blank> found = find_blanks(std::string(t.substr(9)));
      if (found.size() == 1) name = found.front().name;
    } else if (begin >= 0 && t.starts_with("// END SOLUTION")) {
      if (static_cast<size_t>(begin) < first && last <= i) return name;
      begin = -1;
    }
  }
  return {};
}

// A mutant that changes one blank's answer: the report must name that blank as wrong, where
// a test judges it alone (issue 24: a wrong blank is named with its trace).
std::string blank_attribution(check_context& cx, const mutant& mu, const report& got) {
  if (mu.changed.size() != 1) return {};
  const std::string& file = *mu.changed.begin();
  const auto solution = submission_files(cx.m(), cx.solutions());
  const std::string name = touched_blank(read_text(solution.at(file)), mu.text.at(file));
  if (name.empty()) return {};
  for (const blank_state& b : got.blanks)
    if (b.file == file && b.name == name) {
      if (!b.judged_alone || b.status == blank_status::fail) return {};
      return fmt::format("changes blank `{}` of {}, but the report says it is {}{}\n", name, file,
                         to_string(b.status), b.detail.empty() ? "" : " (" + b.detail + ")");
    }
  return {};
}

verdict check_mutant(check_context& cx, const mutant& mu) {
  if (!mu.error.empty()) return {false, mu.error};
  const auto& spec = mu.spec;
  const auto expect = spec.value("expect", nlohmann::json::object());
  const std::string unit_id = spec.value("unit", cx.m().units.front().id);
  const auto want_failed = expect.value("failed_items", std::set<std::string>{});
  const auto want_vetoes = expect.value("vetoes", std::set<std::string>{});
  const auto want_builds = expect.value("build_failures", std::set<std::string>{});
  const bool want_pass = expect.value("passed", want_failed.empty() && want_vetoes.empty());
  const auto want_lifted = expect.value("lifted", std::set<std::string>{});
  grade_request r = cx.request(write_mutant(cx, mu), "mutant " + mu.name);
  if (spec.contains("test_timeout_s"))
    r.test_timeout =
        std::chrono::milliseconds(static_cast<long>(spec["test_timeout_s"].get<double>() * 1000));
  const report got = grade(cx.c(), cx.m(), r);
  std::string why;
  const unit_report* u = find_unit(got, unit_id);
  if (!u) return {false, "no unit " + unit_id};
  const bool provisional_ok =
      !expect.contains("provisional") || expect["provisional"].get<bool>() == u->provisional;
  if (not_passed(*u) != want_failed || veto_ids(*u) != want_vetoes ||
      lifted_ids(*u) != want_lifted || u->passed != want_pass || !provisional_ok)
    why += fmt::format("declared not passed: {}; vetoes: {}; lifted: {}; {}{}\ngot {}\n",
                       join(want_failed), join(want_vetoes), join(want_lifted),
                       want_pass ? "PASS" : "FAIL",
                       !expect.contains("provisional")     ? ""
                       : expect["provisional"].get<bool>() ? " (provisional)"
                                                           : " (not provisional)",
                       verdict_text(*u));
  // Only where the mutant fails something: a correct rewrite of a blank names nothing.
  if (!want_pass || !want_failed.empty()) why += blank_attribution(cx, mu, got);
  if (failed_builds(got) != want_builds)
    why += fmt::format("declared build failures: {}; got {}\n", join(want_builds),
                       join(failed_builds(got)));
  // Graded on the whole lesson: a failure must not leak into another unit.
  for (const auto& other : got.units) {
    if (other.id == unit_id) continue;
    const unit_report* sol = find_unit(cx.solved(), other.id);
    if (!sol || !same_unit(other, *sol))
      why += fmt::format("unit {} changed: {} (the solutions: {})\n", other.id, verdict_text(other),
                         sol ? verdict_text(*sol) : "missing");
  }
  if (!why.empty())
    why += fmt::format("reproduce: grader {} --submission {}", cx.m().lesson,
                       display_path(cx.scratch() / "mutants" / mu.name));
  return {why.empty(), why};
}

std::vector<named_check> all_checks(check_context& cx) {
  std::vector<named_check> checks;
  auto add = [&](std::string name, std::string description, std::function<verdict()> run) {
    checks.push_back({std::move(name), std::move(description), std::move(run)});
  };
  const manifest& m = cx.m();
  add("sync", "exercises/ is generated from solutions/", [&] { return check_sync(cx); });
  for (const exercise& e : m.exercises)
    if (e.is_code())
      add("hints:" + e.id,
          fmt::format("every blank of {} has hints, and every hint names a blank of it", e.file),
          [&cx, &e] { return check_hints(cx, e); });
  for (const exercise& e : m.exercises)
    if (e.kind == "answers")
      add("key:" + e.id, fmt::format("answer key {} matches the manifest's points", e.key),
          [&cx, &e] { return check_key_points(cx, e); });
  // The untouched exercises first: their files differ from the solutions', so
  // grading them before the solutions keeps later builds incremental.
  for (const unit& u : m.units)
    add("untouched:" + u.id,
        fmt::format("untouched exercises earn 0 code points and FAIL in {}", u.id),
        [&cx, &u] { return check_untouched(cx, u); });
  add("blanks", "the report counts each untouched code file's blanks and names the next one",
      [&] { return check_blanks(cx); });
  for (const unit& u : m.units)
    add("solutions:" + u.id, fmt::format("solutions score full marks in {}", u.id),
        [&cx, &u] { return check_solutions(cx, u); });
  add("tags",
      "every code item has tests in its exercise's binary; every test tag is in the manifest, "
      "names a blank of its exercise, or is [emulator] or [baseline]",
      [&] { return check_tags(cx); });

  // Mutants, ordered by the files they change, so consecutive ones rebuild little.
  std::vector<mutant> mutants;
  const fs::path dir = cx.c().mutants_dir(m.lesson);
  if (fs::is_directory(dir))
    for (const auto& d : fs::directory_iterator(dir))
      if (d.is_directory()) mutants.push_back(load_mutant(cx, d.path()));
  std::sort(mutants.begin(), mutants.end(), [](const mutant& a, const mutant& b) {
    return std::tie(a.changed, a.name) < std::tie(b.changed, b.name);
  });
  if (mutants.empty())
    add("mutants", "mutants exist in " + display_path(dir), [] { return verdict{false, {}}; });
  for (mutant& mu : mutants) {
    const std::string name = "mutant:" + mu.name;
    const std::string description = mu.spec.is_object() ? mu.spec.value("description", "") : "";
    add(name, description, [&cx, mu = std::move(mu)] { return check_mutant(cx, mu); });
  }
  for (const exercise& e : m.exercises)
    if (e.is_code())
      add("isolation:" + e.id,
          fmt::format("a compile error in {} changes no other exercise's items, graded whole or "
                      "by unit",
                      e.file),
          [&cx, &e] { return check_isolation(cx, e); });
  return checks;
}

bool selected(const std::string& name, const std::vector<std::string>& only) {
  if (only.empty()) return true;
  for (const auto& o : only)
    if (o == name || (o.ends_with(':') && name.starts_with(o))) return true;
  return false;
}

}  // namespace

bool instructor_commands_built() {
  return true;
}

dev_check_result dev_check(const course& c, const manifest& m, const dev_check_options& o,
                           std::ostream& out) {
  check_context cx(c, m, o.seed);
  const auto checks = all_checks(cx);
  dev_check_result result;
  for (const auto& name : o.only) {
    bool any = false;
    for (const auto& ch : checks) any |= selected(ch.name, {name});
    if (!any) result.unmatched.push_back(name);
  }
  if (o.list) {
    for (const auto& ch : checks) fmt::print(out, "{}  {}\n", ch.name, ch.description);
    return result;
  }
  fmt::print(out, "dev check {} (seed {})\n", m.lesson, o.seed);
  std::string failures;  // repeated at the end, where a truncated CI log still shows them
  for (const auto& ch : checks) {
    if (!selected(ch.name, o.only)) continue;
    verdict v;
    try {
      v = ch.run();
    } catch (const std::exception& e) {
      v = {false, std::string("could not run: ") + e.what()};
    }
    (v.ok ? result.passed : result.failed)++;
    std::string line = fmt::format("  {} {}  {}", v.ok ? "ok  " : "FAIL", ch.name, ch.description);
    if (!v.ok)  // split_lines gives views into v.why, which lives on
      for (std::string_view l : split_lines(v.why)) line += fmt::format("\n         {}", l);
    fmt::print(out, "{}\n", line);
    if (!v.ok) failures += line + "\n";
    out.flush();
  }
  if (!failures.empty()) fmt::print(out, "failed (seed {}):\n{}", o.seed, failures);
  fmt::print(out, "{} passed, {} failed\n", result.passed, result.failed);
  return result;
}

}  // namespace grader
