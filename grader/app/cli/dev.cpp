// `grader dev check|sync|manifest|gradescope|release|supervise` (instructors), `grader hint` and
// `grader list`: their options and runs.
#include <fmt/format.h>

#include <iostream>

#include "cli.hpp"
#include "grader/base/error.hpp"
#include "grader/commands/dev.hpp"
#include "grader/commands/gradescope_bundle.hpp"
#include "grader/commands/hint.hpp"
#include "grader/commands/release.hpp"

namespace fs = std::filesystem;

namespace grader::cli {
namespace {

void declare_hint_and_list(CLI::App& app, options& o) {
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
  add_lang_option(*o.hint, o);
  add_root_option(*o.hint, o);
  o.list = app.add_subcommand("list", "List the course's lessons");
  add_root_option(*o.list, o);
}

void declare_bundles(CLI::App& dev, options& o) {
  o.gradescope = dev.add_subcommand(
      "gradescope", instructor_help("Write a Gradescope autograder bundle (setup.sh, "
                                    "run_autograder, the course)"));
  o.gradescope->add_option("lesson", o.gradescope_lesson, "The lesson")->required();
  o.gradescope->add_option("--out", o.gradescope_out, "The zip to write, e.g. autograder.zip")
      ->required();
  o.release = dev.add_subcommand(
      "release", instructor_help("Write the course as students get it: no solutions, keys or "
                                 "instructor notes"));
  o.release->add_option("lesson", o.release_lesson, "The lesson")->required();
  o.release
      ->add_option("--out", o.release_out,
                   "The folder to write, outside the course (an earlier release there is "
                   "replaced; its .git is kept)")
      ->required();
  for (CLI::App* sub : {o.gradescope, o.release}) add_root_option(*sub, o);
}

// `dev supervise`: a command under caps on its whole process tree (commands/supervise.hpp).
void declare_supervise(CLI::App& dev, options& o) {
  o.supervise = dev.add_subcommand(
      "supervise", "Run a command (after --) under caps on its whole process tree; one JSON line");
  auto& s = o.supervised;
  o.supervise->add_option("--wall", s.wall_s, "Seconds before the tree is killed (default 600)");
  o.supervise->add_option("--max-tree-mib", s.max_tree_mib, "Most Pss the tree may hold (MiB)");
  o.supervise->add_option("--max-processes", s.max_processes, "Most processes at once");
  o.supervise->add_option("--min-available-mib", s.min_available_mib,
                          "Kill the tree when the machine has less memory available (MiB)");
  o.supervise->add_option("--max-file-mib", s.max_file_mib, "The command's RLIMIT_FSIZE (MiB)");
  o.supervise->add_option("--linger", s.linger_s,
                          "Seconds its processes may take to end after it (default 2)");
  o.supervise->add_option("--json", o.supervise_json, "Write the JSON line here (default stdout)");
  o.supervise->add_option("command", s.argv, "The command and its arguments")->required();
}

}  // namespace

void declare_dev(CLI::App& app, options& o) {
  declare_hint_and_list(app, o);
  o.dev = app.add_subcommand("dev", "Instructor tools")->require_subcommand(1);
  o.check = o.dev->add_subcommand(
      "check", instructor_help("Exercises fail, solutions score full, mutants get their "
                               "declared verdict"));
  o.check->add_option("lessons", o.dev_lessons, "Lessons to check (default: all)");
  o.check->add_option("--only", o.only,
                      "Run only this check (repeatable); a name ending in ':' selects a group, "
                      "e.g. mutant:");
  o.check->add_flag("--list", o.list_checks, "List the checks and exit");
  add_seed_option(*o.check, o, "Random seed for the tests' inputs (default: fresh)");
  o.sync = o.dev->add_subcommand("sync", "Regenerate exercises/ from solutions/");
  o.sync->add_option("lessons", o.dev_lessons, "Lessons to sync (default: all)");
  o.sync->add_flag("--check", o.sync_check, "Only report drift; exit 1 if any file differs");
  o.manifest =
      o.dev->add_subcommand("manifest", "Print a lesson's exercises as the grader reads them");
  o.manifest->add_option("lesson", o.manifest_lesson, "The lesson")->required();
  o.manifest->add_flag("--all", o.manifest_all,
                       "Every exercise, not only the code ones (one line each: id kind file)");
  for (CLI::App* sub : {o.check, o.sync, o.manifest}) add_root_option(*sub, o);
  declare_bundles(*o.dev, o);
  declare_supervise(*o.dev, o);
}

namespace {

int run_bundles(const course& c, const options& o) {
  if (*o.gradescope) {
    dev_gradescope(c, load_manifest(c, o.gradescope_lesson), fs::absolute(o.gradescope_out),
                   std::cout);
    return 0;
  }
  try {
    dev_release(c, load_manifest(c, o.release_lesson), o.release_out, std::cout);
  } catch (const cannot_grade& e) {
    std::cerr << "grader: dev release: " << e.what() << "\n";
    return 2;
  }
  return 0;
}

// dev check and dev sync, lesson by lesson.
int run_lessons(const course& c, const options& o) {
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

}  // namespace

int run_dev(const course& c, const options& o, lang l) {
  if (*o.list) {
    for (const auto& name : c.lessons())
      fmt::print("{}  {}\n", name, load_manifest(c, name).title.in(l));
    return 0;
  }
  if (*o.hint)
    return run_hint(c, load_manifest(c, o.hint_lesson), {o.hint_blank, o.hint_level, l}, std::cout,
                    std::cerr);
  if (*o.supervise) return run_supervise(o.supervised, o.supervise_json);
  if (*o.gradescope || *o.release) return run_bundles(c, o);
  if (*o.manifest) {
    dev_manifest_files(load_manifest(c, o.manifest_lesson), o.manifest_all, std::cout);
    return 0;
  }
  return run_lessons(c, o);
}

}  // namespace grader::cli
