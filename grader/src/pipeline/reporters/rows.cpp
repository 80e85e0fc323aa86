// The flattening shared by the test-per-row formats (see rows.hpp).
#include "rows.hpp"

#include <fmt/format.h>

namespace grader::rows {
namespace {

const char* verdict_word(const unit_report& u) {
  return u.passed ? "PASS" : "FAIL";
}

std::string verdict_message(const unit_report& u) {
  std::string out = fmt::format("{} / {}, pass line {}: {}{}", u.score, u.max_score, u.pass_line,
                                verdict_word(u), u.provisional ? " (provisional)" : "");
  for (const veto_result& v : u.vetoes) {
    if (!v.applies()) continue;
    out += fmt::format("\nveto {}{}: {}", v.id,
                       v.provisional && v.review.empty() ? " (provisional)" : "", v.reason);
  }
  if (!u.passed && u.score + 1e-9 < u.pass_line)
    out += fmt::format("\nbelow the pass line by {}", u.pass_line - u.score);
  if (u.provisional) out += "\nprovisional: parts wait for a reviewer's decision";
  return out;
}

}  // namespace

std::vector<row> result_rows(const report& r) {
  std::vector<row> out;
  for (size_t u = 0; u < r.units.size(); ++u) {
    const unit_report& unit = r.units[u];
    for (const item_result& it : unit.items) {
      row x;
      x.unit_index = static_cast<int>(u);
      x.unit_id = unit.id;
      x.unit_title = unit.title;
      x.id = it.id;
      x.name = fmt::format("{} / {}: {}", unit.id, it.id, it.title);
      x.status = it.status == item_status::pass    ? outcome::pass
                 : it.status == item_status::error ? outcome::error
                                                   : outcome::fail;
      x.points = round_points(it.points);
      x.max_points = it.max_points;
      x.message = it.feedback;
      if (it.at_submission) {
        // Not part of this grade (a student release has no key): 0 of 0 points here, and a
        // pass when the form is complete, so the totals are those of what is graded here.
        if (it.status == item_status::at_submission) x.status = outcome::pass;
        x.max_points = 0;
        x.message = fmt::format(
                        "{:g} points, graded when the work is handed in (no answer key "
                        "here)",
                        it.max_points) +
                    (it.feedback.empty() ? "" : "\n" + it.feedback);
      }
      for (const std::string& w : it.warnings) x.message += "\nwarning: " + w;
      x.needs_review = it.needs_review;
      out.push_back(std::move(x));
    }
    row v;
    v.unit_index = static_cast<int>(u);
    v.unit_id = unit.id;
    v.unit_title = unit.title;
    v.id = "verdict";
    v.name = fmt::format("{} / verdict: pass line {} of {}, no veto", unit.id, unit.pass_line,
                         unit.max_score);
    v.status = unit.passed ? outcome::pass : outcome::fail;
    v.message = verdict_message(unit);
    v.needs_review = unit.provisional;
    v.verdict = true;
    out.push_back(std::move(v));
  }
  return out;
}

double total_points(const report& r) {
  double sum = 0;
  for (const unit_report& u : r.units) sum += u.score;
  return round_points(sum);
}

double total_max_points(const report& r) {
  double sum = 0;
  for (const unit_report& u : r.units) sum += u.max_score - u.at_submission_points;
  return round_points(sum);
}

std::string summary(const report& r) {
  std::string out = fmt::format("{}: {} / {}, {}", r.title, total_points(r), total_max_points(r),
                                r.passed() ? "PASS" : "FAIL");
  if (!r.not_graded.empty()) return out + "\nnot graded: " + r.not_graded;
  for (const unit_report& u : r.units) {
    const std::string verdict = verdict_message(u);
    out += fmt::format("\n{} ({}): {}", u.title, u.id, verdict.substr(0, verdict.find('\n')));
  }
  for (const unit_report& u : r.units)
    for (const veto_result& v : u.vetoes)
      if (v.applies()) out += fmt::format("\nveto {} in {}: {}", v.id, u.id, v.reason);
  for (const std::string& m : r.messages) out += "\n" + m;
  for (const build_failure& b : r.build_failures)
    out += fmt::format("\n{} did not build{}", b.file, b.timed_out ? " in time" : "");
  out += fmt::format("\nisolation: {}; seed {}",
                     r.isolation_level.empty() ? "none" : r.isolation_level, r.seed);
  return out;
}

}  // namespace grader::rows
