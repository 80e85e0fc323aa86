// Catch2's main, compiled once for every lesson test binary, plus the "course-json"
// reporter: one JSON object per test case, flushed as soon as the case ends, so the
// grader keeps every finished result even if student code crashes the process later.
//   lesson13_tests --reporter course-json "[code.update]"
#define CATCH_CONFIG_MAIN
#include <catch2/catch.hpp>

#include <nlohmann/json.hpp>

namespace {

class course_json_reporter : public Catch::StreamingReporterBase<course_json_reporter> {
 public:
  using StreamingReporterBase::StreamingReporterBase;

  static std::string getDescription() {
    return "One JSON object per test case (name, tags, passed, failures), for the course grader";
  }

  void assertionStarting(Catch::AssertionInfo const&) override {}

  bool assertionEnded(Catch::AssertionStats const& stats) override {
    const auto& result = stats.assertionResult;
    if (result.isOk()) return true;
    nlohmann::json failure{
        {"file", result.getSourceInfo().file},
        {"line", result.getSourceInfo().line},
        {"expression", result.hasExpression() ? result.getExpressionInMacro() : ""},
        {"expanded", result.hasExpandedExpression() ? result.getExpandedExpression() : ""},
        {"message", result.hasMessage() ? result.getMessage() : ""},
        {"kind", kind_name(result.getResultType())},
        {"info", nlohmann::json::array()},
    };
    for (const auto& info : stats.infoMessages) {
      if (info.type == Catch::ResultWas::Info) failure["info"].push_back(info.message);
    }
    failures_.push_back(std::move(failure));
    return true;
  }

  void testCaseStarting(Catch::TestCaseInfo const& info) override {
    StreamingReporterBase::testCaseStarting(info);
    failures_ = nlohmann::json::array();
  }

  void testCaseEnded(Catch::TestCaseStats const& stats) override {
    nlohmann::json record{
        {"test", stats.testInfo.name},
        {"tags", stats.testInfo.tags},
        {"passed", stats.totals.assertions.allOk() && stats.totals.assertions.total() > 0},
        {"assertions", stats.totals.assertions.total()},
        {"failures", failures_},
        {"seed", m_config->rngSeed()},
    };
    stream << record.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace) << '\n'
           << std::flush;
    StreamingReporterBase::testCaseEnded(stats);
  }

 private:
  static const char* kind_name(Catch::ResultWas::OfType type) {
    switch (type) {
      case Catch::ResultWas::ThrewException:
        return "exception";
      case Catch::ResultWas::FatalErrorCondition:
        return "fatal";
      case Catch::ResultWas::ExplicitFailure:
        return "fail";
      default:
        return "assertion";
    }
  }

  nlohmann::json failures_ = nlohmann::json::array();
};

}  // namespace

CATCH_REGISTER_REPORTER("course-json", course_json_reporter)
