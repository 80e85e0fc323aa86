// A throwaway report format, written exactly as a new src/pipeline/reporters/<name>.cpp
// would be: one file, one registration at its end, no other edit. grader_tests links it
// (test_plugins.cpp checks the registry), and so does grader_throwaway, the grader's own
// objects with this one file more (plugins_test.sh checks --format and --write).
//   one line per unit: "<unit> <score>/<max> PASS|FAIL"
#include <fmt/format.h>

#include "grader/pipeline/reporter.hpp"

namespace grader {
namespace {

class throwaway_reporter final : public reporter {
 public:
  void write(const report& r, std::ostream& out) const override {
    for (const unit_report& u : r.units)
      out << fmt::format("throwaway {} {}/{} {}\n", u.id, u.score, u.max_score,
                         u.passed ? "PASS" : "FAIL");
  }
};

std::unique_ptr<reporter> make_throwaway_reporter(const reporter_options&) {
  return std::make_unique<throwaway_reporter>();
}

}  // namespace

// `grader --format throwaway`: no rank, so it comes after the built-in formats.
const reporter_registration throwaway_format{"throwaway", make_throwaway_reporter};

}  // namespace grader
