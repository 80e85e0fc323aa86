// The `grader` command line, declared per command (one file each: grade.cpp for the
// lesson grade and `mark`, watch.cpp for `status` and `watch`, batch.cpp for `batch` and
// `review`, dev.cpp for `dev`, `hint` and `list`), with the options several commands share declared
// once (options.cpp).
#pragma once

#include <CLI/CLI.hpp>
#include <random>
#include <string>
#include <vector>

#include "grader/base/i18n.hpp"
#include "grader/commands/supervise.hpp"
#include "grader/lesson/manifest.hpp"
#include "grader/pipeline/report.hpp"

namespace grader::cli {

// Everything the command line says.
struct options {
  // The grade (`grader <lesson>`, `grader mark`).
  std::string lesson, submission, json_file, unit, lang_name, root, build_dir, override_file;
  std::string sandbox = "auto", require_sandbox, runner = "auto";
  std::string format = "text";
  std::vector<std::string> writes;  // --write FORMAT=FILE, each written after the grade
  bool answers = false, gpu = false, fresh = false, explicit_seed = false;
  bool allow_unconfined = false;
  unsigned seed = std::random_device{}();
  double timeout_s = 10;
  int build_timeout_s = 300;
  // `batch` and `review`.
  std::string batch_submissions, batch_out, batch_trees, shard;
  unsigned jobs = 1;
  bool force = false;
  std::vector<std::string> batch_formats, merge_parts;
  std::string review_dir, reviewer;
  bool review_all = false, review_list = false, no_remark = false;
  // `hint`, `dev`.
  std::string hint_lesson, hint_blank, manifest_lesson;
  int hint_level = 0;
  std::vector<std::string> dev_lessons, only;
  bool sync_check = false, list_checks = false, manifest_all = false;
  std::string release_lesson, release_out, gradescope_lesson, gradescope_out;
  supervise_options supervised;  // `dev supervise`, and where its JSON line goes
  std::string supervise_json;
  // The subcommands, to see which one was given.
  CLI::App *status = nullptr, *watch = nullptr;  // `status`, `watch` (watch.cpp)
  CLI::App *mark = nullptr, *batch = nullptr, *review = nullptr, *hint = nullptr, *list = nullptr,
           *dev = nullptr, *check = nullptr, *sync = nullptr, *manifest = nullptr,
           *gradescope = nullptr, *release = nullptr, *supervise = nullptr;
  std::vector<CLI::Option*> seed_options;  // --seed of each command: given or not
};

// The groups of options several commands share, declared once. A `batch` passes on to
// each `grader mark` every option of the groups kForwarded that it was given.
inline constexpr const char* kSelection = "Selection";  // --unit
inline constexpr const char* kLimits = "Limits";        // --timeout, --build-timeout
inline constexpr const char* kSandbox = "Sandbox";      // --sandbox, --require-sandbox, ...
inline constexpr const char* kOutput = "Output";        // --json, --write, --format, --lang
inline const std::vector<std::string> kForwarded = {kSelection, kLimits, kSandbox};

enum class sandbox_use { grade, mark };  // a practice grade may turn it off; marking may not

void add_output_options(CLI::App& cmd, options& o);  // --json --write --format
void add_lang_option(CLI::App& cmd, options& o);
void add_unit_option(CLI::App& cmd, options& o);
void add_limit_options(CLI::App& cmd, options& o);
void add_seed_option(CLI::App& cmd, options& o, const std::string& help);
void add_sandbox_options(CLI::App& cmd, options& o, sandbox_use use);
void add_root_option(CLI::App& cmd, options& o);
void add_runner_option(CLI::App& cmd, options& o);  // --runner, in the Sandbox group

// The options of `cmd` in `groups` that were given, as a command line for another grader.
std::vector<std::string> given_options(const CLI::App& cmd, const std::vector<std::string>& groups);

// Each command: its declaration, and what it does.
void declare_grade(CLI::App& app, options& o);  // the top level and `mark`
void declare_batch(CLI::App& app, options& o);  // `batch` and `review`
void declare_dev(CLI::App& app, options& o);    // `dev ...`, `hint`, `list`
void declare_watch(CLI::App& app, options& o);  // `status` and `watch`
int run_grade(const course& c, const options& o, lang l);
int run_status(const course& c, const options& o, lang l);
int run_watch(const course& c, const options& o, lang l);
// A practice grade as `grader <lesson>` makes it (the options' files, seed, sandbox),
// without printing: `grade`, `status` and `watch` share it. Throws cannot_grade.
report grade_for(const course& c, const manifest& m, const options& o, lang l);
int run_batch(const course& c, const options& o, lang l);
int run_review(const course& c, const options& o, lang l);
int run_dev(const course& c, const options& o, lang l);  // also `hint` and `list`

// An instructor command's help text, which in the student build also says it is left out.
std::string instructor_help(const std::string& description);

// "grader: cannot grade: <why>" on one line of stderr; returns exit code 2.
int fail_to_grade(const std::string& why);

}  // namespace grader::cli
