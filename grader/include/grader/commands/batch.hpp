// `grader batch <lesson> SUBMISSIONS --out DIR`: marks a whole class. Each student's
// submission (a folder; a cloned repository as GitHub Classroom's assistant lays them
// out, with the files at its root or in exercises/<lesson>/; or a .tar.gz/.tgz/.zip of
// either, from which only the manifest's files are unpacked) is marked by a `grader mark`
// process of its own, never a weaker path; workers run in parallel, each with its own
// build tree, so a submission costs only its own compiles and test runs. Writes:
//   DIR/students/<name>/report.json     the marking report (docs/report.schema.json)
//   DIR/students/<name>/feedback.md     feedback for the student, in --lang
//   DIR/students/<name>/<format>.out    each --format asked for (gradescope, junit, ...)
//   DIR/gradebook.csv                   one row per student: scores, verdicts, vetoes, ...
//   DIR/summary.md, DIR/items.svg       the class at a glance: each item's distribution
// Sharded: `--shard i/N` marks every N-th student; `grader batch <lesson> --merge DIR...
// --out ALL` joins the shards' folders and writes the gradebook of the whole class.
// Resumable: a student whose files, grader and options are unchanged since the last batch
// keeps the last report (--force grades again). A submission that cannot be graded gets a
// row that says why, and the batch goes on.
// Marking in batch.cpp; the class files and --merge in batch_class.cpp.
// Tests: ctest -R grader.batch (grader/tests/batch_test.sh).
#pragma once

#include <filesystem>
#include <nlohmann/json.hpp>
#include <ostream>
#include <set>
#include <string>
#include <vector>

#include "grader/lesson/manifest.hpp"

namespace grader {

struct batch_options {
  std::filesystem::path submissions, out;
  // The workers' grading trees (worker0, worker1, ...): OUT/.trees unless given, so that
  // several batches on one machine (shards, a re-run into a new folder) share warm trees.
  std::filesystem::path trees;
  unsigned jobs = 1;
  bool force = false;
  unsigned shard_index = 0, shard_count = 1;  // --shard i/N: the students with i = k mod N
  std::string lang = "en";
  std::vector<std::string> formats;    // extra reports per student
  std::vector<std::string> mark_args;  // passed on to every `grader mark`
  bool progress_bar = false;           // a terminal: one updating line
};

struct batch_result {
  int graded = 0, kept = 0, not_graded = 0;  // not_graded: exit 2, with a reason
};

// A student's folder name as a safe file name: printable ASCII kept, anything else as
// _xx (hex), and never "", "." or "..".
std::string student_slug(const std::string& name);

// One CSV field, quoted when it holds a comma, a quote or a line break.
std::string csv_field(const std::string& s);

// A student's name as every class output writes it (each output escapes it further for its
// own format): control characters and bytes that are not UTF-8 as \xNN (printable_name),
// C1 controls as U+FFFD (terminal_text). Idempotent, so a name read back from batch.json
// (a merge, a review) comes out as the batch wrote it.
std::string shown_name(const std::string& raw);

// Marks every submission and writes DIR; `log` gets one line per student (or the bar).
batch_result run_batch(const course& c, const manifest& m, const batch_options& o,
                       std::ostream& log);

// `--merge`: the students of several batches (the shards of one class) into `out`, with the
// gradebook and summary a single batch of them all would write. Returns the students.
int merge_batches(const manifest& m, const std::vector<std::filesystem::path>& parts,
                  const std::filesystem::path& out, std::ostream& log);

// An instructor's review of one student (grader review): DIR/reviews/<slug>.json, an
// override file (docs/review.schema.json). A batch passes it to that student's mark as
// --override, and marks the student again when it changes.
std::filesystem::path review_file(const std::filesystem::path& out, const std::string& slug);

// Marks these students (by folder name) of the batch in `out` again, from the files it
// marked (students/<slug>/graded/), with the batch's options and their review files, and
// rewrites the gradebook and summary, in the grading tree `trees`/worker0 (OUT/.trees when
// empty). Returns how many were marked.
int remark_students(const course& c, const manifest& m, const std::filesystem::path& out,
                    const std::set<std::string>& slugs, std::ostream& log,
                    const std::filesystem::path& trees = {});

// Writes DIR/batch.json (`batch`: lesson, shard, options, students) and, from the
// students' folders it names, the gradebook and the summary (batch_class.cpp).
void write_class_files(const manifest& m, const std::filesystem::path& out,
                       const nlohmann::json& batch);

// DIR/batch.json, checked: its students' folder names are safe. Throws on anything else.
nlohmann::json read_batch_json(const std::filesystem::path& out);

}  // namespace grader
