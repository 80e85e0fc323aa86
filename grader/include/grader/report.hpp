// A grading result: per-unit items with points and feedback, vetoes, score, pass
// line and verdict. Rendered as a table for people and as JSON for CI
// (docs/report.schema.json describes the JSON).
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "grader/manifest.hpp"

namespace grader {

enum class item_status { pass, partial, fail, error };
const char* to_string(item_status s);

struct item_result {
  std::string id, title;
  double points = 0, max_points = 0;
  item_status status = item_status::fail;
  std::string feedback;
  bool needs_review = false;
};

struct veto_result {
  std::string id, title, reason;
};

struct unit_report {
  std::string id, title;
  double score = 0, max_score = 0, pass_line = 0;
  bool passed = false;
  std::vector<item_result> items;
  std::vector<veto_result> vetoes;

  void add_veto(const std::string& id, const std::string& title, const std::string& reason);
  void finish();  // sums the score and decides the verdict
};

struct report {
  std::string lesson, title, submission;
  lang language = lang::en;
  unsigned seed = 0;
  std::vector<std::string> messages;  // unfilled blanks, compile errors, unreadable files
  std::vector<unit_report> units;
  nlohmann::json gpu;  // --gpu: the GPU section (null otherwise)

  bool passed() const;
};

// Top level: the first unit's fields (lesson, score, max_score, pass_line, passed,
// vetoes, items), then every unit under "units".
nlohmann::json to_json(const report& r);
std::string render_text(const report& r, bool color);

// Terminal columns a UTF-8 string takes (CJK characters take two).
size_t display_width(std::string_view s);

}  // namespace grader
