// Unit tests for the plug-in registries (pipeline/registry.hpp): a report format and a
// runner are one file each. The throwaway format (throwaway/throwaway_format.cpp) and
// the throwaway runner below register as the real ones do, and every file in
// src/pipeline/reporters/ and src/pipeline/runners/ is registered without a list.
//   build/bin/grader_tests "[plugins]"
#include <catch2/catch.hpp>
#include <algorithm>
#include <filesystem>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

#include "grader/base/files.hpp"
#include "grader/pipeline/reporter.hpp"
#include "grader/pipeline/runner.hpp"

namespace fs = std::filesystem;
using grader::isolation;

namespace {

// A throwaway runner, as a new src/pipeline/runners/<name>.cpp would be: every job
// "passes" without running, which is all a registry test needs.
class throwaway_runner final : public grader::runner {
 public:
  std::string isolation() const override { return "throwaway"; }
  grader::tag_run run(const grader::test_job& job, unsigned, const grader::run_limits&) override {
    grader::tag_run t;
    t.exercise = job.exercise;
    t.tag = job.tag;
    return t;
  }
};

std::unique_ptr<grader::runner> make_throwaway_runner(isolation) {
  return std::make_unique<throwaway_runner>();
}

const grader::runner_registration throwaway_registration{"throwaway", make_throwaway_runner};

bool has(const std::vector<std::string>& names, const std::string& name) {
  return std::find(names.begin(), names.end(), name) != names.end();
}

// The names registered in the .cpp files of a source folder of the grader: each
// `..._registration NAME{"name", ...}` (a registration's first argument is its name).
std::vector<std::string> registered_in(const std::string& folder) {
  const std::regex registration(R"(_registration\s+\w+\s*\{\s*"([^"]+)\")");
  std::vector<std::string> names;
  for (const auto& f : fs::directory_iterator(fs::path(COURSE_SOURCE_DIR) / folder)) {
    if (f.path().extension() != ".cpp") continue;
    const std::string text = grader::read_text(f.path());
    for (std::sregex_iterator m(text.begin(), text.end(), registration), end; m != end; ++m)
      names.push_back((*m)[1]);
  }
  return names;
}

}  // namespace

TEST_CASE("the built-in formats keep their order, and a new one comes after them",
          "[plugins][report]") {
  const std::vector<std::string> builtin = {"text",     "json",      "gradescope", "junit",
                                            "exercism", "classroom", "markdown"};
  const auto formats = grader::reporter_formats();
  REQUIRE(formats.size() >= builtin.size() + 1);
  CHECK(std::vector<std::string>(formats.begin(), formats.begin() + builtin.size()) == builtin);
  CHECK(has(formats, "throwaway"));
  CHECK(formats.back() == "throwaway");  // no rank: after every ranked format
}

TEST_CASE("a format registered from its own file is made by name", "[plugins][report]") {
  grader::report r;
  grader::unit_report u;
  u.id = "exam";
  u.max_score = 10;
  u.pass_line = 8;
  grader::item_result item;
  item.id = "code.add";
  item.points = item.max_points = 10;
  item.status = grader::item_status::pass;
  u.items.push_back(item);
  u.finish();
  r.units = {u};
  const auto w = grader::make_reporter("throwaway");
  REQUIRE(w);
  std::ostringstream out;
  w->write(r, out);
  CHECK(out.str() == "throwaway exam 10/10 PASS\n");
  CHECK(grader::make_reporter("no-such-format") == nullptr);
}

TEST_CASE("runners are made by name, for the levels they can give", "[plugins][run]") {
  const auto names = grader::runner_names();
  REQUIRE(names.size() >= 3);
  CHECK(names[0] == "process");
  CHECK(names[1] == "sandbox");
  CHECK(has(names, "throwaway"));
  CHECK(grader::make_runner("process", isolation::none)->isolation() == "process");
  CHECK(grader::make_runner("process", isolation::full) == nullptr);
  CHECK(grader::make_runner("sandbox", isolation::none) == nullptr);
  CHECK(grader::make_runner("sandbox", isolation::restricted)->level() == isolation::restricted);
  CHECK(grader::make_runner("sandbox", isolation::full)->isolation() == "bubblewrap");
  CHECK(grader::make_runner("throwaway", isolation::none)->isolation() == "throwaway");
  CHECK(grader::make_runner("no-such-runner", isolation::none) == nullptr);
  CHECK(grader::default_runner(isolation::none) == "process");
  CHECK(grader::default_runner(isolation::full) == "sandbox");
}

TEST_CASE("every file in reporters/ and runners/ is built and registered, with no list",
          "[plugins]") {
  // CMake globs both folders (grader/CMakeLists.txt): a registration in any file there is
  // in the registry, so adding a file is the whole change.
  const auto formats = grader::reporter_formats();
  const auto in_reporters = registered_in("grader/src/pipeline/reporters");
  CHECK(in_reporters.size() >= 7);
  for (const std::string& name : in_reporters) {
    INFO("format " << name);
    CHECK(has(formats, name));
  }
  const auto runners = grader::runner_names();
  const auto in_runners = registered_in("grader/src/pipeline/runners");
  CHECK(in_runners.size() >= 2);
  for (const std::string& name : in_runners) {
    INFO("runner " << name);
    CHECK(has(runners, name));
  }
}
