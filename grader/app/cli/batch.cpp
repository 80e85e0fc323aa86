// `grader batch <lesson> SUBMISSIONS --out DIR` (a class, one `grader mark` per student)
// and `grader review DIR` (the class's review queue): their options and runs.
#include <unistd.h>

#include <fmt/format.h>

#include <cstdlib>
#include <iostream>
#include <sstream>

#include "cli.hpp"
#include "grader/commands/batch.hpp"
#include "grader/commands/review_queue.hpp"
#include "grader/pipeline/reporter.hpp"

namespace fs = std::filesystem;

namespace grader::cli {

void declare_batch(CLI::App& app, options& o) {
  o.batch = app.add_subcommand(
      "batch", instructor_help("Mark a whole class: one folder per student in SUBMISSIONS, each "
                               "marked as `grader mark` does; reports, feedback, gradebook.csv "
                               "and summary.md in --out"));
  CLI::App& b = *o.batch;
  b.add_option("lesson", o.lesson, "The lesson")->required();
  b.add_option("submissions", o.batch_submissions, "A folder with one folder per student");
  b.add_option("--merge", o.merge_parts,
               "Instead of marking: join these batches' folders (the shards of one class) "
               "into --out, with one gradebook");
  b.add_option("--out", o.batch_out, "Where the reports and the gradebook go")->required();
  b.add_option("--trees", o.batch_trees,
               "Where the workers' grading trees go (default OUT/.trees); batches that share "
               "one folder share warm trees");
  b.add_option("--jobs", o.jobs, "Submissions marked at once (default 1)")
      ->check(CLI::PositiveNumber);
  b.add_flag("--force", o.force, "Mark again even the submissions unchanged since the last batch");
  b.add_option("--shard", o.shard, "i/N: only the students with index i mod N (from 1)");
  b.add_option("--format", o.batch_formats,
               "Also write each student's report in this format (repeatable: gradescope, "
               "junit, exercism, classroom)")
      ->check(CLI::IsMember(reporter_formats()));
  // The options of `grader mark` that a batch passes on to each student's mark.
  add_unit_option(b, o);
  add_lang_option(b, o);
  add_limit_options(b, o);
  add_sandbox_options(b, o, sandbox_use::mark);
  add_runner_option(b, o);
  add_root_option(b, o);

  o.review = app.add_subcommand(
      "review",
      instructor_help("Review a marked class: every part judged from free text or with a "
                      "provisional veto, the student's text beside the key points; keys accept, "
                      "set points, set or clear a veto; the decisions go to DIR/reviews/ and "
                      "those students are marked again"));
  CLI::App& r = *o.review;
  r.add_option("dir", o.review_dir, "A folder written by grader batch --out")->required();
  r.add_option("--reviewer", o.reviewer, "Your name, recorded in the review files");
  r.add_flag("--all", o.review_all, "Also the parts already decided");
  r.add_flag("--list", o.review_list, "Print the queue (one line per part) and exit");
  r.add_flag("--no-remark", o.no_remark,
             "Only save the decisions (the next grader batch into DIR applies them)");
  r.add_option("--trees", o.batch_trees,
               "The grading trees of the re-mark (default: the batch's, DIR/.trees)");
  add_lang_option(r, o);
  add_root_option(r, o);
}

int run_batch(const course& c, const options& o, lang l) {
  batch_options b;
  if (!o.batch_submissions.empty()) b.submissions = fs::absolute(o.batch_submissions);
  b.out = fs::absolute(o.batch_out);
  if (!o.batch_trees.empty()) b.trees = fs::absolute(o.batch_trees);
  b.jobs = o.jobs;
  b.force = o.force;
  b.lang = l == lang::zh ? "zh" : "en";
  b.formats = o.batch_formats;
  b.progress_bar = isatty(STDERR_FILENO) && !std::getenv("CI");
  if (!o.shard.empty()) {
    unsigned i = 0, n = 0;
    char slash = 0;
    std::istringstream in(o.shard);
    if (!(in >> i >> slash >> n) || slash != '/' || i < 1 || i > n || !in.eof())
      return fail_to_grade("--shard takes i/N with 1 <= i <= N, e.g. 2/4");
    b.shard_index = i - 1;
    b.shard_count = n;
  }
  // Passed on to every `grader mark`, so a batch marks exactly as a single mark does.
  b.mark_args = given_options(*o.batch, kForwarded);
  const manifest m = load_manifest(c, o.lesson);
  if (!o.merge_parts.empty()) {
    std::vector<fs::path> parts;
    for (const auto& p : o.merge_parts) parts.push_back(fs::absolute(p));
    merge_batches(m, parts, b.out, std::cout);
    return 0;
  }
  if (o.batch_submissions.empty())
    return fail_to_grade("batch needs a folder of submissions (or --merge DIR...)");
  const batch_result r = grader::run_batch(c, m, b, std::cerr);
  fmt::print("{} marked, {} unchanged since the last batch, {} not graded; gradebook: {}\n",
             r.graded, r.kept, r.not_graded, (b.out / "gradebook.csv").string());
  return 0;
}

int run_review(const course& c, const options& o, lang l) {
  review_options r;
  r.out = fs::absolute(o.review_dir);
  r.l = l;
  r.reviewer = o.reviewer;
  r.all = o.review_all;
  r.list = o.review_list;
  r.remark = !o.no_remark;
  r.keys = isatty(STDIN_FILENO);
  if (!o.batch_trees.empty()) r.trees = fs::absolute(o.batch_trees);
  return grader::run_review(c, r, std::cin, std::cout);
}

}  // namespace grader::cli
