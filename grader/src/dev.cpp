// dev sync and dev check (see dev.hpp).
#include "grader/dev.hpp"

#include <fmt/format.h>
#include <fmt/ostream.h>

#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>

#include "grader/answers.hpp"
#include "grader/build.hpp"
#include "grader/catch_run.hpp"
#include "grader/error.hpp"
#include "grader/files.hpp"
#include "grader/grade.hpp"
#include "grader/regions.hpp"

namespace fs = std::filesystem;

namespace grader {
namespace {

std::string join(const std::set<std::string>& s) {
  std::string out;
  for (const auto& x : s) out += (out.empty() ? "" : ", ") + x;
  return out.empty() ? "none" : out;
}

// Line number of the first difference, for a drift message.
int first_difference(const std::string& a, const std::string& b) {
  const auto la = split_lines(a), lb = split_lines(b);
  size_t i = 0;
  while (i < la.size() && i < lb.size() && la[i] == lb[i]) ++i;
  return static_cast<int>(i + 1);
}

struct checker {
  std::ostream& out;
  dev_check_result result;
  void verdict(bool ok, const std::string& what, const std::string& why = {}) {
    (ok ? result.passed : result.failed)++;
    fmt::print(out, "  {} {}{}\n", ok ? "ok  " : "FAIL", what,
               why.empty() ? "" : "\n         " + why);
    out.flush();
  }
};

std::set<std::string> not_passed(const unit_report& u) {
  std::set<std::string> s;
  for (const auto& it : u.items)
    if (it.status != item_status::pass) s.insert(it.id);
  return s;
}

std::set<std::string> veto_ids(const unit_report& u) {
  std::set<std::string> s;
  for (const auto& v : u.vetoes) s.insert(v.id);
  return s;
}

std::string verdict_text(const unit_report& u) {
  return fmt::format("{:g}/{:g}, not passed: {}; vetoes: {}; {}", u.score, u.max_score,
                     join(not_passed(u)), join(veto_ids(u)), u.passed ? "PASS" : "FAIL");
}

// A mutant is the solution with the mutant folder's files laid over it and its
// "edits" applied (each `find` must occur exactly once, so a mutant cannot
// silently go stale when the solution changes). Every file is written to
// out_root/<name>/, which `grader <lesson> --submission` can grade by hand.
std::map<std::string, fs::path> materialise_mutant(const course& c, const manifest& m,
                                                   const fs::path& dir, const nlohmann::json& spec,
                                                   const fs::path& out_root) {
  std::map<std::string, fs::path> files = submission_files(m, dir, c.solutions_dir(m.lesson));
  const std::string name = dir.filename().string();
  std::map<std::string, std::string> edited;
  for (const auto& [file, path] : files) edited[file] = read_text(path);
  for (const auto& e : spec.value("edits", nlohmann::json::array())) {
    const std::string file = e.at("file"), find = e.at("find"), replace = e.at("replace");
    if (!files.count(file))
      throw input_error(fmt::format("mutant {}: edits unknown file {}", name, file));
    std::string& text = edited[file];
    const size_t at = text.find(find);
    if (at == std::string::npos || text.find(find, at + 1) != std::string::npos)
      throw input_error(fmt::format(
          "mutant {}: \"{}\" must occur exactly once in {} (stale mutant?)", name, find, file));
    text.replace(at, find.size(), replace);
  }
  const fs::path out = out_root / name;
  fs::create_directories(out);
  for (const auto& [file, text] : edited) {
    write_if_changed(out / file, text);
    files[file] = out / file;
  }
  return files;
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
      std::ofstream(student, std::ios::binary) << want;
      fmt::print(out, "wrote {}\n", display_path(student));
    }
  }
  return changed;
}

dev_check_result dev_check(const course& c, const manifest& m, unsigned seed, std::ostream& out) {
  checker ck{out, {}};
  fmt::print(out, "dev check {} (seed {})\n", m.lesson, seed);

  // 1. One source: the exercises are what the solutions generate.
  std::ostringstream drift;
  const int drifted = dev_sync(c, m, true, drift);
  ck.verdict(drifted == 0, "exercises/ is generated from solutions/", drift.str());

  // 2. The answer keys give each item exactly its points.
  for (const exercise& e : m.exercises) {
    if (e.kind != "answers") continue;
    const answer_key key = load_answer_key(c.solutions_dir(m.lesson) / e.key);
    std::string why;
    for (const unit& u : m.units)
      for (const item& it : u.items)
        if (it.exercise == e.id && std::abs(key.points_of(it.id) - it.points) > 1e-9)
          why += fmt::format("{} has {:g} points in the key, {:g} in the manifest. ", it.id,
                             key.points_of(it.id), it.points);
    ck.verdict(why.empty(), fmt::format("answer key {} matches the manifest's points", e.key), why);
  }

  grade_request base;
  base.seed = seed;
  base.fresh = true;  // every verdict from a run of this check
  base.language = lang::en;

  // 3. The solutions: full marks, no veto. Also proves every item has tests.
  grade_request sol = base;
  sol.files = submission_files(m, c.solutions_dir(m.lesson));
  sol.label = "solutions";
  const report solved = grade(c, m, sol);
  for (const unit_report& u : solved.units)
    ck.verdict(u.score == u.max_score && u.vetoes.empty() && u.passed,
               fmt::format("solutions score full marks in {}", u.id), verdict_text(u));

  // Each code item has tests in its exercise's binary; every test tag is declared.
  {
    grading_tree tree(c, m, c.grading_tree(m.lesson));
    const build_outcome built = tree.build(sol.files, std::chrono::minutes(5));
    std::set<std::string> known, missing, unknown, declared;
    for (const auto& [id, b] : built.exercises)
      for (const auto& [tag, count] : list_tags(b.tests_binary)) known.insert(tag);
    for (const unit& u : m.units) {
      for (const item& it : u.items)
        if (m.exercise_of(it).is_code()) {
          declared.insert("[" + it.id + "]");
          const auto& b = built.exercises.at(it.exercise);
          if (!list_tags(b.tests_binary).count("[" + it.id + "]")) missing.insert(it.id);
        }
      for (const veto& v : u.vetoes) declared.insert("[veto:" + u.id + ":" + v.id + "]");
    }
    declared.insert(
        "[emulator]");  // marks tests that need the emulator's counters (skipped on a GPU)
    for (const auto& t : known)
      if (!declared.count(t)) unknown.insert(t);
    ck.verdict(
        missing.empty() && unknown.empty(),
        "every code item has tests in its exercise's binary; every test tag is in the manifest",
        fmt::format("items without tests: {}; tags not in the manifest: {}", join(missing),
                    join(unknown)));
  }

  // 4. The untouched exercises: no code points, FAIL, and the blanks are named.
  grade_request ex = base;
  ex.files = submission_files(m, c.exercises_dir(m.lesson));
  ex.label = "exercises";
  const report untouched = grade(c, m, ex);
  for (const unit_report& u : untouched.units) {
    double code_points = 0;
    for (const item& it : m.units[&u - untouched.units.data()].items)
      if (m.exercise_of(it).is_code())
        for (const auto& r : u.items)
          if (r.id == it.id) code_points += r.points;
    ck.verdict(code_points == 0 && !u.passed,
               fmt::format("untouched exercises earn 0 code points and FAIL in {}", u.id),
               verdict_text(u));
  }
  bool names_blanks = false;
  for (const auto& msg : untouched.messages)
    names_blanks |= msg.find("still empty") != std::string::npos;
  bool all_have_blanks = true;
  for (const exercise& e : m.exercises)
    if (e.is_code()) all_have_blanks &= !find_blanks(read_text(ex.files.at(e.file))).empty();
  ck.verdict(names_blanks && all_have_blanks,
             "the untouched C++ files report their unfilled blanks by name");

  // 5. Mutants: each gets exactly the verdict it declares.
  const fs::path mutants = c.mutants_dir(m.lesson);
  std::vector<fs::path> dirs;
  if (fs::is_directory(mutants))
    for (const auto& d : fs::directory_iterator(mutants))
      if (fs::exists(d.path() / "mutant.json")) dirs.push_back(d.path());
  std::sort(dirs.begin(), dirs.end());
  for (const fs::path& dir : dirs) {
    const std::string name = dir.filename().string();
    nlohmann::json spec;
    try {
      spec = nlohmann::json::parse(read_text(dir / "mutant.json"));
    } catch (const nlohmann::json::exception& e) {
      ck.verdict(false, "mutant " + name, e.what());
      continue;
    }
    const auto expect = spec.value("expect", nlohmann::json::object());
    const std::string unit_id = spec.value("unit", m.units.front().id);
    const auto want_failed = expect.value("failed_items", std::set<std::string>{});
    const auto want_vetoes = expect.value("vetoes", std::set<std::string>{});
    grade_request mr = base;
    mr.label = "mutant " + name;
    mr.unit = unit_id;
    if (spec.contains("test_timeout_s"))
      mr.test_timeout =
          std::chrono::milliseconds(static_cast<long>(spec["test_timeout_s"].get<double>() * 1000));
    try {
      mr.files = materialise_mutant(
          c, m, dir, spec, c.grading_tree(m.lesson).parent_path() / (m.lesson + "-mutants"));
    } catch (const input_error& e) {
      ck.verdict(false, "mutant " + name, e.what());
      continue;
    }
    const report got = grade(c, m, mr);
    const unit_report& u = got.units.front();
    const bool want_pass = want_failed.empty() && want_vetoes.empty();
    const bool ok = not_passed(u) == want_failed && veto_ids(u) == want_vetoes &&
                    u.passed == expect.value("passed", want_pass);
    ck.verdict(ok, fmt::format("mutant {}: {}", name, spec.value("description", "")),
               ok ? ""
                  : fmt::format("declared not passed: {}; vetoes: {}\n         got {}\n         "
                                "reproduce: grader {} --submission {}",
                                join(want_failed), join(want_vetoes), verdict_text(u), m.lesson,
                                display_path(c.grading_tree(m.lesson).parent_path() /
                                             (m.lesson + "-mutants") / name)));
  }
  if (dirs.empty()) ck.verdict(false, "mutants exist in " + display_path(mutants));

  fmt::print(out, "{} passed, {} failed\n", ck.result.passed, ck.result.failed);
  return ck.result;
}

}  // namespace grader
