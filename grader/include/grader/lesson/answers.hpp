// Q&A grading: the student's answers file (markdown) against the answer key
// (solutions/<lesson>/<key>.json).
//
// Answers file format, by example:
//   ### [q1.a] Where do S and P live?        a part: its id in brackets in a heading
//   - [x] (c) HBM                            a choice: tick with [x]
//   answer: 32                               a number or a term
//   answer:                                  an explanation: the lines below it,
//   S and P are N×N and go through HBM...    up to the next heading
//
// Key part types: choice (one box), multi (several boxes), number (value ±
// tolerance), term (one of several accepted spellings), explanation (key points,
// each matched by any of its zh/en synonyms; always marked needs_review).
#pragma once

#include <filesystem>
#include <map>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "grader/base/i18n.hpp"

namespace grader {

struct answer_part {
  std::string id;
  int line = 0;
  std::set<std::string> ticked;   // option letters with [x]
  std::set<std::string> options;  // every option letter present
  std::string answer;             // text after answer: (and below it), trimmed
};

struct answers_doc {
  std::map<std::string, answer_part> parts;
};

// Throws input_error "<file_name>:<line>: ..." when the file cannot be read as answers.
answers_doc parse_answers(std::string_view text, std::string_view file_name);

struct key_point {
  text label;
  std::vector<std::string> any;  // lower-case synonyms, zh and en
};

struct key_part {
  std::string id, item, type;
  double points = 0;
  std::set<std::string> options, correct;  // choice, multi
  double value = 0, tolerance = 0;         // number
  std::string unit;
  std::vector<std::string> accept;  // term, normalised
  std::vector<key_point> key_points;
  std::map<std::string, std::string> veto_if_selected;  // option -> veto id
  std::string veto_if_wrong, veto_if_blank;
  double outside_lo = 0, outside_hi = 0;
  std::string veto_if_outside;
};

struct answer_key {
  std::vector<key_part> parts;
  double points_of(const std::string& item) const;
};

// Throws input_error naming the key file on a malformed key.
answer_key load_answer_key(const std::filesystem::path& file);

struct veto_hit {
  std::string id;
  std::string reason;
};

struct part_grade {
  std::string id, item;
  double points = 0, max_points = 0;
  std::string feedback;  // empty when full marks
  bool needs_review = false;
  bool blank = false;  // not answered (or its heading is missing)
  std::vector<veto_hit> vetoes;
};

std::vector<part_grade> grade_answers(const answers_doc& doc, const answer_key& key, lang l);

// An answers file graded against its key, or why it could not be read.
struct answers_result {
  std::vector<part_grade> parts;
  std::string error;  // "<file>:<line>: ..." when the file is malformed
};
answers_result grade_answers_file(const std::filesystem::path& file, const answer_key& key, lang l);

// The length of the "answer:" that starts `line` (any case, ASCII or full-width
// colon), or 0. The parser and the student-file generator share it, so what one
// reads as an answer the other clears.
size_t answer_prefix(std::string_view line);

// Lower-cases ASCII and folds the spellings of a formula: Θ(N² d²/M) -> n^2d^2/m.
std::string normalise_term(std::string_view s);

}  // namespace grader
