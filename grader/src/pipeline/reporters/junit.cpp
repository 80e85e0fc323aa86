// The junit format: JUnit XML as GitLab's and Jenkins' test reports read it
// (docs/formats/junit.md: the elements and attributes used, from Jenkins' JUnit schema).
// One <testsuite> per unit with its score in <properties>; one <testcase> per rubric item
// and one for the unit's verdict. A failed item is a <failure>, an item that could not be
// judged (a crash, a timeout, no build) an <error>.
//   grader mark lesson13 DIR --format junit > report.xml
#include <fmt/format.h>

#include "grader/pipeline/reporter.hpp"
#include "rows.hpp"

namespace grader {
namespace {

using rows::xml_text;

class junit_reporter final : public reporter {
 public:
  void write(const report& r, std::ostream& out) const override {
    const std::vector<rows::row> all = rows::result_rows(r);
    auto count = [&](int unit, rows::outcome o) {
      int n = 0;
      for (const rows::row& x : all) n += x.unit_index == unit && x.status == o;
      return n;
    };
    int tests = static_cast<int>(all.size()), failures = 0, errors = 0;
    for (const rows::row& x : all) {
      failures += x.status == rows::outcome::fail;
      errors += x.status == rows::outcome::error;
    }
    out << "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n";
    out << fmt::format(
        "<testsuites name=\"{}\" tests=\"{}\" failures=\"{}\" errors=\"{}\" time=\"0\">\n",
        xml_text(r.lesson), tests, failures, errors);
    for (size_t u = 0; u < r.units.size(); ++u) {
      const unit_report& unit = r.units[u];
      const int i = static_cast<int>(u);
      int in_unit = 0;
      for (const rows::row& x : all) in_unit += x.unit_index == i;
      out << fmt::format(
          "  <testsuite name=\"{}.{}\" tests=\"{}\" failures=\"{}\" errors=\"{}\" skipped=\"0\" "
          "time=\"0\">\n",
          xml_text(r.lesson), xml_text(unit.id), in_unit, count(i, rows::outcome::fail),
          count(i, rows::outcome::error));
      out << "    <properties>\n";
      for (const auto& [name, value] : {std::pair<const char*, std::string>{"title", unit.title},
                                        {"score", fmt::format("{}", unit.score)},
                                        {"max_score", fmt::format("{}", unit.max_score)},
                                        {"pass_line", fmt::format("{}", unit.pass_line)},
                                        {"passed", unit.passed ? "true" : "false"},
                                        {"provisional", unit.provisional ? "true" : "false"},
                                        {"isolation", r.isolation_level},
                                        {"seed", std::to_string(r.seed)}})
        out << fmt::format("      <property name=\"{}\" value=\"{}\"/>\n", name, xml_text(value));
      out << "    </properties>\n";
      for (const rows::row& x : all) {
        if (x.unit_index != i) continue;
        out << fmt::format("    <testcase classname=\"{}.{}\" name=\"{}\" time=\"0\"",
                           xml_text(r.lesson), xml_text(unit.id), xml_text(x.name));
        if (x.status == rows::outcome::pass && x.message.empty()) {
          out << "/>\n";
          continue;
        }
        out << ">\n";
        const std::string first = x.message.substr(0, x.message.find('\n'));
        const std::string points = fmt::format("{} of {} points", x.points, x.max_points);
        if (x.status == rows::outcome::fail)
          out << fmt::format("      <failure message=\"{}\" type=\"{}\">{}</failure>\n",
                             xml_text(first.empty() ? points : first),
                             x.verdict ? "verdict" : "rubric", xml_text(points + "\n" + x.message));
        else if (x.status == rows::outcome::error)
          out << fmt::format("      <error message=\"{}\" type=\"error\">{}</error>\n",
                             xml_text(first.empty() ? points : first),
                             xml_text(points + "\n" + x.message));
        else
          out << fmt::format("      <system-out>{}</system-out>\n",
                             xml_text(points + "\n" + x.message));
        out << "    </testcase>\n";
      }
      out << "  </testsuite>\n";
    }
    out << "</testsuites>\n";
  }
};

}  // namespace

// `grader --format junit` (reporter.hpp); the rank orders the list of formats.
const reporter_registration junit_format{"junit", reporter_of<junit_reporter>, 40};

}  // namespace grader
