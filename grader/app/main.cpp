// grader: builds a lesson's exercises with its tests, grades the Q&A answers, and
// prints the score, the vetoes and PASS/FAIL.
//   grader lesson13                        grade exercises/lesson13/ (the student's files)
//   grader lesson13 --answers              grade solutions/lesson13/ (instructors)
//   grader lesson13 --submission DIR       grade DIR's files (homework marking)
//   grader lesson13 --json report.json     also write the report as JSON
//   grader hint lesson13                   hints from the lesson's manifest
//   grader lesson13 --format json          the report on stdout as JSON instead of text
//   grader dev check [--only NAME] [--list] | dev sync | dev manifest   (instructors)
// Exit code: 0 passed, 1 failed, 2 could not grade.
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <cstdlib>
#include <fmt/format.h>
#include <fstream>
#include <iostream>
#include <nlohmann/json.hpp>
#include <random>

#include "grader/base/error.hpp"
#include "grader/base/files.hpp"
#include "grader/commands/dev.hpp"
#include "grader/commands/gpu.hpp"
#include "grader/lesson/manifest.hpp"
#include "grader/pipeline/grade.hpp"
#include "grader/pipeline/reporter.hpp"
#include "grader/pipeline/resolve.hpp"

namespace fs = std::filesystem;
using namespace grader;

namespace {

lang lang_from_env() {
  for (const char* var : {"LC_ALL", "LC_MESSAGES", "LANG"}) {
    const char* v = std::getenv(var);
    if (v && *v) return std::string_view(v).starts_with("zh") ? lang::zh : lang::en;
  }
  return lang::en;
}

// {"q1": 1.5, ...}: every key an item of the lesson, every value a number.
std::map<std::string, double> load_overrides(const std::string& file, const manifest& m) {
  std::ifstream in(file);
  if (!in) throw cannot_grade("cannot read the override file " + file);
  const auto j = nlohmann::json::parse(in, nullptr, false);
  if (j.is_discarded() || !j.is_object())
    throw cannot_grade(file + ": an override file is a JSON object {\"item id\": points}");
  std::map<std::string, double> out;
  for (const auto& [id, value] : j.items()) {
    bool known = false;
    for (const unit& u : m.units)
      for (const item& it : u.items) known |= it.id == id;
    if (!known) throw cannot_grade(file + ": \"" + id + "\" is not an item of " + m.lesson);
    if (!value.is_number()) throw cannot_grade(file + ": the points for \"" + id + "\" must be a number");
    double max_points = 0;
    for (const unit& u : m.units)
      for (const item& it : u.items)
        if (it.id == id) max_points = it.points;
    const double points = value.get<double>();
    if (!(points >= 0 && points <= max_points))
      throw cannot_grade(fmt::format("{}: \"{}\" is worth 0 to {:g} points, not {:g}", file, id,
                                     max_points, points));
    out[id] = points;
  }
  return out;
}

int fail_to_grade(const std::string& why) {
  std::cerr << "grader: cannot grade: " << why << "\n";
  return 2;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"Course grader: builds and tests a lesson's exercises, grades its questions.",
               "grader"};
  app.footer("Exit code: 0 passed, 1 failed, 2 could not grade.");

  std::string lesson, submission, json_file, unit, lang_name, root;
  bool answers = false;
  unsigned seed = std::random_device{}();
  double timeout_s = 10;
  app.add_option("lesson", lesson, "The lesson to grade, e.g. lesson13");
  auto* answers_flag =
      app.add_flag("--answers", answers, "Grade the solutions (the instructor's answer branch)");
  app.add_option("--submission", submission,
                 "Grade the files in this folder (named as in exercises/<lesson>/)")
      ->excludes(answers_flag);
  app.add_option("--json", json_file, "Also write the report as JSON to this file");
  std::string format = "text";
  app.add_option("--format", format, "The report's format on stdout")
      ->check(CLI::IsMember(reporter_formats()));
  app.add_option("--unit", unit, "Grade only this unit of the lesson");
  app.add_option("--lang", lang_name, "Language of the report: zh or en (default: from LANG)")
      ->check(CLI::IsMember({"zh", "en"}));
  auto* seed_option = app.add_option(
      "--seed", seed, "Random seed for the tests' inputs (default: fresh; implies --fresh)");
  app.add_option("--timeout", timeout_s, "Seconds each test process may run")
      ->check(CLI::PositiveNumber);
  app.add_option("--root", root,
                 "The course's root folder (default: found from the current folder)");
  std::string build_dir;
  bool gpu = false, fresh = false;
  std::string override_file;
  app.add_option("--override", override_file,
                 "JSON file {\"item id\": points} from an instructor's review; replaces those items' points");
  app.add_flag("--fresh", fresh,
               "Re-run every test, even those of test binaries unchanged since the last grade");
  app.add_flag(
      "--gpu", gpu,
      "Also build the CUDA exercises with nvcc, test them on this machine's GPU and time them");
  app.add_option("--build-dir", build_dir,
                 "The grading build tree (default: grade/<lesson> in the grader's build folder)");

  auto* hint = app.add_subcommand("hint", "Show the hints for a lesson's exercises");
  std::string hint_lesson;
  hint->add_option("lesson", hint_lesson, "The lesson")->required();

  auto* list = app.add_subcommand("list", "List the course's lessons");

  auto* dev = app.add_subcommand("dev", "Instructor tools")->require_subcommand(1);
  std::vector<std::string> dev_lessons;
  bool sync_check = false;
  auto* check = dev->add_subcommand(
      "check", "Exercises fail, solutions score full, mutants get their declared verdict");
  check->add_option("lessons", dev_lessons, "Lessons to check (default: all)");
  std::vector<std::string> only;
  bool list_checks = false;
  check->add_option("--only", only,
                    "Run only this check (repeatable); a name ending in ':' selects a group, "
                    "e.g. mutant:");
  check->add_flag("--list", list_checks, "List the checks and exit");
  check->add_option("--seed", seed, "Random seed for the tests' inputs (default: fresh)");
  auto* manifest_cmd =
      dev->add_subcommand("manifest", "Print a lesson's exercises as the grader reads them");
  std::string manifest_lesson;
  bool manifest_all = false;
  manifest_cmd->add_option("lesson", manifest_lesson, "The lesson")->required();
  manifest_cmd->add_flag("--all", manifest_all,
                         "Every exercise, not only the code ones (one line each: id kind file)");
  auto* sync = dev->add_subcommand("sync", "Regenerate exercises/ from solutions/");
  sync->add_option("lessons", dev_lessons, "Lessons to sync (default: all)");
  sync->add_flag("--check", sync_check, "Only report drift; exit 1 if any file differs");
  for (auto* sub : {hint, list, check, sync, manifest_cmd})
    sub->add_option("--root", root, "The course's root folder");

  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    const int code = app.exit(e);
    return code == 0 ? 0 : 2;
  }

  const bool explicit_seed = seed_option->count() > 0;
  const lang l = lang_name.empty() ? lang_from_env() : (lang_name == "zh" ? lang::zh : lang::en);
  try {
    const course c = find_course(root, fs::current_path());  // trees under our build dir

    if (*list) {
      for (const auto& name : c.lessons())
        fmt::print("{}  {}\n", name, load_manifest(c, name).title.in(l));
      return 0;
    }
    if (*hint) {
      const manifest m = load_manifest(c, hint_lesson);
      for (const auto& e : m.exercises) {
        fmt::print("{} ({})\n", e.title.in(l), e.file);
        for (const auto& h : (l == lang::zh ? e.hints_zh : e.hints_en)) fmt::print("  - {}\n", h);
      }
      return 0;
    }
    if (*manifest_cmd) {
      dev_manifest_files(load_manifest(c, manifest_lesson), manifest_all, std::cout);
      return 0;
    }
    if (*dev) {
      if (dev_lessons.empty()) dev_lessons = c.lessons();
      int failures = 0;
      for (const auto& name : dev_lessons) {
        const manifest m = load_manifest(c, name);
        if (*sync) {
          failures += dev_sync(c, m, sync_check, std::cout);
          if (!sync_check) failures = 0;
        } else {
          const auto r = dev_check(c, m, {seed, only, list_checks}, std::cout);
          failures += r.failed;
          for (const auto& name : r.unmatched)
            return fail_to_grade(fmt::format("no check named '{}' in {} (see dev check --list)",
                                             name, m.lesson));
        }
      }
      return failures == 0 ? 0 : 1;
    }

    if (lesson.empty()) {
      std::cerr << app.help();
      return 2;
    }
    const manifest m = load_manifest(c, lesson);
    if (gpu) require_gpu();  // before any grading: say so at once
    grade_request req;
    fs::path dir = answers              ? c.solutions_dir(lesson)
                   : submission.empty() ? c.exercises_dir(lesson)
                                        : fs::path(submission);
    req.files = submission_files(m, dir, {}, unit);
    req.label = display_path(fs::absolute(dir).lexically_normal());
    req.unit = unit;
    req.language = l;
    req.seed = seed;
    req.test_timeout = std::chrono::milliseconds(static_cast<long>(timeout_s * 1000));
    if (!build_dir.empty()) req.tree = fs::absolute(build_dir);
    req.fresh = fresh || explicit_seed;
    if (!override_file.empty()) req.overrides = load_overrides(override_file, m);
    report rep = grade(c, m, req);
    // Text goes out before the GPU part, which takes minutes; other formats hold
    // the whole report, so they wait for it.
    const bool color = isatty(STDOUT_FILENO) && !std::getenv("NO_COLOR");
    if (format == "text") make_reporter(format, {color})->write(rep, std::cout);
    if (gpu) {
      const gpu_section g = grade_gpu(c, m, req);
      rep.gpu = to_json(g);
      if (format == "text") std::cout << render_text(g, l);
    }
    if (format != "text") make_reporter(format, {color})->write(rep, std::cout);
    std::cout << std::flush;
    if (!json_file.empty()) {
      std::ofstream out(json_file);
      if (!out) return fail_to_grade("cannot write " + json_file);
      make_reporter("json")->write(rep, out);
    }
    return rep.passed() ? 0 : 1;
  } catch (const cannot_grade& e) {
    return fail_to_grade(e.what());
  } catch (const input_error& e) {
    return fail_to_grade(e.what());
  } catch (const std::exception& e) {
    return fail_to_grade(std::string("internal error: ") + e.what());
  }
}
