// The exercism format: Exercism's test-runner results.json, version 3
// (docs/formats/exercism.schema.json, from exercism/docs
// building/tooling/test-runners/interface.md). One test per rubric item in the manifest's
// order and a verdict test per unit; each links to its unit as the task (units from 1).
// "error" when an exercise did not build: the tests did not run.
//   grader lesson13 --format exercism > results.json
#include "grader/pipeline/reporter.hpp"
#include "rows.hpp"

namespace grader {
namespace {

const char* word(rows::outcome o) {
  return o == rows::outcome::pass ? "pass" : o == rows::outcome::fail ? "fail" : "error";
}

class exercism_reporter final : public reporter {
 public:
  void write(const report& r, std::ostream& out) const override {
    nlohmann::json tests = nlohmann::json::array();
    bool all_pass = true;
    for (const rows::row& x : rows::result_rows(r)) {
      all_pass &= x.status == rows::outcome::pass;
      nlohmann::json t = {
          {"name", rows::utf8(x.name)}, {"status", word(x.status)}, {"task_id", x.unit_index + 1}};
      if (x.status != rows::outcome::pass || !x.message.empty())
        t["message"] = rows::utf8(x.message);
      tests.push_back(std::move(t));
    }
    nlohmann::json results = {{"version", 3}, {"tests", tests}};
    if (!r.not_graded.empty()) {
      results["status"] = "error";
      results["message"] = rows::utf8(r.not_graded);
    } else if (!r.build_failures.empty()) {
      std::string why;
      for (const build_failure& b : r.build_failures)
        why += (why.empty() ? "" : "\n\n") + b.file +
               (b.timed_out ? " did not build in time" : " does not compile") +
               (b.diagnostics.empty() ? "" : ":\n" + b.diagnostics);
      results["status"] = "error";
      results["message"] = rows::utf8(why);
    } else {
      results["status"] = all_pass && r.passed() ? "pass" : "fail";
      results["message"] = nullptr;
    }
    out << results.dump(2) << "\n";
  }
};

}  // namespace

// `grader --format exercism` (reporter.hpp); the rank orders the list of formats.
const reporter_registration exercism_format{"exercism", reporter_of<exercism_reporter>, 50};

}  // namespace grader
