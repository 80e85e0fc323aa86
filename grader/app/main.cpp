// grader: builds a lesson's exercises with its tests, grades the Q&A answers, and
// prints the score, the vetoes and PASS/FAIL.
//   grader lesson13                        grade exercises/lesson13/ (the student's files)
//   grader lesson13 --answers              grade solutions/lesson13/ (instructors)
//   grader lesson13 --submission DIR       grade DIR's files (homework marking)
//   grader lesson13 --json report.json     also write the report as JSON
//   grader status lesson13                 each unit, each blank, and the next step
//   grader watch lesson13                  re-grades on every save (Ctrl-C stops)
//   grader hint lesson13 [blank] [--level N] hints, one blank and one level at a time
//   grader lesson13 --format json          the report on stdout as JSON instead of text
//   grader dev check [--only NAME] [--list] | dev sync | dev manifest   (instructors)
//   grader dev release lesson13 --out ../student   the course as students get it
// Exit code: 0 passed, 1 failed, 2 could not grade.
// Each command declares its own options (cli/*.cpp); this file parses and dispatches.
#include <cstdlib>
#include <iostream>

#include "cli/cli.hpp"
#include "grader/base/error.hpp"
#include "grader/base/files.hpp"

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

int dispatch(CLI::App& app, const cli::options& o, lang l) {
  const course c = find_course(o.root, fs::current_path());  // trees under our build dir
  if (*o.list || *o.hint || *o.dev) return cli::run_dev(c, o, l);
  if (*o.status) return cli::run_status(c, o, l);
  if (*o.watch) return cli::run_watch(c, o, l);
  if (*o.batch) return cli::run_batch(c, o, l);
  if (*o.review) return cli::run_review(c, o, l);
  if (o.lesson.empty()) {
    std::cerr << app.help();
    return 2;
  }
  return cli::run_grade(c, o, l);
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"Course grader: builds and tests a lesson's exercises, grades its questions.",
               "grader"};
  cli::options o;
  cli::declare_grade(app, o);
  cli::declare_watch(app, o);
  cli::declare_batch(app, o);
  cli::declare_dev(app, o);
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    if (e.get_exit_code() == 0) return app.exit(e);  // --help
    return cli::fail_to_grade(std::string(e.what()) + " (grader --help lists the options)");
  }
  for (const CLI::Option* seed : o.seed_options) o.explicit_seed |= seed->count() > 0;
  const lang l =
      o.lang_name.empty() ? lang_from_env() : (o.lang_name == "zh" ? lang::zh : lang::en);
  try {
    return dispatch(app, o, l);
  } catch (const cannot_grade& e) {
    return cli::fail_to_grade(e.what());
  } catch (const input_error& e) {
    return cli::fail_to_grade(e.what());
  } catch (const std::exception& e) {
    return cli::fail_to_grade(std::string("internal error: ") + e.what());
  }
}
