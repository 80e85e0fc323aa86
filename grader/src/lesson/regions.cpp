// Student-file generation and blank scanning (see regions.hpp).
#include "grader/lesson/regions.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cstdint>
#include <regex>

#include "grader/base/error.hpp"
#include "grader/base/files.hpp"
#include "grader/lesson/answers.hpp"

namespace grader {
namespace {

std::string_view trim_left(std::string_view s) {
  const auto p = s.find_first_not_of(" \t");
  return p == std::string_view::npos ? std::string_view{} : s.substr(p);
}

bool starts_with_marker(std::string_view line, std::string_view marker, std::string_view* rest) {
  std::string_view t = trim_left(line);
  if (!t.starts_with("//")) return false;
  t = trim_left(t.substr(2));
  if (!t.starts_with(marker)) return false;
  t = t.substr(marker.size());
  if (!t.empty() && t.front() != ' ') return false;
  if (rest) *rest = t.empty() ? t : t.substr(1);
  return true;
}

std::string cpp_student(std::string_view solution, std::string_view file_name) {
  std::string out;
  bool inside = false;
  int begin_line = 0, n = 0;
  for (std::string_view line : split_lines(solution)) {
    ++n;
    std::string_view rest;
    if (starts_with_marker(line, "BEGIN SOLUTION", nullptr)) {
      if (inside)
        throw input_error(fmt::format("{}:{}: BEGIN SOLUTION inside the region opened at line {}",
                                      file_name, n, begin_line));
      inside = true;
      begin_line = n;
    } else if (starts_with_marker(line, "END SOLUTION", nullptr)) {
      if (!inside)
        throw input_error(fmt::format("{}:{}: END SOLUTION without BEGIN SOLUTION", file_name, n));
      inside = false;
    } else if (starts_with_marker(line, "PROMPT", &rest)) {
      if (!inside)
        throw input_error(fmt::format("{}:{}: PROMPT outside a SOLUTION region", file_name, n));
      const std::string_view indent = line.substr(0, line.size() - trim_left(line).size());
      out.append(indent).append(rest).append("\n");
    } else if (!inside) {
      out.append(line).append("\n");
    }
  }
  if (inside)
    throw input_error(fmt::format("{}:{}: BEGIN SOLUTION is never closed", file_name, begin_line));
  return out;
}

bool is_heading(std::string_view line) {
  return trim_left(line).starts_with("#");
}

std::string answers_student(std::string_view solution) {
  static const std::regex ticked(R"(^(\s*[-*]\s*\[)[xX](\].*)$)");
  std::string out;
  bool in_answer = false;
  for (std::string_view line : split_lines(solution)) {
    if (in_answer && !is_heading(line)) {
      if (trim_left(line).empty()) out.append("\n");
      continue;  // the model answer's text
    }
    in_answer = false;
    std::string_view t = trim_left(line);
    if (const size_t prefix = answer_prefix(t)) {
      out.append(line.substr(0, line.size() - t.size())).append(t.substr(0, prefix)).append("\n");
      in_answer = true;
      continue;
    }
    out.append(std::regex_replace(std::string(line), ticked, "$1 $2")).append("\n");
  }
  // Keep exactly one blank line before headings that followed a removed answer.
  std::string tidy;
  for (size_t i = 0; i < out.size(); ++i) {
    if (out[i] == '\n' && tidy.size() >= 2 && tidy.ends_with("\n\n")) continue;
    tidy.push_back(out[i]);
  }
  return tidy;
}

}  // namespace

std::string make_student_file(std::string_view solution, std::string_view kind,
                              std::string_view file_name) {
  if (kind == "cpp" || kind == "cu") return cpp_student(solution, file_name);
  if (kind == "answers") return answers_student(solution);
  throw input_error(fmt::format("{}: no student-file rule for kind \"{}\"", file_name, kind));
}

std::vector<blank> find_blanks(std::string_view source) {
  static const std::regex pattern(R"(\bBLANK(?:_STMT)?\s*\(\s*([A-Za-z_][A-Za-z0-9_]*)\s*\))");
  std::vector<blank> out;
  int n = 0;
  for (std::string_view line : split_lines(source)) {
    ++n;
    const std::string code(line.substr(0, line.find("//")));
    for (std::sregex_iterator it(code.begin(), code.end(), pattern), end; it != end; ++it)
      out.push_back({(*it)[1].str(), n});
  }
  return out;
}

namespace {

// A line as compared: no // comment, no whitespace at all (so reformatting is no change).
std::string normalised(std::string_view line) {
  if (const auto c = line.find("//"); c != std::string_view::npos) line = line.substr(0, c);
  std::string out;
  for (char ch : line)
    if (ch != ' ' && ch != '\t' && ch != '\r') out.push_back(ch);
  return out;
}

struct code_line {
  int number;
  std::string text, key;
};

std::vector<code_line> code_lines(std::string_view text) {
  std::vector<code_line> out;
  int n = 0;
  for (std::string_view line : split_lines(text)) {
    ++n;
    std::string key = normalised(line);
    if (!key.empty()) out.push_back({n, std::string(line), std::move(key)});
  }
  return out;
}

bool holds_blank(const code_line& l) {
  return l.key.find("BLANK(") != std::string::npos ||
         l.key.find("BLANK_STMT(") != std::string::npos ||
         l.key.find("TUNABLE(") != std::string::npos;  // a value the student may change
}

}  // namespace

std::vector<outside_change> changes_outside_blanks(std::string_view exercise,
                                                   std::string_view student) {
  const auto a = code_lines(exercise), b = code_lines(student);
  if (b.size() > 20000) return {{"changed", 1, "(the whole file: too long to compare)"}};
  // Longest common subsequence of the two line lists, then the hunks between matches.
  const size_t n = a.size(), m = b.size();
  std::vector<std::vector<uint16_t>> lcs(n + 1, std::vector<uint16_t>(m + 1, 0));
  for (size_t i = n; i-- > 0;)
    for (size_t j = m; j-- > 0;)
      lcs[i][j] = a[i].key == b[j].key ? static_cast<uint16_t>(lcs[i + 1][j + 1] + 1)
                                       : std::max(lcs[i + 1][j], lcs[i][j + 1]);
  std::vector<outside_change> out;
  size_t i = 0, j = 0;
  while (i < n || j < m) {
    if (i < n && j < m && a[i].key == b[j].key) {
      ++i, ++j;
      continue;
    }
    // One hunk: the exercise lines removed and the student lines added up to the next match.
    const size_t i0 = i, j0 = j;
    while (i < n || j < m) {
      if (i < n && j < m && a[i].key == b[j].key) break;
      if (j < m && (i == n || lcs[i][j + 1] >= lcs[i + 1][j]))
        ++j;
      else
        ++i;
    }
    // The exercise's lines this hunk lost, blanks aside (a blank is the student's to
    // rewrite, in as many lines as they like); new lines only where nothing was lost.
    bool lost = false;
    for (size_t k = i0; k < i; ++k)
      if (!holds_blank(a[k])) {
        out.push_back({"changed", a[k].number, a[k].text});
        lost = true;
      }
    if (!lost && i == i0)
      for (size_t k = j0; k < j; ++k) out.push_back({"added", b[k].number, b[k].text});
  }
  return out;
}

}  // namespace grader
