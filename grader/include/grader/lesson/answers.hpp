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
// tolerance), term (one of several accepted spellings), explanation (key points, each
// earned by a sentence that states one of its claims; always marked needs_review).
#pragma once

#include <filesystem>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "grader/base/i18n.hpp"
#include "grader/reader/reader.hpp"

namespace grader {

// One problem in an answers file, at its line (1-based; 0 when it has none).
struct answers_problem {
  int line = 0;
  std::string message;  // English or bilingual, without the file name
};

struct answer_part {
  std::string id;
  int line = 0;  // the heading's line
  // Option letters ticked: [x] [X] [ x ] [√] [✓] [✔] [☑] [✅], a bare ☑ or ✅ (answers_markdown.cpp).
  std::set<std::string> ticked;
  std::set<std::string> options;  // every option letter present
  std::string answer;             // text after answer: (and the blocks below it), trimmed
  int answer_line = 0;            // the line of "answer:" (0: none)
  // Any other prose inside the part, e.g. a reason written under the boxes of a
  // choice. Claims (misconceptions, lifted vetoes) read it with `answer`.
  std::string prose;
  // What is malformed in this part; a part with problems scores 0 and lists them all.
  std::vector<answers_problem> problems;
};

struct answers_doc {
  std::map<std::string, answer_part> parts;
  std::vector<answers_problem> problems;  // outside any part
  // "" when the file was UTF-8; otherwise the encoding it was decoded from
  // (e.g. "GB18030"), which the report mentions.
  std::string encoding;
};

// Reads an answers file's bytes as CommonMark. Never throws on content: every
// problem goes to the part it belongs to, or to doc.problems. A file that is
// neither UTF-8 nor a known legacy encoding has no parts and one problem.
answers_doc parse_answers(std::string_view bytes);

// An explanation's key point: earned when the answer states one of its claims (claims.hpp)
// and denies none of them; a denial ("it is not memory-bound") costs the point.
struct key_point {
  text label;
  std::vector<claim> claims;
};

// A wrong idea stated in plain words: raises `veto` provisionally on the parts (all when
// `parts` is empty) whose free text (answer and prose) states one of its claims.
struct misconception {
  std::string veto;
  text label;
  std::vector<claim> claims;
  std::set<std::string> parts;
};

struct key_part {
  std::string id, item, type;
  double points = 0;
  std::set<std::string> options, correct;  // choice, multi
  double value = 0, tolerance = 0;         // number
  double relative_tolerance = 0;           // number: a share of |value|, added to tolerance
  std::string unit;
  std::vector<std::string> accept;  // term, normalised
  std::vector<key_point> key_points;
  std::map<std::string, std::string> veto_if_selected;  // option -> veto id
  std::string veto_if_wrong, veto_if_blank;
  // choice, multi: the right reason; stated in the part's own text, it lifts the vetoes its
  // ticks raised (provisionally, for a reviewer).
  std::vector<claim> veto_lifted_by;
  double outside_lo = 0, outside_hi = 0;
  std::string veto_if_outside;
};

struct answer_key {
  std::vector<key_part> parts;
  std::vector<misconception> misconceptions;
  double points_of(const std::string& item) const;
};

// Throws input_error naming the key file on a malformed key.
answer_key load_answer_key(const std::filesystem::path& file);

struct veto_hit {
  std::string id;
  std::string reason;
  // Raised (or, in part_grade::lifted, lifted) on the strength of free text alone:
  // the automatic verdict holds until a reviewer confirms or overrides it.
  bool provisional = false;
};

struct part_grade {
  std::string id, item;
  double points = 0, max_points = 0;
  std::string feedback;  // empty when full marks
  bool needs_review = false;
  bool blank = false;  // not answered (or its heading is missing)
  std::vector<veto_hit> vetoes;
  std::vector<veto_hit> lifted;  // tick-based vetoes the part's own text argued away
};

std::vector<part_grade> grade_answers(const answers_doc& doc, const answer_key& key, lang l);

// An answers file graded against its key, or why it could not be read.
struct answers_result {
  std::vector<part_grade> parts;
  std::string error;  // "<file>:<line>: ..." when the file cannot be decoded
  std::string note;   // for the report, e.g. that the file was not UTF-8 but GB18030
  // No key here (a student release): `parts` only say whether each part is answered in a
  // readable form (blank, or feedback naming the problem); the points come at submission.
  bool at_submission = false;
};
answers_result grade_answers_file(const std::filesystem::path& file, const answer_key& key, lang l);

// A part as a student release knows it: the key without its answers (id, item, type and,
// for a number, the unit the question names). The release writes these into RELEASE.json.
struct part_form {
  std::string id, item, type, unit;
};
std::vector<part_form> form_of(const answer_key& key);
nlohmann::json to_json(const std::vector<part_form>& form);
// Throws input_error (naming `where`) on anything but a list of parts with known types.
std::vector<part_form> form_from_json(const nlohmann::json& j, const std::string& where);

// Without the key: every part of `form` answered, and in a form the key could grade (a tick
// in a choice, one tick in a single choice, a readable number, some text). Sets at_submission.
answers_result check_answers_form(const std::filesystem::path& file,
                                  const std::vector<part_form>& form, lang l);

// The length of the "answer:" that starts `line` (any case, spaces before an ASCII or
// full-width colon), or 0. The parser and the student-file generator share it, so what one
// reads as an answer the other clears.
size_t answer_prefix(std::string_view line);

// Lower-cases ASCII and folds the spellings of a formula: Θ(N² d²/M) -> n^2d^2/m.
std::string normalise_term(std::string_view s);

}  // namespace grader
