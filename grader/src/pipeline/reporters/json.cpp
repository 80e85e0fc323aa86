// The json format: docs/report.schema.json, for CI (see reporter.hpp).
#include <cmath>

#include "grader/pipeline/gpu.hpp"
#include "grader/pipeline/reporter.hpp"

namespace grader {
namespace {

nlohmann::json unit_json(const unit_report& u, const report& r) {
  nlohmann::json items = nlohmann::json::array(), vetoes = nlohmann::json::array();
  for (const auto& it : u.items)
    items.push_back({{"id", it.id},
                     {"title", it.title},
                     {"points", round_points(it.points)},
                     {"max_points", it.max_points},
                     {"status", to_string(it.status)},
                     {"feedback", it.feedback},
                     {"needs_review", it.needs_review},
                     {"auto_points", round_points(it.auto_points)},
                     {"reviewed", it.reviewed},
                     {"warnings", it.warnings},
                     {"at_submission", it.at_submission},
                     {"rerun", it.rerun}});
  for (const auto& v : u.vetoes)
    vetoes.push_back({{"id", v.id},
                      {"reason", v.reason},
                      {"applies", v.applies()},
                      {"provisional", v.provisional},
                      {"lifted", v.lifted},
                      {"review", v.review}});
  return {{"lesson", r.lesson},
          {"unit", u.id},
          {"score", round_points(u.score)},
          {"max_score", u.max_score},
          {"pass_line", u.pass_line},
          {"passed", u.passed},
          {"provisional", u.provisional},
          {"at_submission_points", u.at_submission_points},
          {"vetoes", vetoes},
          {"items", items}};
}

class json_reporter final : public reporter {
 public:
  void write(const report& r, std::ostream& out) const override {
    // A submission's path (a batch's student folder) may hold bytes that are not UTF-8.
    out << to_json(r).dump(2, ' ', false, nlohmann::json::error_handler_t::replace) << "\n";
  }
};

}  // namespace

nlohmann::json to_json(const gpu_section& g) {
  nlohmann::json checks = nlohmann::json::array(), timings = nlohmann::json::array();
  for (const auto& c : g.checks)
    checks.push_back({{"item", c.item},
                      {"status", c.status},
                      {"feedback", c.feedback},
                      {"peak_mib", c.peak_bytes >> 20},
                      {"sanitizer_peak_mib", c.sanitizer_peak_bytes >> 20}});
  for (const auto& t : g.timings) {
    nlohmann::json baselines = nlohmann::json::array();
    for (const auto& b : t.baselines) baselines.push_back({{"name", b.name}, {"ms", b.ms}});
    timings.push_back({{"kernel", t.kernel},
                       {"size", t.size},
                       {"valid", t.valid},
                       {"ms", t.ms},
                       {"solution_ms", t.solution_ms},
                       {"baseline", t.baseline},
                       {"baseline_ms", t.baseline_ms},
                       {"baselines", baselines}});
  }
  return {{"device", g.device},
          {"arch", g.arch},
          {"checks", checks},
          {"timings", timings},
          {"messages", g.messages},
          {"disagreements", g.disagreements},
          {"bench_peak_mib", g.bench_peak_bytes >> 20}};
}

nlohmann::json to_json(const report& r) {
  nlohmann::json out = r.units.empty() ? nlohmann::json::object() : unit_json(r.units.front(), r);
  out["title"] = r.title;
  out["submission"] = r.submission;
  out["seed"] = r.seed;
  out["lang"] = r.language == lang::zh ? "zh" : "en";
  out["messages"] = r.messages;
  if (!r.not_graded.empty()) out["not_graded"] = r.not_graded;
  out["isolation"] = r.isolation;
  out["isolation_level"] = r.isolation_level;
  out["isolation_detail"] = r.isolation_detail;
  out["review_file"] = r.review_file;
  out["reused"] = r.reused;
  out["build_failures"] = nlohmann::json::array();
  for (const auto& b : r.build_failures)
    out["build_failures"].push_back(
        {{"file", b.file}, {"diagnostics", b.diagnostics}, {"timed_out", b.timed_out}});
  out["outside_blanks"] = nlohmann::json::array();
  for (const auto& e : r.outside_blanks)
    out["outside_blanks"].push_back({{"file", e.file},
                                     {"kind", e.change.kind},
                                     {"line", e.change.line},
                                     {"text", e.change.text}});
  out["mode"] = r.mode;
  out["ignored_files"] = r.ignored_files;
  out["judged_apart"] = r.judged_apart;
  out["units"] = nlohmann::json::array();
  for (const auto& u : r.units) out["units"].push_back(unit_json(u, r));
  // The lesson's verdict, not the first unit's: every unit graded passed (the exit code).
  out["passed"] = r.passed();
  out["units_passed"] = r.units_passed();
  out["units_graded"] = r.units.size();
  out["blanks"] = nlohmann::json::array();
  for (const auto& b : r.blanks)
    out["blanks"].push_back({{"exercise", b.exercise},
                             {"file", b.file},
                             {"name", b.name},
                             {"line", b.line},
                             {"status", to_string(b.status)},
                             {"detail", b.detail},
                             {"hint", b.hint},
                             {"judged_alone", b.judged_alone},
                             {"rerun", b.rerun}});
  if (r.gpu) out["gpu"] = to_json(*r.gpu);
  return out;
}

// `grader --format json` (reporter.hpp); the rank orders the list of formats.
const reporter_registration json_format{"json", reporter_of<json_reporter>, 20};

}  // namespace grader
