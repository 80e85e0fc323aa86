// The run stage: test records, running jobs in parallel, listing tags (see run.hpp).
#include "grader/pipeline/run.hpp"

#include <algorithm>
#include <atomic>
#include <cctype>
#include <nlohmann/json.hpp>
#include <regex>
#include <thread>

#include "course/protocol.hpp"
#include "grader/base/files.hpp"
#include "grader/base/text.hpp"

namespace grader {
namespace protocol = ::course::protocol;

std::vector<std::string> sanitizer_environment(bool measured) {
  // Leaks are not memory errors of the kind graded here, and LeakSanitizer needs
  // ptrace, which containers often forbid.
  const std::string code = std::to_string(sanitizer_exit_code);
  return {"ASAN_OPTIONS=detect_leaks=0:halt_on_error=1:abort_on_error=0:exitcode=" + code +
              ":allocator_may_return_null=1:symbolize=1" +
              (measured ? ":quarantine_size_mb=0:thread_local_quarantine_size_kb=0" : ""),
          "UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1:exitcode=" + code};
}

namespace {

struct source_place {
  std::string file;  // the path's last component
  std::string line;  // "30" or "30:12"
};

// "/x/online_softmax.cpp:30:12" -> {"online_softmax.cpp", "30:12"}; empty file if not a place.
source_place place_of(std::string_view token) {
  const size_t slash = token.rfind('/');
  std::string_view name = slash == std::string_view::npos ? token : token.substr(slash + 1);
  const size_t colon = name.find(':');
  if (colon == std::string_view::npos || colon + 1 >= name.size() ||
      !std::isdigit(static_cast<unsigned char>(name[colon + 1])))
    return {};
  return {std::string(name.substr(0, colon)), std::string(name.substr(colon + 1))};
}

}  // namespace

std::string sanitizer_summary(const std::string& output, const std::string& file) {
  std::string what, access, at_student, first_place;
  for (std::string_view line : split_lines(output)) {
    if (const size_t e = line.find("ERROR: AddressSanitizer: "); e != std::string_view::npos) {
      if (!what.empty()) break;  // one report is enough
      std::string_view rest = line.substr(e + 7);
      rest = rest.substr(0, rest.find(" on "));
      what = std::string(rest);
      continue;
    }
    if (const size_t e = line.find(": runtime error: "); e != std::string_view::npos) {
      if (!what.empty()) break;
      const std::string_view before = line.substr(0, e);
      const source_place p = place_of(before.substr(before.find_last_of(' ') + 1));
      what = "UndefinedBehaviorSanitizer: " + std::string(trim_ascii(line.substr(e + 17)));
      if (!p.file.empty()) {
        first_place = p.file + ":" + p.line;
        if (p.file == file) at_student = first_place;
      }
      continue;
    }
    if (what.empty()) continue;
    const std::string t(trim_ascii(line));
    if (access.empty() && (t.starts_with("READ of size") || t.starts_with("WRITE of size")))
      access = t.substr(0, t.find(" at "));
    if (t.starts_with("#") && t.find(" in ") != std::string::npos && at_student.empty()) {
      const source_place p = place_of(t.substr(t.find_last_of(' ') + 1));
      if (p.file.empty()) continue;
      if (first_place.empty()) first_place = p.file + ":" + p.line;
      if (p.file == file) at_student = p.file + ":" + p.line;
    }
  }
  if (what.empty()) return {};
  std::string out = what;
  if (!access.empty()) out += ", " + access;
  if (!at_student.empty())
    out += " at " + at_student;
  else if (!first_place.empty())
    out += " (first reported at " + first_place + ")";
  return out;
}

bool tag_run::passed() const {
  if (!process.ok() || records.empty()) return false;
  if (expected_tests > 0 && static_cast<int>(records.size()) != expected_tests) return false;
  for (const auto& r : records)
    if (!r.passed) return false;
  return true;
}

std::string tag_run::blank() const {
  for (const auto& r : records)
    if (!r.passed && !r.blank.empty()) return r.blank;
  return {};
}

namespace {

std::string text_or(const nlohmann::json& j, const char* key) {
  const auto it = j.find(key);
  return it != j.end() && it->is_string() ? it->get<std::string>() : std::string();
}

std::vector<std::string> strings_or(const nlohmann::json& j, const char* key) {
  std::vector<std::string> out;
  const auto it = j.find(key);
  if (it != j.end() && it->is_array())
    for (const auto& x : *it)
      if (x.is_string()) out.push_back(x.get<std::string>());
  return out;
}

}  // namespace

std::vector<test_record> parse_records(const std::string& output) {
  namespace f = protocol::field;
  namespace ff = protocol::failure_field;
  std::vector<test_record> out;
  for (std::string_view line : split_lines(output)) {
    const size_t start = line.find("{\"");
    if (start == std::string_view::npos) continue;
    const auto j = nlohmann::json::parse(line.substr(start), nullptr, false);
    if (j.is_discarded() || !j.is_object() || !j.contains(f::test) || !j[f::test].is_string())
      continue;
    test_record r;
    r.name = j[f::test].get<std::string>();
    r.tags = strings_or(j, f::tags);
    r.passed = j.contains(f::passed) && j[f::passed].is_boolean() && j[f::passed].get<bool>();
    r.blank = text_or(j, f::blank);
    r.warnings = strings_or(j, f::warnings);
    if (j.contains(f::failures) && j[f::failures].is_array()) {
      for (const auto& fj : j[f::failures]) {
        if (!fj.is_object()) continue;
        test_failure tf;
        tf.file = text_or(fj, ff::file);
        tf.line =
            fj.contains(ff::line) && fj[ff::line].is_number_integer() ? fj[ff::line].get<int>() : 0;
        tf.kind = text_or(fj, ff::kind);
        // An exception's message, or a value Catch2 expanded, may be the student's text:
        // one line with no control characters, so it cannot pose as a report row.
        tf.expression = one_line(text_or(fj, ff::expression));
        tf.expanded = one_line(text_or(fj, ff::expanded));
        tf.message = one_line(text_or(fj, ff::message));
        tf.info = strings_or(fj, ff::info);
        r.failures.push_back(std::move(tf));
      }
    }
    out.push_back(std::move(r));
  }
  return out;
}

std::vector<tag_run> run_all(runner& r, const std::vector<test_job>& jobs, unsigned seed,
                             const run_limits& limits, unsigned parallel) {
  std::vector<tag_run> out(jobs.size());
  const unsigned threads = static_cast<unsigned>(
      std::min<size_t>(std::max(1u, parallel), std::max<size_t>(1, jobs.size())));
  run_limits each = limits;  // the memory budget is the grade's, shared by its threads
  each.max_memory = limits.max_memory / threads;
  // Longest first (by the last run's time; unknown ones keep their place after the known):
  // with two workers, a grade no longer ends on its longest job started last. The order
  // changes no verdict: each job is its own process with the same seed and limits.
  std::vector<size_t> order(jobs.size());
  for (size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::stable_sort(order.begin(), order.end(),
                   [&](size_t a, size_t b) { return jobs[a].estimate > jobs[b].estimate; });
  std::atomic<size_t> next{0};
  auto worker = [&] {
    for (size_t k; (k = next++) < jobs.size();) {
      const size_t i = order[k];
      out[i] = r.run(jobs[i], seed, each);
      out[i].exercise = jobs[i].exercise;  // whatever the runner filled in
    }
  };
  std::vector<std::thread> pool;
  for (unsigned k = 1; k < threads; ++k) pool.emplace_back(worker);
  worker();
  for (auto& th : pool) th.join();
  return out;
}

namespace {

// Each job's share of a run of them all (`whole`, whose tag is "[a],[b],..."): its records
// and their lines, each line parsed once. A share is complete when every test its job
// expects reported: its status is then told from its own records (exit 0 if they all
// passed, 1 if not), since what ended the process came after them; otherwise the whole
// run's status stands and the caller runs that job again.
struct share {
  tag_run run;
  bool complete = false;
};
std::vector<share> shares_of(const tag_run& whole, const std::vector<const test_job*>& group) {
  std::vector<share> out(group.size());
  for (size_t k = 0; k < group.size(); ++k) {
    out[k].run.exercise = group[k]->exercise;
    out[k].run.tag = group[k]->tag;
    out[k].run.expected_tests = group[k]->expected_tests;
  }
  for (std::string_view line : split_lines(whole.raw_records)) {
    const auto one = parse_records(std::string(line));
    if (one.size() != 1) continue;
    for (const std::string& x : one.front().tags)
      for (share& sh : out)
        if ("[" + x + "]" == sh.run.tag) {
          sh.run.raw_records.append(line).push_back('\n');
          sh.run.records.push_back(one.front());
        }
  }
  for (share& sh : out) {
    tag_run& t = sh.run;
    sh.complete = t.expected_tests > 0 && static_cast<int>(t.records.size()) == t.expected_tests &&
                  !whole.process.spawn_failed;
    t.process = whole.process;
    if (!sh.complete) continue;
    t.process.timed_out = t.process.output_exceeded = t.process.memory_exceeded =
        t.process.processes_exceeded = false;
    t.process.term_signal = 0;
    t.process.exit_code = std::all_of(t.records.begin(), t.records.end(),
                                      [](const test_record& x) { return x.passed; })
                              ? 0
                              : 1;
  }
  return out;
}

}  // namespace

std::vector<tag_run> run_grouped(runner& r, const std::vector<test_job>& jobs, unsigned seed,
                                 const run_limits& limits, unsigned parallel) {
  // Groups: an exercise's judge jobs whose tags have tests (by binary and the command it
  // runs under). Other jobs run alone: a tag with no tests listed fails there as it always
  // did, and without a judge the student's code shares the test process, so what one
  // tag's tests leave behind (a sticky CUDA error after an invalid access, static state)
  // would change the next tag's verdict (measured: lab3-last-tile-overrun lost
  // flash.no_nxn). The judge's compute process is started afresh after any failure.
  std::vector<std::vector<size_t>> groups;
  std::map<std::string, size_t> group_of;
  for (size_t i = 0; i < jobs.size(); ++i) {
    const test_job& j = jobs[i];
    if (j.compute.empty() || j.expected_tests <= 0) {
      groups.push_back({i});
      continue;
    }
    std::string key = j.exercise + '\n' + j.binary.string() + '\n' + j.compute.string();
    for (const auto& w : j.wrapper) key += '\n' + w;
    const auto [it, fresh] = group_of.emplace(key, groups.size());
    if (fresh) groups.emplace_back();
    groups[it->second].push_back(i);
  }
  std::vector<test_job> first;
  for (const auto& g : groups) {
    test_job j = jobs[g.front()];
    for (size_t k = 1; k < g.size(); ++k) {
      j.tag += "," + jobs[g[k]].tag;                           // Catch2: "or"
      j.estimate = std::max(j.estimate, jobs[g[k]].estimate);  // each share had the whole time
    }
    first.push_back(std::move(j));
  }
  const std::vector<tag_run> ran = run_all(r, first, seed, limits, parallel);
  std::vector<tag_run> out(jobs.size());
  std::vector<test_job> again;
  std::vector<size_t> again_at;
  for (size_t n = 0; n < groups.size(); ++n) {
    if (groups[n].size() == 1) {
      out[groups[n].front()] = ran[n];
      continue;
    }
    std::vector<const test_job*> group;
    for (size_t i : groups[n]) group.push_back(&jobs[i]);
    std::vector<share> shares = shares_of(ran[n], group);
    for (size_t k = 0; k < shares.size(); ++k) {
      const size_t i = groups[n][k];
      out[i] = std::move(shares[k].run);
      if (!shares[k].complete) {
        again.push_back(jobs[i]);
        again_at.push_back(i);
      }
    }
  }
  const std::vector<tag_run> rerun = run_all(r, again, seed, limits, parallel);
  for (size_t k = 0; k < rerun.size(); ++k) out[again_at[k]] = rerun[k];
  return out;
}

std::map<std::string, int> list_tags(const std::filesystem::path& binary,
                                     const std::vector<std::string>& confine) {
  run_options opts;
  opts.timeout = std::chrono::seconds(20);
  std::vector<std::string> argv = confine;
  argv.push_back(std::filesystem::absolute(binary).string());
  argv.push_back("--list-tags");
  const run_result r = run_process(argv, opts);
  static const std::regex tag(R"(^\s*(\d+)\s+(\[[^\]\s]+\]))");
  std::map<std::string, int> tags;
  for (std::string_view line : split_lines(r.output)) {
    std::match_results<std::string_view::const_iterator> m;
    if (std::regex_search(line.begin(), line.end(), m, tag))
      tags[m[2].str()] = std::stoi(m[1].str());
  }
  return tags;
}

}  // namespace grader
