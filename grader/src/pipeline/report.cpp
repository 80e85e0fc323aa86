// The report's data: verdicts, vetoes, scores (see report.hpp).
#include "grader/pipeline/report.hpp"

#include <algorithm>
#include <cmath>

namespace grader {
namespace {

std::vector<std::string> split_reasons(const std::string& joined) {
  std::vector<std::string> out;
  for (size_t start = 0;;) {
    const size_t end = joined.find("; ", start);
    out.push_back(joined.substr(start, end == std::string::npos ? std::string::npos : end - start));
    if (end == std::string::npos) return out;
    start = end + 2;
  }
}

}  // namespace

double round_points(double x) {
  return std::round(x * 100.0) / 100.0;
}

const char* to_string(item_status s) {
  switch (s) {
    case item_status::pass:
      return "pass";
    case item_status::partial:
      return "partial";
    case item_status::fail:
      return "fail";
    case item_status::error:
      return "error";
    case item_status::at_submission:
      return "at_submission";
  }
  return "error";
}

bool veto_result::applies() const {
  if (review == "set") return true;
  if (review == "cleared") return false;
  return !lifted;
}

void unit_report::add_veto(const veto_result& v) {
  for (auto& have : vetoes)
    if (have.id == v.id) {
      // Strength: lifted < provisional < firm. The stronger raise replaces the weaker.
      auto strength = [](const veto_result& x) { return x.lifted ? 0 : x.provisional ? 1 : 2; };
      if (strength(v) > strength(have)) {
        have.reason = v.reason;
        have.provisional = v.provisional;
        have.lifted = v.lifted;
      } else if (strength(v) == strength(have)) {
        const auto reasons = split_reasons(have.reason);
        if (std::find(reasons.begin(), reasons.end(), v.reason) == reasons.end())
          have.reason += "; " + v.reason;
      }
      return;
    }
  vetoes.push_back(v);
}

void unit_report::add_veto(const std::string& id, const std::string& veto_title,
                           const std::string& reason) {
  veto_result v;
  v.id = id;
  v.title = veto_title;
  v.reason = reason;
  add_veto(v);
}

void unit_report::finish() {
  score = 0;
  provisional = false;
  at_submission_points = 0;
  bool all_here_passed = true;  // every item graded here full marks, every question answered
  for (auto& it : items) {
    it.points = round_points(it.points);
    it.auto_points = round_points(it.auto_points);
    score += it.points;
    provisional |= it.needs_review;
    if (it.at_submission) at_submission_points += it.max_points;
    all_here_passed &=
        it.status == (it.at_submission ? item_status::at_submission : item_status::pass);
  }
  score = round_points(score);
  bool vetoed = false;
  for (const auto& v : vetoes) {
    vetoed |= v.applies();
    provisional |= v.provisional && v.review.empty();
  }
  // Points graded at submission cannot be judged against the pass line here.
  if (at_submission_points > 0) {
    provisional = true;
    passed = all_here_passed && !vetoed;
    return;
  }
  passed = score >= pass_line - 1e-9 && !vetoed;
}

int report::units_passed() const {
  return static_cast<int>(
      std::count_if(units.begin(), units.end(), [](const unit_report& u) { return u.passed; }));
}

const char* to_string(blank_status s) {
  switch (s) {
    case blank_status::empty:
      return "empty";
    case blank_status::pass:
      return "pass";
    case blank_status::fail:
      return "fail";
    case blank_status::waiting:
      return "waiting";
    case blank_status::filled:
      return "filled";
    case blank_status::error:
      return "error";
  }
  return "?";
}

bool report::passed() const {
  for (const auto& u : units)
    if (!u.passed) return false;
  return !units.empty();
}

}  // namespace grader
