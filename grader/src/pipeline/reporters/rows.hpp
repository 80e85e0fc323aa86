// A report flattened into rows, one per rubric item and one verdict row per unit: the
// shape every test-per-row format needs (Gradescope, JUnit, Exercism, GitHub Classroom).
// Each such reporter maps these rows to its format and nothing else, so the formats
// agree with one another and with the text report. Internal to the reporters.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "grader/base/text.hpp"
#include "grader/pipeline/report.hpp"

namespace grader::rows {

enum class outcome { pass, fail, error };

struct row {
  int unit_index = 0;  // the unit's place in the report, from 0
  std::string unit_id, unit_title;
  std::string id;    // the item's id, or "verdict"
  std::string name;  // "exam / code.update: Online update of m_new, l_new and O"
  outcome status = outcome::fail;
  double points = 0, max_points = 0;  // a verdict row: 0 of 0
  std::string message;                // the item's feedback, or the verdict and why
  bool needs_review = false;          // provisional: waits for a reviewer
  bool verdict = false;
};

// Items in the report's order, each unit's verdict row after its items. A unit's
// verdict (pass line and vetoes) carries no points of its own: the points are the
// items', and a veto shows as a failing verdict row. An item graded at submission (a
// student release's question) is worth 0 of 0 here and passes when its form is complete.
std::vector<row> result_rows(const report& r);

// Points earned and available over every unit (available: those graded here).
double total_points(const report& r);
double total_max_points(const report& r);

// A few lines for the whole submission: each unit's score and verdict, the vetoes, what
// waits for review, the isolation level, and the report's messages (blanks, build errors).
std::string summary(const report& r);

// Valid UTF-8 and XML-safe text (grader/base/text.hpp), under the names the reporters use.
inline std::string utf8(std::string_view s) {
  return valid_utf8(s);
}
using grader::xml_text;

}  // namespace grader::rows
