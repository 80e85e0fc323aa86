// Running Catch2 test binaries per tag (see catch_run.hpp).
#include "grader/catch_run.hpp"

#include <atomic>
#include <cctype>
#include <fstream>
#include <sstream>
#include <nlohmann/json.hpp>
#include <regex>
#include <set>
#include <thread>

#include "grader/regions.hpp"

namespace grader {

bool tag_run::passed() const {
  if (!process.ok() || records.empty()) return false;
  if (expected_tests > 0 && static_cast<int>(records.size()) != expected_tests) return false;
  for (const auto& r : records)
    if (!r.passed) return false;
  return true;
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
  std::vector<test_record> out;
  for (std::string_view line : split_lines(output)) {
    const size_t start = line.find("{\"");
    if (start == std::string_view::npos) continue;
    const auto j = nlohmann::json::parse(line.substr(start), nullptr, false);
    if (j.is_discarded() || !j.is_object() || !j.contains("test") || !j["test"].is_string())
      continue;
    test_record r;
    r.name = j["test"].get<std::string>();
    r.tags = strings_or(j, "tags");
    r.passed = j.contains("passed") && j["passed"].is_boolean() && j["passed"].get<bool>();
    if (j.contains("failures") && j["failures"].is_array()) {
      for (const auto& f : j["failures"]) {
        if (!f.is_object()) continue;
        test_failure tf;
        tf.file = text_or(f, "file");
        tf.line = f.contains("line") && f["line"].is_number_integer() ? f["line"].get<int>() : 0;
        tf.kind = text_or(f, "kind");
        tf.expression = text_or(f, "expression");
        tf.expanded = text_or(f, "expanded");
        tf.message = text_or(f, "message");
        tf.info = strings_or(f, "info");
        r.failures.push_back(std::move(tf));
      }
    }
    out.push_back(std::move(r));
  }
  return out;
}

tag_run run_tag(const std::filesystem::path& binary, const std::string& tag, unsigned seed,
                std::chrono::milliseconds timeout, int expected_tests) {
  tag_run t;
  t.tag = tag;
  t.expected_tests = expected_tests;
  const std::filesystem::path runs = binary.parent_path() / "runs";
  std::error_code ec;
  std::filesystem::create_directories(runs, ec);
  std::string safe;
  for (char c : tag)
    safe.push_back(std::isalnum(static_cast<unsigned char>(c)) || c == '.' || c == '-' ? c : '_');
  const std::filesystem::path out_file = runs / (safe + ".jsonl");
  std::filesystem::remove(out_file, ec);
  run_options opts;
  opts.timeout = timeout;
  opts.max_output = 2u << 20;
  t.process = run_process({binary.string(), "--reporter", "course-json", "--out", out_file.string(),
                           "--rng-seed", std::to_string(seed), "--warn", "NoAssertions", tag},
                          opts);
  std::ifstream in(out_file, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  t.raw_records = text.str();
  t.records = parse_records(t.raw_records);
  return t;
}

std::vector<tag_run> run_jobs(const std::vector<tag_job>& jobs, unsigned seed,
                              std::chrono::milliseconds timeout, unsigned parallel) {
  std::vector<tag_run> out(jobs.size());
  std::atomic<size_t> next{0};
  auto worker = [&] {
    for (size_t i; (i = next++) < jobs.size();)
      out[i] = run_tag(jobs[i].binary, jobs[i].tag, seed, timeout, jobs[i].expected_tests);
  };
  std::vector<std::thread> pool;
  for (unsigned k = 1; k < std::max(1u, parallel) && k < jobs.size(); ++k)
    pool.emplace_back(worker);
  worker();
  for (auto& th : pool) th.join();
  return out;
}

std::vector<tag_run> run_tags(const std::filesystem::path& binary,
                              const std::vector<std::string>& tags, unsigned seed,
                              std::chrono::milliseconds timeout, unsigned jobs,
                              const std::map<std::string, int>& counts) {
  std::vector<tag_job> list;
  for (const auto& t : tags) {
    const auto c = counts.find(t);
    list.push_back({binary, t, c == counts.end() ? 0 : c->second});
  }
  return run_jobs(list, seed, timeout, jobs);
}

std::string binary_fingerprint(const std::filesystem::path& binary) {
  std::error_code ec;
  const auto size = std::filesystem::file_size(binary, ec);
  const auto time = std::filesystem::last_write_time(binary, ec);
  if (ec) return {};
  return std::to_string(size) + ":" + std::to_string(time.time_since_epoch().count());
}

void save_cached_runs(const std::filesystem::path& file, const std::string& fingerprint,
                      unsigned seed, const std::vector<tag_run>& runs) {
  nlohmann::json j{
      {"fingerprint", fingerprint}, {"seed", seed}, {"runs", nlohmann::json::object()}};
  for (const tag_run& r : runs)
    j["runs"][r.tag] = {
        {"expected", r.expected_tests},     {"raw", r.raw_records},
        {"exit_code", r.process.exit_code}, {"signal", r.process.term_signal},
        {"timed_out", r.process.timed_out}, {"spawn_failed", r.process.spawn_failed},
        {"seconds", r.process.seconds}};
  std::ofstream(file) << j.dump();
}

std::map<std::string, tag_run> load_cached_runs(const std::filesystem::path& file,
                                                const std::string& fingerprint,
                                                const std::vector<std::string>& tags,
                                                unsigned* seed) {
  std::ifstream in(file);
  if (!in || fingerprint.empty()) return {};
  const auto j = nlohmann::json::parse(in, nullptr, false);
  if (j.is_discarded() || j.value("fingerprint", "") != fingerprint || !j.contains("runs"))
    return {};
  std::map<std::string, tag_run> out;
  for (const std::string& tag : tags) {
    if (!j["runs"].contains(tag)) return {};
    const auto& r = j["runs"][tag];
    tag_run t;
    t.tag = tag;
    t.expected_tests = r.value("expected", 0);
    t.raw_records = r.value("raw", "");
    t.records = parse_records(t.raw_records);
    t.process.exit_code = r.value("exit_code", -1);
    t.process.term_signal = r.value("signal", 0);
    t.process.timed_out = r.value("timed_out", false);
    t.process.spawn_failed = r.value("spawn_failed", false);
    t.process.seconds = r.value("seconds", 0.0);
    out[tag] = std::move(t);
  }
  if (seed) *seed = j.value("seed", 0u);
  return out;
}

std::map<std::string, int> list_tags(const std::filesystem::path& binary) {
  run_options opts;
  opts.timeout = std::chrono::seconds(20);
  const run_result r = run_process({binary.string(), "--list-tags"}, opts);
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
