// Stage 5's input: the grading result as plain data. Per unit: items with points
// and feedback, vetoes, score, pass line and verdict; for the whole grade: the
// messages (unfilled blanks), the results reused from a cache, the exercises that did not build,
// and how the tests were isolated. Reporters (reporter.hpp) turn it into text,
// JSON and other formats.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "grader/base/i18n.hpp"
#include "grader/lesson/regions.hpp"

namespace grader {

// Points are kept and shown to hundredths.
double round_points(double x);

// at_submission: a question of a student release, which ships no answer key; it is
// graded when the work is handed in (only its completeness is checked here).
enum class item_status { pass, partial, fail, error, at_submission };
const char* to_string(item_status s);

struct item_result {
  std::string id, title;
  double points = 0, max_points = 0;
  item_status status = item_status::fail;
  std::string feedback;
  bool needs_review = false;  // judged from free text: a reviewer should look
  // The grader's own points; `points` differs only where a review changed them.
  double auto_points = 0;
  bool reviewed = false;  // an override set the item or one of its parts
  // What the tests warned about, whatever the verdict (an emulator warning: a
  // __shared__ array it cannot see, a write to static data).
  std::vector<std::string> warnings = {};
  // Graded at submission (a student release has no key): status at_submission when every
  // part is answered in a readable form, fail when one is not; no points here either way.
  bool at_submission = false;
  // A failing code item's tests, run again on the same inputs (practice only), or "".
  std::string rerun = {};
};

struct veto_result {
  std::string id, title, reason;
  // Raised, or lifted, on free text alone: it stands until a reviewer decides.
  bool provisional = false;
  // The automatic grade does not apply it: the part's own text argued it away.
  bool lifted = false;
  std::string review;  // "", "set" or "cleared": a reviewer's decision, which wins

  bool applies() const;  // counts against the verdict
};

struct unit_report {
  std::string id, title;
  double score = 0, max_score = 0, pass_line = 0;
  bool passed = false;
  // Something in the verdict still waits for review: a provisional veto or lift,
  // or an item judged from free text.
  bool provisional = false;
  // The points of items graded at submission (a student release): the verdict is then
  // provisional, and `passed` means every item graded here passed, nothing vetoed, and every
  // question answered.
  double at_submission_points = 0;
  std::vector<item_result> items;
  std::vector<veto_result> vetoes;  // lifted and cleared ones too, each marked

  // Merges by id: a firm raise outweighs a provisional one, and any raise a lift.
  void add_veto(const veto_result& v);
  void add_veto(const std::string& id, const std::string& title, const std::string& reason);
  void finish();  // sums the score and decides the verdict
};

// An exercise file that did not compile: its items are errors, nothing else is.
struct build_failure {
  std::string file;         // the exercise's file name, e.g. matmul_coalesced.cu
  std::string diagnostics;  // the compiler's lines about it
  bool timed_out = false;   // it did not finish building in time (not a compile error)
};

// --gpu: the CUDA exercises built with nvcc, tested on the GPU and timed (pipeline/gpu.hpp).
struct gpu_check {
  std::string item;
  // pass, fail: the GPU judged. error: it could not judge (a limit, a crash, no build),
  // which is never a verdict, nor a disagreement with the emulator. emulator-only.
  std::string status;
  std::string feedback;
  std::uint64_t peak_bytes = 0;            // the test process's most resident memory (sampled)
  std::uint64_t sanitizer_peak_bytes = 0;  // the same under compute-sanitizer
};

// A kernel timed against another (ms -1 when it could not run, e.g. no room for n x n).
struct gpu_baseline {
  std::string name;
  double ms = -1;
};

struct gpu_timing {
  std::string kernel, size;
  bool valid = false;
  double ms = -1, solution_ms = -1, baseline_ms = -1;
  std::string baseline;                 // the first of `baselines`
  std::vector<gpu_baseline> baselines;  // every baseline it was timed against, in order
};

struct gpu_section {
  std::string device, arch;
  std::vector<gpu_check> checks;
  std::vector<gpu_timing> timings;
  std::vector<std::string> messages;   // build errors, missing timings
  std::uint64_t bench_peak_bytes = 0;  // the timing program's most resident memory
  // Items whose correctness verdict on the GPU differs from the emulator's (same seed):
  // "flash.correct: emulator pass, GPU fail". Empty when they agree.
  std::vector<std::string> disagreements;
};

// One blank of a code exercise, as this grade sees it (issue 24): the student's loop shows
// each blank's state, not only each rubric item's.
enum class blank_status {
  empty,    // BLANK(name) is still in the file
  pass,     // its own tests pass, or every item of its exercise passes
  fail,     // its own tests show it wrong: `detail` is the trace
  waiting,  // filled, but its tests can see it only once `detail` (a blank) is filled
  filled,   // filled; nothing judges it alone, and its exercise's items do not all pass yet
  error,    // its exercise did not build, or its tests could not run
};
const char* to_string(blank_status s);

struct blank_state {
  std::string exercise, file, name;
  int line = 0;  // in the student's file; 0 when it cannot be found
  blank_status status = blank_status::empty;
  std::string detail = {};
  std::string hint = {};  // how `grader hint` names it (lesson/manifest.hpp: hint_name); "" if none
  bool judged_alone = false;  // a [blank:<name>] test ran on it (pass, fail or waiting)
  std::string rerun = {};     // fail: the command that runs its test again on the same inputs
};

struct report {
  std::string lesson, title, submission;
  lang language = lang::en;
  unsigned seed = 0;
  std::string isolation;              // the runner's: "process", "bubblewrap", "none: why"
  std::string isolation_level;        // "full", "restricted" or "none" (sandbox.hpp)
  std::string isolation_detail;       // what that level held on this machine
  std::vector<std::string> messages;  // unfilled blanks, unreadable answers files
  std::string review_file;            // --override: the review applied, or ""
  // Exercise files whose unchanged test binaries kept the results of an earlier grade
  // with the same seed: how the report was made, not what it says.
  std::vector<std::string> reused;
  std::vector<build_failure> build_failures;
  // Edits of a code file outside its blanks, against the exercise file it was given:
  // flagged, and graded as written.
  struct outside_edit {
    std::string file;
    outside_change change;
  };
  std::vector<outside_edit> outside_blanks;
  // Marking mode (grader mark): "marking"; a student's own grade: "practice".
  std::string mode = "practice";
  // Marking mode: the submission's entries the manifest does not name, never read.
  std::vector<std::string> ignored_files;
  // Exercise files whose verdicts a judge process with no student code decided
  // (course/remote.hpp); the others' tests ran in the student's (sandboxed) process.
  std::vector<std::string> judged_apart;
  std::vector<unit_report> units;
  // Every blank of every graded code exercise, in file order (practice and marking alike;
  // only practice runs the blanks' own tests).
  std::vector<blank_state> blanks;
  std::optional<gpu_section> gpu;  // --gpu: the GPU's checks and timings
  // Why nothing was graded (a missing file, a link, no sandbox), in a report written only so
  // that the files asked for (--json, --write) exist and say so: every item is an error.
  std::string not_graded;

  bool passed() const;
  int units_passed() const;
};

}  // namespace grader
