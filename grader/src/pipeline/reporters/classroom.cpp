// The classroom format: the result of one GitHub Classroom autograding runner, as the
// autograding-grading-reporter action reads it (base64-encoded in the step's `result`
// output; docs/formats/classroom.schema.json, from that action's source). The points
// are the rubric's: each test's `score` is its item's points and `max_score` the whole
// lesson's; a unit's verdict is a 0-point test.
//   grader lesson13 --format classroom | base64 -w0
#include "grader/pipeline/reporter.hpp"
#include "rows.hpp"

namespace grader {
namespace {

class classroom_reporter final : public reporter {
 public:
  void write(const report& r, std::ostream& out) const override {
    bool error = !r.build_failures.empty(), all_pass = true;
    nlohmann::json tests = nlohmann::json::array();
    for (const rows::row& x : rows::result_rows(r)) {
      all_pass &= x.status == rows::outcome::pass;
      error |= x.status == rows::outcome::error;
      tests.push_back({{"name", rows::utf8(x.name)},
                       {"status", x.status == rows::outcome::pass    ? "pass"
                                  : x.status == rows::outcome::error ? "error"
                                                                     : "fail"},
                       {"message", rows::utf8(x.message)},
                       {"score", x.points},
                       {"max_score", x.max_points},
                       {"line_no", 0},
                       {"execution_time", "0"},
                       {"test_code", ""},
                       {"filename", ""}});
    }
    const nlohmann::json results = {{"version", 1},
                                    {"status", error                    ? "error"
                                               : all_pass && r.passed() ? "pass"
                                                                        : "fail"},
                                    {"max_score", rows::total_max_points(r)},
                                    {"tests", tests}};
    out << results.dump(2) << "\n";
  }
};

}  // namespace

// `grader --format classroom` (reporter.hpp); the rank orders the list of formats.
const reporter_registration classroom_format{"classroom", reporter_of<classroom_reporter>, 60};

}  // namespace grader
