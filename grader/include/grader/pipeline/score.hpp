// Stage 4, score: pure functions from what the earlier stages found (which
// exercises built, the tests' records, the graded answers) to unit reports. No
// process runs and no file is read here, so every rule is unit-tested with
// hand-made records (grader/tests/test_score.cpp).
#pragma once

#include <map>
#include <string>
#include <vector>

#include "grader/lesson/answers.hpp"
#include "grader/lesson/manifest.hpp"
#include "grader/lesson/review.hpp"
#include "grader/pipeline/build.hpp"
#include "grader/pipeline/report.hpp"
#include "grader/pipeline/resolve.hpp"
#include "grader/pipeline/run.hpp"

namespace grader {

struct score_inputs {
  std::string lesson;                              // for commands named in feedback
  std::map<std::string, build_failure> not_built;  // by exercise id
  std::vector<tag_run> runs;                       // every test job's result
  std::map<std::string, answers_result> answers;   // by exercise id
  review overrides;                                // an instructor's review, if any
};

// The run of `tag` in `exercise`'s binary, or nullptr.
const tag_run* find_run(const score_inputs& in, const std::string& exercise,
                        const std::string& tag);

// A code item: its tests' run, or the build failure of its exercise.
item_result score_code_item(const item& it, const exercise& e, const score_inputs& in, lang l);

// A veto detector fires only when it ran to the end and an assertion failed: a
// crash or a timeout in a detector is not evidence of the misconception.
bool veto_fired(const tag_run& run);

// Every item and veto of one unit, the review applied, score and verdict decided.
unit_report score_unit(const manifest& m, const unit& u, const score_inputs& in, lang l);

// The whole report's scored part: one unit report per graded unit, the exercises
// that did not build, and messages naming unfilled blanks and reused results.
report score_report(const manifest& m, const resolved& what, const build_result& built,
                    test_runs runs, std::map<std::string, answers_result> answers, review overrides,
                    lang l);

}  // namespace grader
