// grader: builds a lesson's exercises with its tests, grades the Q&A answers, and
// prints the score, the vetoes and PASS/FAIL.
//   grader lesson13                        grade exercises/lesson13/ (the student's files)
//   grader lesson13 --answers              grade solutions/lesson13/ (instructors)
//   grader lesson13 --submission DIR       grade DIR's files (homework marking)
//   grader lesson13 --json report.json     also write the report as JSON
//   grader hint lesson13 [blank] [--level N] hints, one blank and one level at a time
//   grader lesson13 --format json          the report on stdout as JSON instead of text
//   grader dev check [--only NAME] [--list] | dev sync | dev manifest   (instructors)
//   grader dev release lesson13 --out ../student   the course as students get it
// Exit code: 0 passed, 1 failed, 2 could not grade.
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <cstdlib>
#include <fmt/format.h>

#include <algorithm>
#include <fstream>
#include <iostream>
#include <nlohmann/json.hpp>
#include <random>
#include <sstream>

#include "grader/base/error.hpp"
#include "grader/base/files.hpp"
#include "grader/base/text.hpp"
#include "grader/commands/dev.hpp"
#include "grader/commands/batch.hpp"
#include "grader/commands/review_queue.hpp"
#include "grader/commands/gpu.hpp"
#include "grader/commands/gradescope.hpp"
#include "grader/commands/release.hpp"
#include "grader/commands/hint.hpp"
#include "grader/lesson/answers.hpp"
#include "grader/lesson/manifest.hpp"
#include "grader/lesson/review.hpp"
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

// One line, whatever the reason quotes (a student's path may hold a newline or an
// escape sequence): a forged second line never reaches the terminal or a batch's log.
int fail_to_grade(const std::string& why) {
  std::cerr << "grader: cannot grade: " << one_line(why) << "\n";
  return 2;
}

// Everything the command line says.
struct options {
  std::string lesson, submission, json_file, unit, lang_name, root, build_dir, override_file;
  std::string sandbox = "auto", require_sandbox;
  std::string format = "text";
  std::vector<std::string> writes;  // --write FORMAT=FILE, each written after the grade
  bool answers = false, gpu = false, fresh = false, explicit_seed = false;
  unsigned seed = std::random_device{}();
  double timeout_s = 10;
  int build_timeout_s = 300;
  // Subcommands.
  std::string hint_lesson, hint_blank, manifest_lesson;
  int hint_level = 0;
  std::vector<std::string> dev_lessons, only;
  bool sync_check = false, list_checks = false, manifest_all = false;
  std::string release_lesson, release_out, gradescope_lesson, gradescope_out;
  CLI::App* gradescope = nullptr;
  CLI::App* release = nullptr;
  CLI::App* mark = nullptr;
  CLI::App* batch = nullptr;
  std::string batch_submissions, batch_out, shard;
  unsigned jobs = 1;
  bool force = false;
  std::vector<std::string> batch_formats, merge_parts;
  bool allow_unconfined = false;
  CLI::App* review = nullptr;
  std::string review_dir, reviewer;
  bool review_all = false, review_list = false, no_remark = false;
  CLI::App *hint = nullptr, *list = nullptr, *dev = nullptr, *check = nullptr, *sync = nullptr,
           *manifest = nullptr;
};

// --write FORMAT=FILE: a known format and a file name.
const CLI::Validator write_spec(
    [](std::string& spec) -> std::string {
      const auto eq = spec.find('=');
      if (eq == std::string::npos || eq + 1 == spec.size())
        return "expected FORMAT=FILE, e.g. gradescope=results.json";
      const auto formats = reporter_formats();
      if (std::find(formats.begin(), formats.end(), spec.substr(0, eq)) == formats.end())
        return "unknown format '" + spec.substr(0, eq) + "'";
      return {};
    },
    "FORMAT=FILE");

void define_cli(CLI::App& app, options& o) {
  app.footer("Exit code: 0 passed, 1 failed, 2 could not grade.");
  app.add_option("lesson", o.lesson, "The lesson to grade, e.g. lesson13");
  auto* answers_flag =
      app.add_flag("--answers", o.answers, "Grade the solutions (the instructor's answer branch)");
  app.add_option("--submission", o.submission,
                 "Grade the files in this folder (named as in exercises/<lesson>/)")
      ->excludes(answers_flag);
  app.add_option("--json", o.json_file, "Also write the report as JSON to this file");
  app.add_option("--write", o.writes,
                 "Also write the report in FORMAT to FILE (repeatable; FORMAT as --format)")
      ->check(write_spec);
  app.add_option("--format", o.format, "The report's format on stdout")
      ->check(CLI::IsMember(reporter_formats()));
  app.add_option("--unit", o.unit, "Grade only this unit of the lesson");
  app.add_option("--lang", o.lang_name, "Language of the report: zh or en (default: from LANG)")
      ->check(CLI::IsMember({"zh", "en"}));
  app.add_option("--seed", o.seed,
                 "Seed for the tests' random inputs (default: fixed per lesson, so the same "
                 "files always get the same report; the report prints it)");
  app.add_option("--timeout", o.timeout_s, "Seconds each test process may run")
      ->check(CLI::PositiveNumber);
  app.add_option("--build-timeout", o.build_timeout_s,
                 "Seconds the build of the submission may take (default 300)")
      ->check(CLI::PositiveNumber);
  app.add_option("--root", o.root,
                 "The course's root folder (default: found from the current folder)");
  app.add_option("--override", o.override_file,
                 "JSON file {\"item id\": points} from an instructor's review; replaces those "
                 "items' points");
  app.add_option("--sandbox", o.sandbox,
                 "How to confine the compiles and tests: auto (the strongest level that works "
                 "here; the report names it), full (bubblewrap), restricted (grader-confine: "
                 "seccomp, Landlock, rlimits, another uid), off; on is full")
      ->check(CLI::IsMember({"auto", "full", "restricted", "off", "on"}));
  app.add_option("--require-sandbox", o.require_sandbox,
                 "Refuse to grade (exit 2) below this isolation level: none, restricted or full")
      ->check(CLI::IsMember({"none", "restricted", "full"}));
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
  o.mark->add_option("--json", o.json_file, "Also write the report as JSON to this file");
  o.mark
      ->add_option("--write", o.writes,
                   "Also write the report in FORMAT to FILE (repeatable; FORMAT as --format)")
      ->check(write_spec);
  o.mark->add_option("--format", o.format, "The report's format on stdout")
      ->check(CLI::IsMember(reporter_formats()));
  o.mark->add_option("--unit", o.unit, "Mark only this unit");
  o.mark->add_option("--lang", o.lang_name, "zh or en (default: from LANG)")
      ->check(CLI::IsMember({"zh", "en"}));
  o.mark->add_option("--seed", o.seed, "Seed for the tests' inputs (default: fixed per lesson)");
  o.mark->add_option("--timeout", o.timeout_s, "Seconds each test process may run")
      ->check(CLI::PositiveNumber);
  o.mark
      ->add_option("--build-timeout", o.build_timeout_s,
                   "Seconds the build of the submission may take (default 300)")
      ->check(CLI::PositiveNumber);
  o.mark->add_option("--build-dir", o.build_dir, "The grading build tree (<dir>-mark is used)");
  o.mark->add_option("--override", o.override_file,
                     "JSON file from an instructor's review (docs/review.schema.json; grader "
                     "review writes them): replaces those items', parts' and vetoes' verdicts");
  o.mark
      ->add_option("--require-sandbox", o.require_sandbox,
                   "The lowest isolation level to mark at (default full: where bubblewrap "
                   "cannot run, marking refuses, exit 2); restricted allows grader-confine")
      ->check(CLI::IsMember({"none", "restricted", "full"}));
  o.mark->add_option("--sandbox", o.sandbox, "auto (default), full or restricted")
      ->check(CLI::IsMember({"auto", "full", "restricted", "on"}));
  o.mark->add_flag("--allow-unconfined", o.allow_unconfined,
                   "Mark even with no sandbox at all (--require-sandbox none; the report then "
                   "says so)");
  o.batch = app.add_subcommand(
      "batch",
      "Mark a whole class: one folder per student in SUBMISSIONS, each marked as `grader mark` "
      "does; reports, feedback, gradebook.csv and summary.md in --out");
  o.batch->add_option("lesson", o.lesson, "The lesson")->required();
  o.batch->add_option("submissions", o.batch_submissions, "A folder with one folder per student");
  o.batch->add_option("--merge", o.merge_parts,
                      "Instead of marking: join these batches' folders (the shards of one class) "
                      "into --out, with one gradebook");
  o.batch->add_option("--out", o.batch_out, "Where the reports and the gradebook go")->required();
  o.batch->add_option("--jobs", o.jobs, "Submissions marked at once (default 1)")
      ->check(CLI::PositiveNumber);
  o.batch->add_flag("--force", o.force,
                    "Mark again even the submissions unchanged since the last batch");
  o.batch->add_option("--shard", o.shard, "i/N: only the students with index i mod N (from 1)");
  o.batch
      ->add_option("--format", o.batch_formats,
                   "Also write each student's report in this format (repeatable: gradescope, "
                   "junit, exercism, classroom)")
      ->check(CLI::IsMember(reporter_formats()));
  o.batch->add_option("--unit", o.unit, "Mark only this unit");
  o.batch->add_option("--lang", o.lang_name, "zh or en (default: from LANG)")
      ->check(CLI::IsMember({"zh", "en"}));
  o.batch->add_option("--timeout", o.timeout_s, "Seconds each test process may run")
      ->check(CLI::PositiveNumber);
  o.batch
      ->add_option("--build-timeout", o.build_timeout_s,
                   "Seconds the build of a submission may take (default 300)")
      ->check(CLI::PositiveNumber);
  o.batch->add_option("--require-sandbox", o.require_sandbox, "As for mark (default full)")
      ->check(CLI::IsMember({"none", "restricted", "full"}));
  o.batch->add_option("--sandbox", o.sandbox, "As for mark")
      ->check(CLI::IsMember({"auto", "full", "restricted", "on"}));
  o.batch->add_flag("--allow-unconfined", o.allow_unconfined, "As for mark");
  o.review = app.add_subcommand(
      "review",
      "Review a marked class: every part judged from free text or with a provisional veto, "
      "the student's text beside the key points; keys accept, set points, set or clear a "
      "veto; the decisions go to DIR/reviews/ and those students are marked again");
  o.review->add_option("dir", o.review_dir, "A folder written by grader batch --out")->required();
  o.review->add_option("--reviewer", o.reviewer, "Your name, recorded in the review files");
  o.review->add_flag("--all", o.review_all, "Also the parts already decided");
  o.review->add_flag("--list", o.review_list, "Print the queue (one line per part) and exit");
  o.review->add_flag("--no-remark", o.no_remark,
                     "Only save the decisions (the next grader batch into DIR applies them)");
  o.review->add_option("--lang", o.lang_name, "zh or en (default: from LANG)")
      ->check(CLI::IsMember({"zh", "en"}));
  o.hint = app.add_subcommand(
      "hint", "Hints for a lesson's blanks: the list at level 1, or one blank at --level N");
  o.hint->add_option("lesson", o.hint_lesson, "The lesson")->required();
  o.hint->add_option("blank", o.hint_blank,
                     "A blank's name (<exercise>:<blank> when several exercises have it), or an "
                     "exercise id for its general hints");
  o.hint
      ->add_option("--level", o.hint_level,
                   "1 the idea (default), 2 the formula, 3 the shape of the code")
      ->check(CLI::PositiveNumber);
  o.hint->add_option("--lang", o.lang_name, "zh or en (default: from LANG)")
      ->check(CLI::IsMember({"zh", "en"}));
  o.list = app.add_subcommand("list", "List the course's lessons");

  o.dev = app.add_subcommand("dev", "Instructor tools")->require_subcommand(1);
  o.check = o.dev->add_subcommand(
      "check", "Exercises fail, solutions score full, mutants get their declared verdict");
  o.check->add_option("lessons", o.dev_lessons, "Lessons to check (default: all)");
  o.check->add_option("--only", o.only,
                      "Run only this check (repeatable); a name ending in ':' selects a group, "
                      "e.g. mutant:");
  o.check->add_flag("--list", o.list_checks, "List the checks and exit");
  o.check->add_option("--seed", o.seed, "Random seed for the tests' inputs (default: fresh)");
  o.sync = o.dev->add_subcommand("sync", "Regenerate exercises/ from solutions/");
  o.sync->add_option("lessons", o.dev_lessons, "Lessons to sync (default: all)");
  o.sync->add_flag("--check", o.sync_check, "Only report drift; exit 1 if any file differs");
  o.manifest =
      o.dev->add_subcommand("manifest", "Print a lesson's exercises as the grader reads them");
  o.manifest->add_option("lesson", o.manifest_lesson, "The lesson")->required();
  o.manifest->add_flag("--all", o.manifest_all,
                       "Every exercise, not only the code ones (one line each: id kind file)");
  o.gradescope = o.dev->add_subcommand(
      "gradescope", "Write a Gradescope autograder bundle (setup.sh, run_autograder, the course)");
  o.gradescope->add_option("lesson", o.gradescope_lesson, "The lesson")->required();
  o.gradescope->add_option("--out", o.gradescope_out, "The zip to write, e.g. autograder.zip")
      ->required();
  o.release = o.dev->add_subcommand(
      "release", "Write the course as students get it: no solutions, keys or instructor notes");
  o.release->add_option("lesson", o.release_lesson, "The lesson")->required();
  o.release
      ->add_option("--out", o.release_out,
                   "The folder to write, outside the course (an earlier release there is "
                   "replaced; its .git is kept)")
      ->required();
  for (auto* sub : {o.hint, o.list, o.check, o.sync, o.manifest, o.release, o.mark, o.batch,
                    o.review, o.gradescope})
    sub->add_option("--root", o.root, "The course's root folder");
}

int run_dev(const course& c, const options& o) {
  if (*o.gradescope) {
    dev_gradescope(c, load_manifest(c, o.gradescope_lesson), fs::absolute(o.gradescope_out),
                   std::cout);
    return 0;
  }
  if (*o.release) {
    try {
      dev_release(c, load_manifest(c, o.release_lesson), o.release_out, std::cout);
    } catch (const cannot_grade& e) {
      std::cerr << "grader: dev release: " << e.what() << "\n";
      return 2;
    }
    return 0;
  }
  if (*o.manifest) {
    dev_manifest_files(load_manifest(c, o.manifest_lesson), o.manifest_all, std::cout);
    return 0;
  }
  int failures = 0;
  for (const auto& name : o.dev_lessons.empty() ? c.lessons() : o.dev_lessons) {
    const manifest m = load_manifest(c, name);
    if (*o.sync) {
      const int drifted = dev_sync(c, m, o.sync_check, std::cout);
      failures += o.sync_check ? drifted : 0;
      continue;
    }
    const auto r = dev_check(c, m, {o.seed, o.only, o.list_checks}, std::cout);
    if (!r.unmatched.empty())
      return fail_to_grade(fmt::format("no check named '{}' in {} (see dev check --list)",
                                       r.unmatched.front(), m.lesson));
    failures += r.failed;
  }
  return failures == 0 ? 0 : 1;
}

int run_batch_command(const course& c, const options& o, lang l, const CLI::App& app) {
  batch_options b;
  if (!o.batch_submissions.empty()) b.submissions = fs::absolute(o.batch_submissions);
  b.out = fs::absolute(o.batch_out);
  b.jobs = o.jobs;
  b.force = o.force;
  b.lang = l == lang::zh ? "zh" : "en";
  b.formats = o.batch_formats;
  b.progress_bar = isatty(STDERR_FILENO) && !std::getenv("CI");
  if (!o.shard.empty()) {
    unsigned i = 0, n = 0;
    char slash = 0;
    std::istringstream in(o.shard);
    if (!(in >> i >> slash >> n) || slash != '/' || i < 1 || i > n || !in.eof())
      return fail_to_grade("--shard takes i/N with 1 <= i <= N, e.g. 2/4");
    b.shard_index = i - 1;
    b.shard_count = n;
  }
  // Passed on to every `grader mark`, so a batch marks exactly as a single mark does.
  const CLI::App* sub = o.batch;
  if (sub->get_option("--timeout")->count())
    b.mark_args.insert(b.mark_args.end(), {"--timeout", fmt::format("{}", o.timeout_s)});
  if (sub->get_option("--build-timeout")->count())
    b.mark_args.insert(b.mark_args.end(), {"--build-timeout", std::to_string(o.build_timeout_s)});
  if (!o.require_sandbox.empty())
    b.mark_args.insert(b.mark_args.end(), {"--require-sandbox", o.require_sandbox});
  if (o.sandbox != "auto") b.mark_args.insert(b.mark_args.end(), {"--sandbox", o.sandbox});
  if (o.allow_unconfined) b.mark_args.push_back("--allow-unconfined");
  if (!o.unit.empty()) b.mark_args.insert(b.mark_args.end(), {"--unit", o.unit});
  (void)app;
  const manifest m = load_manifest(c, o.lesson);
  if (!o.merge_parts.empty()) {
    std::vector<fs::path> parts;
    for (const auto& p : o.merge_parts) parts.push_back(fs::absolute(p));
    merge_batches(m, parts, b.out, std::cout);
    return 0;
  }
  if (o.batch_submissions.empty())
    return fail_to_grade("batch needs a folder of submissions (or --merge DIR...)");
  const batch_result r = run_batch(c, m, b, std::cerr);
  fmt::print("{} marked, {} unchanged since the last batch, {} not graded; gradebook: {}\n",
             r.graded, r.kept, r.not_graded, (b.out / "gradebook.csv").string());
  return 0;
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

int grade_and_report(const course& c, const manifest& m, const options& o, lang l);

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

int grade_and_report(const course& c, const manifest& m, const options& o, lang l) {
  if (o.gpu) require_gpu();  // before any grading: say so at once
  grade_request req;
  const fs::path dir = o.answers              ? c.solutions_dir(o.lesson)
                       : o.submission.empty() ? c.exercises_dir(o.lesson)
                                              : fs::path(o.submission);
  const bool marking = static_cast<bool>(*o.mark);
  // A submitted folder (marking or --submission) is read once, into copies of ours: a
  // link, a special file or a file over 1 MiB is refused with its name.
  const bool staging = marking || !o.submission.empty();
  scratch_folder incoming;
  staged_submission staged;
  if (staging) {
    staged = stage_submission(m, dir, incoming.path(), o.unit);
    req.files = staged.files;
  } else {
    req.files = submission_files(m, dir, {}, o.unit);
  }
  req.marking = marking;
  req.label = display_path(fs::absolute(dir).lexically_normal());
  req.unit = o.unit;
  req.language = l;
  req.seed = o.explicit_seed ? o.seed : lesson_seed(o.lesson);
  req.test_timeout = std::chrono::milliseconds(static_cast<long>(o.timeout_s * 1000));
  req.build_timeout = std::chrono::seconds(o.build_timeout_s);
  if (!o.build_dir.empty()) req.tree = fs::absolute(o.build_dir);
  req.fresh = o.fresh;
  if (o.sandbox != "auto")
    req.sandbox = o.sandbox == "off" ? isolation::none
                                     : *isolation_named(o.sandbox == "on" ? "full" : o.sandbox);
  // Marking requires the full level unless told otherwise.
  const std::string require = !o.require_sandbox.empty()       ? o.require_sandbox
                              : marking && !o.allow_unconfined ? "full"
                                                               : "none";
  req.require = *isolation_named(require);
  if (!o.override_file.empty()) req.overrides = load_overrides(c, o.override_file, m);
  report rep = grade(c, m, req);
  rep.ignored_files = staged.ignored;
  if (staging) {  // the grader read our copies; the student knows their own folder
    const std::string ours = incoming.path().string(),
                      theirs = display_path(fs::absolute(dir).lexically_normal());
    for (auto& b : rep.build_failures) b.diagnostics = replaced(b.diagnostics, ours, theirs);
    for (auto& text : rep.messages) text = replaced(text, ours, theirs);
  }

  // Text goes out before the GPU part, which takes minutes; other formats hold
  // the whole report, so they wait for it.
  const bool color = isatty(STDOUT_FILENO) && !std::getenv("NO_COLOR");
  if (o.format == "text") make_reporter(o.format, {color})->write(rep, std::cout);
  if (o.gpu) {
    gpu_section g = grade_gpu(c, m, req);
    g.disagreements = disagreements(g, rep);
    rep.gpu = to_json(g);
    if (o.format == "text") std::cout << render_text(g, l);
  }
  if (o.format != "text") make_reporter(o.format, {color})->write(rep, std::cout);
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

int main(int argc, char** argv) {
  CLI::App app{"Course grader: builds and tests a lesson's exercises, grades its questions.",
               "grader"};
  options o;
  define_cli(app, o);
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    if (e.get_exit_code() == 0) return app.exit(e);  // --help
    return fail_to_grade(std::string(e.what()) + " (grader --help lists the options)");
  }
  o.explicit_seed =
      app.get_option("--seed")->count() > 0 || o.mark->get_option("--seed")->count() > 0;
  const lang l =
      o.lang_name.empty() ? lang_from_env() : (o.lang_name == "zh" ? lang::zh : lang::en);
  try {
    const course c = find_course(o.root, fs::current_path());  // trees under our build dir
    if (*o.list) {
      for (const auto& name : c.lessons())
        fmt::print("{}  {}\n", name, load_manifest(c, name).title.in(l));
      return 0;
    }
    if (*o.hint)
      return run_hint(c, load_manifest(c, o.hint_lesson), {o.hint_blank, o.hint_level, l},
                      std::cout, std::cerr);
    if (*o.dev) return run_dev(c, o);
    if (*o.batch) return run_batch_command(c, o, l, app);
    if (*o.review) {
      review_options r;
      r.out = fs::absolute(o.review_dir);
      r.l = l;
      r.reviewer = o.reviewer;
      r.all = o.review_all;
      r.list = o.review_list;
      r.remark = !o.no_remark;
      r.keys = isatty(STDIN_FILENO);
      return run_review(c, r, std::cin, std::cout);
    }
    if (o.lesson.empty()) {
      std::cerr << app.help();
      return 2;
    }
    return run_grade(c, o, l);
  } catch (const cannot_grade& e) {
    return fail_to_grade(e.what());
  } catch (const input_error& e) {
    return fail_to_grade(e.what());
  } catch (const std::exception& e) {
    return fail_to_grade(std::string("internal error: ") + e.what());
  }
}
