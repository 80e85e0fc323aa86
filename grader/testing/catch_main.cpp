// The "course-json" reporter of every lesson test binary, and its main() (Catch2's
// implementation is catch_impl.cpp, a shared library): one JSON object per test case,
// flushed as soon as the case ends, so the grader keeps every finished result even if
// student code crashes the process later. The record's fields are the protocol in
// course/protocol.hpp. A program with a main() of its own links neither.
//   lesson13_online_softmax_tests --reporter course-json --out r.jsonl "[code.update]"
#define CATCH_CONFIG_EXTERNAL_INTERFACES  // the reporter bases, without the implementation
#include <catch2/catch.hpp>

#include <nlohmann/json.hpp>

#include "course/blank.hpp"
#include "course/protocol.hpp"

namespace {

namespace protocol = course::protocol;

class course_json_reporter : public Catch::StreamingReporterBase<course_json_reporter> {
 public:
  using StreamingReporterBase::StreamingReporterBase;

  static std::string getDescription() {
    return "One JSON object per test case (name, tags, passed, failures), for the course grader";
  }

  void assertionStarting(Catch::AssertionInfo const&) override {}

  bool assertionEnded(Catch::AssertionStats const& stats) override {
    const auto& result = stats.assertionResult;
    if (result.getResultType() == Catch::ResultWas::Warning && result.hasMessage()) {
      warnings_.push_back(result.getMessage());
      return true;
    }
    if (result.isOk()) return true;
    namespace f = protocol::failure_field;
    nlohmann::json failure{
        {f::file, result.getSourceInfo().file},
        {f::line, result.getSourceInfo().line},
        {f::expression, result.hasExpression() ? result.getExpressionInMacro() : ""},
        {f::expanded, result.hasExpandedExpression() ? result.getExpandedExpression() : ""},
        {f::message, result.hasMessage() ? result.getMessage() : ""},
        {f::kind, kind_name(result.getResultType())},
        {f::info, nlohmann::json::array()},
    };
    for (const auto& info : stats.infoMessages) {
      if (info.type == Catch::ResultWas::Info) failure[f::info].push_back(info.message);
    }
    failures_.push_back(std::move(failure));
    return true;
  }

  void testCaseStarting(Catch::TestCaseInfo const& info) override {
    StreamingReporterBase::testCaseStarting(info);
    failures_ = nlohmann::json::array();
    warnings_ = nlohmann::json::array();
    course::thrown_blank = nullptr;
  }

  void testCaseEnded(Catch::TestCaseStats const& stats) override {
    namespace f = protocol::field;
    nlohmann::json record{
        {f::test, stats.testInfo.name},
        {f::tags, stats.testInfo.tags},
        {f::passed, stats.totals.assertions.allOk() && stats.totals.assertions.total() > 0},
        {f::assertions, stats.totals.assertions.total()},
        {f::failures, failures_},
        {f::seed, m_config->rngSeed()},
    };
    if (!warnings_.empty()) record[f::warnings] = warnings_;
    // A blank that threw during a failed case: the case failed because of it.
    if (course::thrown_blank && !stats.totals.assertions.allOk())
      record[f::blank] = course::thrown_blank;
    stream << record.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace) << '\n'
           << std::flush;
    StreamingReporterBase::testCaseEnded(stats);
  }

 private:
  static std::string_view kind_name(Catch::ResultWas::OfType type) {
    switch (type) {
      case Catch::ResultWas::ThrewException:
        return protocol::failure_kind::exception;
      case Catch::ResultWas::FatalErrorCondition:
        return protocol::failure_kind::fatal;
      case Catch::ResultWas::ExplicitFailure:
        return protocol::failure_kind::fail;
      default:
        return protocol::failure_kind::assertion;
    }
  }

  nlohmann::json failures_ = nlohmann::json::array();
  nlohmann::json warnings_ = nlohmann::json::array();
};

}  // namespace

// The name must equal protocol::reporter (Catch2's macro needs a literal).
CATCH_REGISTER_REPORTER("course-json", course_json_reporter)
// The test binary's main(), here so that the linker, taking this file for it, keeps the
// reporter; Catch2's session runs in catch_impl.cpp.
int course_catch_main(int argc, char* argv[]);
int main(int argc, char* argv[]) {
  return course_catch_main(argc, argv);
}
static_assert(protocol::reporter == "course-json");
