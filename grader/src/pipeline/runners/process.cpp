// process_runner: a test job in a plain child process with a time limit and an
// output cap (see run.hpp). The reporter writes its records to a pipe of ours (fd 3).
#include <filesystem>
#include <string_view>

#include "course/protocol.hpp"
#include "grader/pipeline/runner.hpp"

namespace grader {

tag_run process_runner::run(const test_job& job, unsigned seed, const run_limits& limits) {
  tag_run t;
  t.tag = job.tag;
  t.expected_tests = job.expected_tests;
  run_options opts;
  opts.timeout = limits.timeout;
  opts.max_output = limits.max_output;
  opts.max_memory = limits.max_memory;
  opts.max_processes = limits.max_processes;
  opts.env = sanitizer_environment();
  opts.inherit_env = false;  // tests and the code under test never see the grader's secrets
  // The reporter writes to a pipe the grader reads as the test runs: no file a helper of
  // the student's code could rewrite afterwards.
  opts.records_fd = true;
  if (!job.compute.empty()) {  // the judge starts it: its command line, fields split by \x1f
    const std::string binary = std::filesystem::absolute(job.compute).string();
    auto command_of = [&binary](const std::vector<std::string>& wrapper) {
      std::string command;
      for (const auto& a : wrapper) command += a + '\x1f';
      return command + binary;
    };
    // NAME=value appended in place: GCC 12 warns (-Warray-bounds, a false positive) on
    // `std::string(name) + "=" + value` here once the unity batch is precompiled.
    auto variable = [](std::string_view name, const std::string& value) {
      std::string entry(name);
      entry += '=';
      entry += value;
      return entry;
    };
    opts.env.push_back(
        variable(::course::protocol::compute_variable, command_of(job.compute_wrapper)));
    // Confined, the one whose memory the judge measures (unconfined, the judge derives it).
    if (!job.compute_measured_wrapper.empty())
      opts.env.push_back(variable(::course::protocol::compute_measured_variable,
                                  command_of(job.compute_measured_wrapper)));
  }
  std::vector<std::string> argv = job.wrapper;
  for (std::string a :
       {job.binary.string(), std::string("--reporter"), std::string(::course::protocol::reporter),
        std::string("--out"), std::string("/dev/fd/3"), std::string("--rng-seed"),
        std::to_string(seed), std::string("--warn"), std::string("NoAssertions"), job.tag})
    argv.push_back(std::move(a));
  t.process = run_process(argv, opts);
  t.raw_records = t.process.records;
  t.records = parse_records(t.raw_records);
  return t;
}

namespace {
std::unique_ptr<runner> make_process_runner(isolation level) {
  if (level != isolation::none) return nullptr;  // it confines nothing
  return std::make_unique<process_runner>();
}
}  // namespace

// `make_runner("process", isolation::none)` (runner.hpp); the rank orders runner_names().
const runner_registration process_registration{"process", make_process_runner, 10};

}  // namespace grader
