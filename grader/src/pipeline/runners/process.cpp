// process_runner: a test job in a plain child process with a time limit and an
// output cap (see run.hpp). The reporter writes its records to a file of ours.
#include <atomic>
#include <cctype>
#include <fstream>
#include <sstream>

#include "course/protocol.hpp"
#include "grader/pipeline/run.hpp"

namespace grader {

tag_run process_runner::run(const test_job& job, unsigned seed, const run_limits& limits) {
  tag_run t;
  t.tag = job.tag;
  t.expected_tests = job.expected_tests;
  std::error_code ec;
  std::filesystem::create_directories(scratch_, ec);
  std::string safe;
  for (char c : job.tag)
    safe.push_back(std::isalnum(static_cast<unsigned char>(c)) || c == '.' || c == '-' ? c : '_');
  // A file of its own per job, even for two jobs of one binary and tag at once.
  static std::atomic<unsigned> jobs{0};
  const std::filesystem::path out_file = scratch_ / (job.binary.filename().string() + "." + safe +
                                                     "." + std::to_string(jobs++) + ".jsonl");
  std::filesystem::remove(out_file, ec);
  run_options opts;
  opts.timeout = limits.timeout;
  opts.max_output = limits.max_output;
  opts.max_memory = limits.max_memory;
  opts.max_processes = limits.max_processes;
  opts.env = sanitizer_environment();
  opts.inherit_env = false;  // tests and the code under test never see the grader's secrets
  if (!job.compute.empty()) {  // the judge starts it: its command line, fields split by \x1f
    std::string command;
    for (const auto& a : job.compute_wrapper) command += a + '\x1f';
    opts.env.push_back(std::string(::course::protocol::compute_variable) + "=" + command +
                       std::filesystem::absolute(job.compute).string());
  }
  std::vector<std::string> argv = job.wrapper;
  for (std::string a :
       {job.binary.string(), std::string("--reporter"), std::string(::course::protocol::reporter),
        std::string("--out"), out_file.string(), std::string("--rng-seed"), std::to_string(seed),
        std::string("--warn"), std::string("NoAssertions"), job.tag})
    argv.push_back(std::move(a));
  t.process = run_process(argv, opts);
  {
    std::ifstream in(out_file, std::ios::binary);
    std::ostringstream text;
    text << in.rdbuf();
    t.raw_records = text.str();
  }
  std::filesystem::remove(out_file, ec);
  t.records = parse_records(t.raw_records);
  return t;
}

}  // namespace grader
