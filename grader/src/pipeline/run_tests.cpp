// The run stage as a whole: plan the jobs, reuse cached results, run the rest
// (see run.hpp).
#include <fmt/format.h>

#include <algorithm>

#include "course/protocol.hpp"
#include "grader/pipeline/cache.hpp"
#include "grader/pipeline/run.hpp"

namespace grader {
namespace protocol = ::course::protocol;
namespace {

// A split exercise's results depend on both binaries; the judge alone never changes
// with the student's code. They also depend on the runner (a test the sandbox stops
// can pass outside it), so its isolation is part of the key.
std::string fingerprint_of(const exercise_build& b, const runner& r) {
  const std::string judge = binary_fingerprint(b.tests_binary);
  if (judge.empty()) return {};
  return r.isolation() + ":" + judge +
         (b.compute_binary.empty() ? "" : "+" + binary_fingerprint(b.compute_binary));
}

}  // namespace

test_runs run_tests(runner& r, const resolved& what, const build_result& built,
                    const run_settings& s) {
  test_runs out;
  std::vector<test_job> jobs;
  for (const source_file& f : what.files) {
    if (!f.ex->is_code() || !built.built(f.ex->id)) continue;
    const exercise_build& b = built.exercises.at(f.ex->id);
    const auto available = cached_list_tags(b.tests_binary, s.cache_dir / (f.ex->id + ".tags.json"),
                                            r.confine(b.tests_binary));
    std::vector<test_job> mine;
    auto add = [&](const std::string& tag, bool always) {
      const auto it = available.find(tag);
      if (it != available.end())
        mine.push_back({f.ex->id, b.tests_binary, tag, it->second, {}, b.compute_binary});
      else if (always)  // an item with no tests in its binary still gets a (failing) run
        mine.push_back({f.ex->id, b.tests_binary, tag, 0, {}, b.compute_binary});
    };
    for (const unit* u : what.units) {
      for (const item& it : u->items)
        if (it.exercise == f.ex->id) add(protocol::item_tag(it.id), true);
      for (const veto& v : u->vetoes) add(protocol::veto_tag(u->id, v.id), false);
    }
    // The blanks' own tests (a verdict per blank), where the exercise has them. Only when
    // the student practises: marking mode's judge cannot put the compute process's
    // blanks in poison mode, and a mark needs the items alone.
    if (b.compute_binary.empty()) add(std::string(protocol::blanks_tag), false);
    std::vector<std::string> tags;
    for (const auto& j : mine) tags.push_back(j.tag);
    unsigned cached_seed = 0;
    auto cached =
        s.fresh ? std::map<std::string, tag_run>{}
                : load_cached_runs(s.cache_dir / (f.ex->id + ".cache.json"), fingerprint_of(b, r),
                                   s.limits.timeout, tags, &cached_seed, s.cache_seed);
    if (!cached.empty()) {
      for (auto& [tag, run] : cached) {
        run.exercise = f.ex->id;
        out.runs.push_back(std::move(run));
      }
      out.reused.push_back(f.ex->file);
    } else {
      // A practice re-grade orders its jobs by the last grade's times. A fresh grade (a mark
      // among them) keeps the manifest's order, so that what ran before it (in a batch,
      // another student's code) changes nothing about how it runs.
      const auto last = s.fresh ? std::map<std::string, double>{}
                                : cached_run_seconds(s.cache_dir / (f.ex->id + ".cache.json"));
      for (test_job& j : mine)
        if (const auto it = last.find(j.tag); it != last.end()) j.estimate = it->second;
      jobs.insert(jobs.end(), mine.begin(), mine.end());
    }
  }

  auto fresh = run_grouped(r, jobs, s.seed, s.limits, s.parallel);
  // Keep each binary's fresh results, unless one timed out or could not start: that
  // may be the machine's fault, not the code's.
  std::map<std::string, std::vector<tag_run>> by_exercise;
  for (const tag_run& run : fresh) by_exercise[run.exercise].push_back(run);
  for (const auto& [id, list] : by_exercise) {
    const std::filesystem::path cache = s.cache_dir / (id + ".cache.json");
    const bool timed_out =
        std::any_of(list.begin(), list.end(), [](const tag_run& t) { return t.process.timed_out; });
    std::error_code ec;
    if (timed_out)
      std::filesystem::remove(cache, ec);
    else
      save_cached_runs(cache, fingerprint_of(built.exercises.at(id), r), s.seed, s.limits.timeout,
                       list);
  }
  out.runs.insert(out.runs.end(), std::make_move_iterator(fresh.begin()),
                  std::make_move_iterator(fresh.end()));
  return out;
}

}  // namespace grader
