// An instructor's review of one grade, read from `grader <lesson> --override FILE`:
// points per item or per answers part, and vetoes set or cleared per unit. The
// report keeps the automatic value beside the reviewed one. Format (versioned,
// docs/review.schema.json):
//   {"schema": 1, "reviewer": "Li", "comment": "...",
//    "items":  {"q1": 1.5},
//    "parts":  {"q1.h": 0.4},
//    "vetoes": {"exam": {"flops-reduced": "clear", "no-running-max": "set"}}}
#pragma once

#include <filesystem>
#include <map>
#include <string>

#include "grader/lesson/manifest.hpp"

namespace grader {

enum class veto_decision { set, clear };

struct review {
  std::string file;  // as given on the command line, for the report
  std::string reviewer, comment;
  std::map<std::string, double> items;                                 // item id -> points
  std::map<std::string, double> parts;                                 // answers part id -> points
  std::map<std::string, std::map<std::string, veto_decision>> vetoes;  // unit -> veto -> decision

  bool empty() const { return items.empty() && parts.empty() && vetoes.empty(); }
};

// Reads and checks a review file: every id must be the lesson's (parts: a key of
// `part_points`, each answers part's full points), every value in range. Throws
// input_error with the file and the entry at fault.
review load_review(const std::filesystem::path& file, const manifest& m,
                   const std::map<std::string, double>& part_points);

}  // namespace grader
