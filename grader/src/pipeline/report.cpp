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
  }
  return "error";
}

void unit_report::add_veto(const std::string& id, const std::string& veto_title,
                           const std::string& reason) {
  for (auto& v : vetoes)
    if (v.id == id) {
      const auto reasons = split_reasons(v.reason);
      if (std::find(reasons.begin(), reasons.end(), reason) == reasons.end())
        v.reason += "; " + reason;
      return;
    }
  vetoes.push_back({id, veto_title, reason});
}

void unit_report::finish() {
  score = 0;
  for (auto& it : items) {
    it.points = round_points(it.points);
    score += it.points;
  }
  score = round_points(score);
  passed = score >= pass_line - 1e-9 && vetoes.empty();
}

bool report::passed() const {
  for (const auto& u : units)
    if (!u.passed) return false;
  return !units.empty();
}

}  // namespace grader
