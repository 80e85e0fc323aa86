// The options several commands share, each declared once (see cli.hpp).
#include <unistd.h>

#include <fmt/format.h>

#include <algorithm>
#include <iostream>

#include "cli.hpp"
#include "grader/base/text.hpp"
#include "grader/commands/dev.hpp"
#include "grader/pipeline/reporter.hpp"
#include "grader/pipeline/runner.hpp"

namespace grader::cli {
namespace {

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

}  // namespace

void add_output_options(CLI::App& cmd, options& o) {
  cmd.add_option("--json", o.json_file, "Also write the report as JSON to this file")
      ->group(kOutput);
  cmd.add_option("--write", o.writes,
                 "Also write the report in FORMAT to FILE (repeatable; FORMAT as --format)")
      ->check(write_spec)
      ->group(kOutput);
  cmd.add_option("--format", o.format, "The report's format on stdout")
      ->check(CLI::IsMember(reporter_formats()))
      ->group(kOutput);
}

void add_lang_option(CLI::App& cmd, options& o) {
  cmd.add_option("--lang", o.lang_name, "Language of the report: zh or en (default: from LANG)")
      ->check(CLI::IsMember({"zh", "en"}))
      ->group(kOutput);
}

void add_unit_option(CLI::App& cmd, options& o) {
  cmd.add_option("--unit", o.unit, "Grade only this unit of the lesson")->group(kSelection);
}

void add_limit_options(CLI::App& cmd, options& o) {
  cmd.add_option("--timeout", o.timeout_s, "Seconds each test process may run")
      ->check(CLI::PositiveNumber)
      ->group(kLimits);
  cmd.add_option("--build-timeout", o.build_timeout_s,
                 "Seconds the build of a submission may take (default 300)")
      ->check(CLI::PositiveNumber)
      ->group(kLimits);
}

void add_seed_option(CLI::App& cmd, options& o, const std::string& help) {
  o.seed_options.push_back(cmd.add_option("--seed", o.seed, help));
}

void add_sandbox_options(CLI::App& cmd, options& o, sandbox_use use) {
  if (use == sandbox_use::grade) {
    cmd.add_option("--sandbox", o.sandbox,
                   "How to confine the compiles and tests: auto (the strongest level that "
                   "works here; the report names it), full (bubblewrap), restricted "
                   "(grader-confine: seccomp, Landlock, rlimits, another uid), off; on is full")
        ->check(CLI::IsMember({"auto", "full", "restricted", "off", "on"}))
        ->group(kSandbox);
    cmd.add_option("--require-sandbox", o.require_sandbox,
                   "Refuse to grade (exit 2) below this isolation level: none, restricted or "
                   "full")
        ->check(CLI::IsMember({"none", "restricted", "full"}))
        ->group(kSandbox);
    return;
  }
  cmd.add_option("--require-sandbox", o.require_sandbox,
                 "The lowest isolation level to mark at (default full: where bubblewrap "
                 "cannot run, marking refuses, exit 2); restricted allows grader-confine")
      ->check(CLI::IsMember({"none", "restricted", "full"}))
      ->group(kSandbox);
  cmd.add_option("--sandbox", o.sandbox, "auto (default), full or restricted")
      ->check(CLI::IsMember({"auto", "full", "restricted", "on"}))
      ->group(kSandbox);
  cmd.add_flag("--allow-unconfined", o.allow_unconfined,
               "Mark even with no sandbox at all (--require-sandbox none; the report then "
               "says so)")
      ->group(kSandbox);
}

void add_runner_option(CLI::App& cmd, options& o) {
  std::vector<std::string> names = runner_names();
  names.insert(names.begin(), "auto");
  cmd.add_option("--runner", o.runner,
                 "How each test process is run (pipeline/runner.hpp): auto (process with no "
                 "sandbox, sandbox at restricted or full), or a runner by name")
      ->check(CLI::IsMember(names))
      ->group(kSandbox);
}

void add_root_option(CLI::App& cmd, options& o) {
  cmd.add_option("--root", o.root,
                 "The course's root folder (default: found from the current folder)");
}

std::vector<std::string> given_options(const CLI::App& cmd,
                                       const std::vector<std::string>& groups) {
  std::vector<std::string> out;
  for (const CLI::Option* opt : cmd.get_options()) {
    if (opt->count() == 0 ||
        std::find(groups.begin(), groups.end(), opt->get_group()) == groups.end())
      continue;
    if (opt->get_type_size() == 0) {  // a flag
      out.push_back(opt->get_name());
      continue;
    }
    for (const std::string& value : opt->results()) out.insert(out.end(), {opt->get_name(), value});
  }
  return out;
}

std::string instructor_help(const std::string& description) {
  return instructor_commands_built()
             ? description
             : description + " [not in this student build: " + kInstructorBuild + "]";
}

int fail_to_grade(const std::string& why) {
  // One line, whatever the reason quotes (a student's path may hold a newline or an
  // escape sequence): a forged second line never reaches the terminal or a batch's log.
  std::cerr << "grader: cannot grade: " << one_line(why) << "\n";
  return 2;
}

}  // namespace grader::cli
