// `grader review DIR`: the review queue of a class marked with `grader batch --out DIR`.
// It walks every answers part whose points came from free text (needs_review) or that
// raised or lifted a veto provisionally, across the class: the student's text beside the
// key's points (stated, missing or denied, with the sentence) and the misconceptions that
// fired. The instructor decides with keys: accept, set points, set or clear a veto. The
// decisions go to DIR/reviews/<student>.json (docs/review.schema.json); those students are
// marked again with them (--override) and the gradebook and summary are rewritten.
// On a terminal one key acts; otherwise one line per decision ("a", "p 1.5", "v 2"...),
// so a review can be scripted. Tests: ctest -R grader.review (grader/tests/review_test.sh).
#pragma once

#include <filesystem>
#include <istream>
#include <ostream>
#include <string>

#include "grader/base/i18n.hpp"
#include "grader/lesson/manifest.hpp"

namespace grader {

struct review_options {
  std::filesystem::path out;  // the batch's folder
  lang l = lang::en;
  std::string reviewer;         // recorded in the review files
  bool all = false;             // also the parts already decided
  bool list = false;            // print the queue and stop
  bool remark = true;           // mark the reviewed students again
  bool keys = false;            // the input is a terminal: single keys, no Enter
  std::filesystem::path trees;  // the re-mark's grading trees (default: the batch's OUT/.trees)
};

// Returns the exit code: 0 (reviewed, or nothing to review), 2 (no batch in `out`).
int run_review(const course& c, const review_options& o, std::istream& in, std::ostream& out);

}  // namespace grader
