// Running Catch2 test binaries per tag (see catch_run.hpp).
#include "grader/catch_run.hpp"

#include <atomic>
#include <nlohmann/json.hpp>
#include <regex>
#include <set>
#include <thread>

#include "grader/regions.hpp"

namespace grader {

bool tag_run::passed() const {
  if (!process.ok() || records.empty()) return false;
  for (const auto& r : records)
    if (!r.passed) return false;
  return true;
}

std::vector<test_record> parse_records(const std::string& output) {
  std::vector<test_record> out;
  for (std::string_view line : split_lines(output)) {
    if (!line.starts_with("{\"")) continue;  // student code may print too
    const auto j = nlohmann::json::parse(line, nullptr, false);
    if (j.is_discarded() || !j.contains("test")) continue;
    test_record r;
    r.name = j.value("test", "");
    r.tags = j.value("tags", std::vector<std::string>{});
    r.passed = j.value("passed", false);
    for (const auto& f : j.value("failures", nlohmann::json::array())) {
      test_failure tf;
      tf.file = f.value("file", "");
      tf.line = f.value("line", 0);
      tf.kind = f.value("kind", "");
      tf.expression = f.value("expression", "");
      tf.expanded = f.value("expanded", "");
      tf.message = f.value("message", "");
      tf.info = f.value("info", std::vector<std::string>{});
      r.failures.push_back(std::move(tf));
    }
    out.push_back(std::move(r));
  }
  return out;
}

tag_run run_tag(const std::filesystem::path& binary, const std::string& tag, unsigned seed,
                std::chrono::milliseconds timeout) {
  tag_run t;
  t.tag = tag;
  run_options opts;
  opts.timeout = timeout;
  opts.max_output = 2u << 20;
  t.process = run_process({binary.string(), "--reporter", "course-json", "--rng-seed",
                           std::to_string(seed), "--warn", "NoAssertions", tag},
                          opts);
  t.records = parse_records(t.process.output);
  return t;
}

std::vector<tag_run> run_tags(const std::filesystem::path& binary,
                              const std::vector<std::string>& tags, unsigned seed,
                              std::chrono::milliseconds timeout, unsigned jobs) {
  std::vector<tag_run> out(tags.size());
  std::atomic<size_t> next{0};
  auto worker = [&] {
    for (size_t i; (i = next++) < tags.size();) out[i] = run_tag(binary, tags[i], seed, timeout);
  };
  std::vector<std::thread> pool;
  for (unsigned k = 1; k < std::max(1u, jobs) && k < tags.size(); ++k) pool.emplace_back(worker);
  worker();
  for (auto& th : pool) th.join();
  return out;
}

std::vector<std::string> list_tags(const std::filesystem::path& binary) {
  run_options opts;
  opts.timeout = std::chrono::seconds(20);
  const run_result r = run_process({binary.string(), "--list-tags"}, opts);
  static const std::regex tag(R"((\[[^\]\s]+\]))");
  std::set<std::string> tags;
  for (std::sregex_iterator it(r.output.begin(), r.output.end(), tag), end; it != end; ++it)
    tags.insert((*it)[1].str());
  return {tags.begin(), tags.end()};
}

}  // namespace grader
