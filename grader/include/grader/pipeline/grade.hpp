// Grades one submission of a lesson through the pipeline's stages:
//   resolve and inspect (resolve.hpp) -> build (build.hpp) -> run (run.hpp) -> score
//   (score.hpp), and with --gpu the same again on the GPU (gpu.hpp),
// and returns the report, which a reporter (reporter.hpp) then writes. See
// docs/architecture.md for what crosses each boundary.
#pragma once

#include <chrono>
#include <filesystem>
#include <map>
#include <optional>
#include <string>

#include "grader/lesson/manifest.hpp"
#include "grader/lesson/review.hpp"
#include "grader/pipeline/report.hpp"
#include "grader/pipeline/run.hpp"
#include "grader/pipeline/score.hpp"

namespace grader {

struct grade_request {
  // Exercise file name -> the file to grade. Only read, never written.
  std::map<std::string, std::filesystem::path> files;
  std::string label;  // how the submission is named in the report
  std::string unit;   // empty: every unit
  lang language = lang::en;
  unsigned seed = 0;  // Catch2 --rng-seed for the tests
  std::chrono::milliseconds test_timeout{std::chrono::seconds(10)};
  std::chrono::seconds build_timeout{std::chrono::minutes(5)};
  std::filesystem::path tree;  // empty: course::grading_tree(lesson)
  bool fresh = false;          // re-run every test, even of unchanged test binaries
  // How the tests and compiles are confined (sandbox_runner, grader/base/sandbox.hpp):
  // this level, or (unset) the strongest that works here; isolation::none is "off".
  // Grading refuses (cannot_grade) when the level asked for cannot run, or when the
  // level used is below `require`.
  std::optional<isolation> sandbox;
  isolation require = isolation::none;
  // The runner by name (pipeline/runner.hpp; --runner), or "" for the level's default:
  // process at none, sandbox at restricted and full.
  std::string runner;
  // Marking mode (grader mark): exercises with remote tests run split into a judge and a
  // compute process (course/remote.hpp), hidden tests included; results are never taken
  // from or saved to the cache; the build tree is <tree>-mark.
  bool marking = false;
  // The compiles confined too (grader/base/sandbox.hpp) when the tests are.
  bool confine_build = true;
  // --gpu: also build the CUDA exercises with nvcc, test them on the GPU and time them;
  // the report then holds a GPU section (pipeline/gpu.hpp).
  bool gpu = false;
  // An instructor's review (--override): points per item or part, vetoes set or
  // cleared; the report keeps the grader's own values beside them.
  review overrides;
};

// Grades with the given runner, or with the runner `request.sandbox` asks for.
report grade(const course& c, const manifest& m, const grade_request& request, runner& tests);
report grade(const course& c, const manifest& m, const grade_request& request);

// The grading tree a request builds in.
std::filesystem::path tree_of(const course& c, const manifest& m, const grade_request& request);

}  // namespace grader
