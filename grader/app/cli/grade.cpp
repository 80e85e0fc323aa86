// `grader <lesson>` (practice: the student's files, --answers or --submission DIR) and
// `grader mark <lesson> DIR` (marking): the options, the grade, the reports written.
#include <unistd.h>

#include <fmt/format.h>

#include <cstdlib>
#include <iostream>
#include <sstream>

#include "cli.hpp"
#include "grader/base/error.hpp"
#include "grader/base/files.hpp"
#include "grader/base/text.hpp"
#include "grader/lesson/answers.hpp"
#include "grader/lesson/review.hpp"
#include "grader/pipeline/gpu.hpp"
#include "grader/pipeline/grade.hpp"
#include "grader/pipeline/reporter.hpp"
#include "grader/pipeline/resolve.hpp"

namespace fs = std::filesystem;

namespace grader::cli {

void declare_grade(CLI::App& app, options& o) {
  app.footer("Exit code: 0 passed, 1 failed, 2 could not grade.");
  app.add_option("lesson", o.lesson, "The lesson to grade, e.g. lesson13");
  auto* answers_flag =
      app.add_flag("--answers", o.answers, "Grade the solutions (the instructor's answer branch)");
  app.add_option("--submission", o.submission,
                 "Grade the files in this folder (named as in exercises/<lesson>/)")
      ->excludes(answers_flag);
  add_output_options(app, o);
  add_unit_option(app, o);
  add_lang_option(app, o);
  add_seed_option(app, o,
                  "Seed for the tests' random inputs (default: fixed per lesson, so the same "
                  "files always get the same report; the report prints it)");
  add_limit_options(app, o);
  add_root_option(app, o);
  app.add_option("--override", o.override_file,
                 "JSON file {\"item id\": points} from an instructor's review; replaces those "
                 "items' points");
  add_sandbox_options(app, o, sandbox_use::grade);
  add_runner_option(app, o);
  app.add_flag("--fresh", o.fresh,
               "Re-run every test, even those of test binaries unchanged since the last grade");
  app.add_flag(
      "--gpu", o.gpu,
      "Also build the CUDA exercises with nvcc, test them on this machine's GPU and time them");
  app.add_option("--build-dir", o.build_dir,
                 "The grading build tree (default: grade/<lesson> in the grader's build folder)");

  o.mark = app.add_subcommand(
      "mark",
      "Mark a student's submission (CI): only the manifest's files are taken from it, the "
      "tests include hidden ones, the verdicts come from a process with no student code where "
      "the lesson allows, and everything runs in the sandbox");
  o.mark->add_option("lesson", o.lesson, "The lesson")->required();
  o.mark->add_option("submission", o.submission, "The student's folder")->required();
  add_output_options(*o.mark, o);
  add_unit_option(*o.mark, o);
  add_lang_option(*o.mark, o);
  add_seed_option(*o.mark, o, "Seed for the tests' inputs (default: fixed per lesson)");
  add_limit_options(*o.mark, o);
  o.mark->add_option("--build-dir", o.build_dir, "The grading build tree (<dir>-mark is used)");
  o.mark->add_option("--override", o.override_file,
                     "JSON file from an instructor's review (docs/review.schema.json; grader "
                     "review writes them): replaces those items', parts' and vetoes' verdicts");
  add_sandbox_options(*o.mark, o, sandbox_use::mark);
  add_runner_option(*o.mark, o);
  add_root_option(*o.mark, o);
}

namespace {

// The instructor's review file, checked against the lesson's items, units, vetoes
// and the parts of its answer keys.
review load_overrides(const course& c, const std::string& file, const manifest& m) {
  std::map<std::string, double> part_points;
  for (const exercise& e : m.exercises)
    if (e.kind == "answers")
      for (const key_part& p : load_answer_key(c.solutions_dir(m.lesson) / e.key).parts)
        part_points[p.id] = p.points;
  try {
    return load_review(file, m, part_points);
  } catch (const input_error& e) {
    throw cannot_grade(e.what());
  }
}

// The files asked for, as FORMAT=FILE: each --write, and --json FILE.
std::vector<std::string> report_files(const options& o) {
  std::vector<std::string> files = o.writes;
  if (!o.json_file.empty()) files.push_back("json=" + o.json_file);
  return files;
}

// One of them. Replaced, never followed: a planted symlink stays harmless. Throws
// cannot_grade when it cannot be written.
void write_report(const report& rep, const std::string& spec) {
  const auto eq = spec.find('=');
  std::ostringstream out;
  make_reporter(spec.substr(0, eq))->write(rep, out);
  write_replacing(spec.substr(eq + 1), out.str());
}

// The files asked for (--json, --write) when nothing could be graded: each says why, so a
// CI job or a batch finds a report where it looks for one. Best effort: the exit code and
// the one line on stderr stay the verdict.
void write_ungraded(const manifest& m, const options& o, lang l, const std::string& why) {
  const std::vector<std::string> files = report_files(o);
  if (files.empty()) return;
  const std::string label = o.answers              ? "solutions"
                            : o.submission.empty() ? "exercises"
                                                   : display_path(o.submission);
  const report rep = ungraded_report(m, o.unit, l, label, why);
  for (const std::string& spec : files) {
    try {
      write_report(rep, spec);
    } catch (const std::exception&) {
    }
  }
}

// What the options ask of the grade: the limits, the seed, the sandbox, the review.
void set_request_options(const course& c, const manifest& m, const options& o, grade_request& req) {
  const bool marking = static_cast<bool>(*o.mark);
  req.marking = marking;
  req.unit = o.unit;
  req.seed = o.explicit_seed ? o.seed : lesson_seed(o.lesson);
  req.test_timeout = std::chrono::milliseconds(static_cast<long>(o.timeout_s * 1000));
  req.build_timeout = std::chrono::seconds(o.build_timeout_s);
  if (!o.build_dir.empty()) req.tree = fs::absolute(o.build_dir);
  req.fresh = o.fresh;
  req.gpu = o.gpu;
  if (o.runner != "auto") req.runner = o.runner;
  if (o.sandbox != "auto")
    req.sandbox = o.sandbox == "off" ? isolation::none
                                     : *isolation_named(o.sandbox == "on" ? "full" : o.sandbox);
  // Marking requires the full level unless told otherwise.
  const std::string require = !o.require_sandbox.empty()       ? o.require_sandbox
                              : marking && !o.allow_unconfined ? "full"
                                                               : "none";
  req.require = *isolation_named(require);
  if (!o.override_file.empty()) req.overrides = load_overrides(c, o.override_file, m);
}

}  // namespace

report grade_for(const course& c, const manifest& m, const options& o, lang l) {
  grade_request req;
  const fs::path dir = o.answers              ? c.solutions_dir(o.lesson)
                       : o.submission.empty() ? c.exercises_dir(o.lesson)
                                              : fs::path(o.submission);
  // A submitted folder (marking or --submission) is read once, into copies of ours: a
  // link, a special file or a file over 1 MiB is refused with its name.
  const bool staging = *o.mark || !o.submission.empty();
  scratch_folder incoming;
  staged_submission staged;
  if (staging) {
    staged = stage_submission(m, dir, incoming.path(), o.unit);
    req.files = staged.files;
  } else {
    req.files = submission_files(m, dir, {}, o.unit);
  }
  req.label = display_path(fs::absolute(dir).lexically_normal());
  req.language = l;
  set_request_options(c, m, o, req);
  if (o.gpu) require_gpu();  // no GPU: refused before anything is said of grading on one
  if (o.gpu)                 // the GPU's part takes minutes, and the report waits for it
    std::cerr << "grader: --gpu: grading on the emulator, then building with nvcc and testing "
                 "on the GPU (minutes)\n";
  report rep = grade(c, m, req);
  rep.ignored_files = staged.ignored;
  if (staging) {  // the grader read our copies; the student knows their own folder
    const std::string ours = incoming.path().string(),
                      theirs = display_path(fs::absolute(dir).lexically_normal());
    for (auto& b : rep.build_failures) b.diagnostics = replaced(b.diagnostics, ours, theirs);
    for (auto& text : rep.messages) text = replaced(text, ours, theirs);
  }
  return rep;
}

namespace {

int grade_and_report(const course& c, const manifest& m, const options& o, lang l) {
  const report rep = grade_for(c, m, o, l);
  const bool color = isatty(STDOUT_FILENO) && !std::getenv("NO_COLOR");
  make_reporter(o.format, {color})->write(rep, std::cout);
  std::cout << std::flush;
  for (const std::string& spec : report_files(o)) {
    try {
      write_report(rep, spec);
    } catch (const cannot_grade& e) {
      return fail_to_grade(e.what());
    }
  }
  return rep.passed() ? 0 : 1;
}

}  // namespace

int run_grade(const course& c, const options& o, lang l) {
  const manifest m = load_manifest(c, o.lesson);
  try {
    return grade_and_report(c, m, o, l);
  } catch (const cannot_grade& e) {
    write_ungraded(m, o, l, e.what());
    throw;
  } catch (const input_error& e) {
    write_ungraded(m, o, l, e.what());
    throw;
  }
}

}  // namespace grader::cli
