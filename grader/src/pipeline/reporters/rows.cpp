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

// The length of a valid UTF-8 sequence at s[i], or 0.
size_t utf8_sequence(std::string_view s, size_t i) {
  const auto b = [&](size_t k) { return static_cast<unsigned char>(s[k]); };
  const unsigned char c = b(i);
  if (c < 0x80) return 1;
  size_t n = c >= 0xF0 && c <= 0xF4 ? 4 : c >= 0xE0 ? 3 : c >= 0xC2 && c < 0xE0 ? 2 : 0;
  if (n == 0 || i + n > s.size()) return 0;
  for (size_t k = 1; k < n; ++k)
    if ((b(i + k) & 0xC0) != 0x80) return 0;
  // Overlong, surrogate and past-U+10FFFF forms.
  if (n == 3 && ((c == 0xE0 && b(i + 1) < 0xA0) || (c == 0xED && b(i + 1) >= 0xA0))) return 0;
  if (n == 4 && ((c == 0xF0 && b(i + 1) < 0x90) || (c == 0xF4 && b(i + 1) >= 0x90))) return 0;
  return n;
}

constexpr std::string_view kReplacement = "\xEF\xBF\xBD";

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
      x.message = it.at_submission ? "graded when the work is handed in (no answer key here)" +
                                         (it.feedback.empty() ? "" : "\n" + it.feedback)
                                   : it.feedback;
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
  for (const unit_report& u : r.units) sum += u.max_score;
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

std::string utf8(std::string_view s) {
  std::string out;
  out.reserve(s.size());
  for (size_t i = 0; i < s.size();) {
    const size_t n = utf8_sequence(s, i);
    if (n == 0) {
      out += kReplacement;
      ++i;
    } else {
      out.append(s.substr(i, n));
      i += n;
    }
  }
  return out;
}

std::string xml_text(std::string_view s) {
  const std::string valid = utf8(s);
  std::string out;
  out.reserve(valid.size());
  for (size_t i = 0; i < valid.size(); ++i) {
    const unsigned char c = static_cast<unsigned char>(valid[i]);
    switch (c) {
      case '&':
        out += "&amp;";
        break;
      case '<':
        out += "&lt;";
        break;
      case '>':
        out += "&gt;";
        break;
      case '"':
        out += "&quot;";
        break;
      case '\'':
        out += "&apos;";
        break;
      default:
        if (c < 0x20 && c != '\t' && c != '\n' && c != '\r')
          out += kReplacement;
        else if (c == 0xEF && i + 2 < valid.size() &&
                 static_cast<unsigned char>(valid[i + 1]) == 0xBF &&
                 (static_cast<unsigned char>(valid[i + 2]) == 0xBE ||
                  static_cast<unsigned char>(valid[i + 2]) == 0xBF)) {
          out += kReplacement;  // U+FFFE and U+FFFF are not XML characters
          i += 2;
        } else
          out += static_cast<char>(c);
    }
  }
  return out;
}

}  // namespace grader::rows
