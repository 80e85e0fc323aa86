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
  // Practice only: each exercise's test binary, to say how to rerun a failing item's tests
  // on the same inputs (a judge needs its compute process: none in marking mode).
  std::map<std::string, std::string> rerun_binaries = {};
  unsigned seed = 0;
  // The lesson's manifest, to name a blank the way `grader hint` takes it (online_softmax:m_new
  // where two exercises share the name); null: by its bare name.
  const manifest* lesson_manifest = nullptr;
};

// `<binary> "<tag>" --rng-seed <seed>` for exercise `exercise`, or "" in marking mode.
std::string rerun_command(const score_inputs& in, const std::string& exercise,
                          const std::string& tag);

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

// How the grade was made, for the report: plain data from the request and the runner.
struct grade_facts {
  lang language = lang::en;
  std::string submission = {};  // how the submission is named
  unsigned seed = 0;
  std::string isolation = {}, isolation_level = {}, isolation_detail = {};  // the runner's
  bool marking = false;
};

// The rules on what inspect() found (resolve.hpp), applied last, over any review: a file
// edited outside its blanks where the lesson forbids it, and CUDA code with accesses the
// emulator cannot count, score 0 on every item of their exercise, each with the reason.
// Every edit outside the blanks is listed in the report either way.
void apply_source_findings(const manifest& m, const resolved& what, report& rep);

// Each blank of each graded code exercise (report::blanks): empty where the source still
// has it, else its own [blank:<name>] test's verdict, else pass when every item of its
// exercise passes, else filled (nothing judges it alone yet).
void score_blanks(const manifest& m, const resolved& what, const score_inputs& in, report& rep);

// The whole report: one unit report per graded unit, the exercises that did not build,
// messages naming unfilled blanks and reused results, the source findings' verdicts, and
// how it was graded.
report score_report(const manifest& m, const resolved& what, const build_result& built,
                    test_runs runs, std::map<std::string, answers_result> answers, review overrides,
                    const grade_facts& facts);

// The report of a submission that could not be graded at all (`why`: the cannot_grade
// message): the lesson's units and items (only `unit`'s, when set), every item an error at
// 0 points with `why` as its feedback, and `not_graded` set.
report ungraded_report(const manifest& m, const std::string& unit, lang l,
                       const std::string& submission, const std::string& why);

}  // namespace grader
