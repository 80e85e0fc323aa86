// The runner registry: every runner (pipeline/run.hpp's `runner`), by name. Each is one
// file, src/pipeline/runners/<name>.cpp, that registers itself at its end:
//   const grader::runner_registration process_registration{"process", make_process, 10};
// `grade()` makes the runner for its isolation level through make_runner.
#pragma once

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "grader/base/sandbox.hpp"
#include "grader/pipeline/registry.hpp"
#include "grader/pipeline/run.hpp"

namespace grader {

// A runner's factory: the runner that isolates tests at `level`, or nullptr when it
// cannot (process isolates nothing; sandbox needs restricted or full).
using runner_factory = std::unique_ptr<runner> (*)(isolation level);
using runner_registration = registry<runner_factory>::registration;

// The runner registered as `name`, for `level`; nullptr when there is no such runner or
// it cannot give that level.
std::unique_ptr<runner> make_runner(std::string_view name, isolation level);
// Every registered runner, by rank: process, sandbox, then any other.
std::vector<std::string> runner_names();
// The runner a grade uses at `level` unless asked for another: process for none,
// sandbox for restricted and full.
std::string default_runner(isolation level);

}  // namespace grader
