// The gradescope format: the results.json a Gradescope autograder writes to
// /autograder/results/ (docs/formats/gradescope.schema.json, from Gradescope's
// "Autograder Specifications"). One test per rubric item, with its points, and a
// 0-point verdict test per unit; everything visible to the student at once.
//   grader mark lesson13 DIR --format gradescope > /autograder/results/results.json
#include "grader/pipeline/reporter.hpp"
#include "rows.hpp"

namespace grader {
namespace {

class gradescope_reporter final : public reporter {
 public:
  void write(const report& r, std::ostream& out) const override {
    nlohmann::json tests = nlohmann::json::array();
    int in_unit = 0, unit = -1;
    for (const rows::row& x : rows::result_rows(r)) {
      in_unit = x.unit_index == unit ? in_unit + 1 : 1;
      unit = x.unit_index;
      nlohmann::json tags = {x.unit_id};
      if (x.needs_review) tags.push_back("needs_review");
      if (x.status == rows::outcome::error) tags.push_back("error");
      tests.push_back({{"name", rows::utf8(x.name)},
                       {"number", std::to_string(x.unit_index + 1) + "." + std::to_string(in_unit)},
                       {"score", x.points},
                       {"max_score", x.max_points},
                       {"status", x.status == rows::outcome::pass ? "passed" : "failed"},
                       {"output", rows::utf8(x.message)},
                       {"output_format", "text"},
                       {"tags", tags},
                       {"visibility", "visible"}});
    }
    const nlohmann::json results = {
        {"score", rows::total_points(r)}, {"output", rows::utf8(rows::summary(r))},
        {"output_format", "text"},        {"visibility", "visible"},
        {"stdout_visibility", "hidden"},  {"tests", tests}};
    out << results.dump(2) << "\n";
  }
};

}  // namespace

// `grader --format gradescope` (reporter.hpp); the rank orders the list of formats.
const reporter_registration gradescope_format{"gradescope", reporter_of<gradescope_reporter>, 30};

}  // namespace grader
