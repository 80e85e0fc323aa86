// The run stage's result cache (see cache.hpp).
#include "grader/pipeline/cache.hpp"

#include <cstdint>
#include <fstream>
#include <nlohmann/json.hpp>

namespace grader {

std::string binary_fingerprint(const std::filesystem::path& binary) {
  std::error_code ec;
  const auto size = std::filesystem::file_size(binary, ec);
  if (ec) return {};
  const auto time = std::filesystem::last_write_time(binary, ec);
  if (ec) return {};
  return std::to_string(size) + ":" + std::to_string(time.time_since_epoch().count());
}

void save_cached_runs(const std::filesystem::path& file, const std::string& fingerprint,
                      unsigned seed, std::chrono::milliseconds timeout,
                      const std::vector<tag_run>& runs) {
  nlohmann::json j{{"fingerprint", fingerprint},
                   {"seed", seed},
                   {"timeout_ms", timeout.count()},
                   {"runs", nlohmann::json::object()}};
  for (const tag_run& r : runs)
    j["runs"][r.tag] = {
        {"expected", r.expected_tests},     {"raw", r.raw_records},
        {"exit_code", r.process.exit_code}, {"signal", r.process.term_signal},
        {"timed_out", r.process.timed_out}, {"spawn_failed", r.process.spawn_failed},
        {"seconds", r.process.seconds},     {"output", r.process.output}};
  std::error_code ec;
  std::filesystem::create_directories(file.parent_path(), ec);
  // The output is the student's program's: any bytes. A reused run must score as the
  // fresh one did (a sanitizer's summary comes from it), so it is kept, invalid UTF-8
  // replaced.
  std::ofstream(file) << j.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

namespace {

std::map<std::string, tag_run> read_cached_runs(
    const nlohmann::json& j, const std::string& fingerprint, std::chrono::milliseconds timeout,
    const std::vector<std::string>& tags, unsigned* seed, std::optional<unsigned> require_seed) {
  if (j.is_discarded() || !j.is_object() || j.value("fingerprint", "") != fingerprint ||
      !j.contains("runs") || !j["runs"].is_object() ||
      j.value("timeout_ms", std::int64_t{-1}) != static_cast<std::int64_t>(timeout.count()))
    return {};
  const unsigned cached_seed = j.value("seed", 0u);
  if (require_seed && *require_seed != cached_seed) return {};
  std::map<std::string, tag_run> out;
  for (const std::string& tag : tags) {
    if (!j["runs"].contains(tag) || !j["runs"][tag].is_object()) return {};
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
    t.process.output = r.value("output", std::string());
    out[tag] = std::move(t);
  }
  if (seed) *seed = cached_seed;
  return out;
}

}  // namespace

std::map<std::string, tag_run> load_cached_runs(const std::filesystem::path& file,
                                                const std::string& fingerprint,
                                                std::chrono::milliseconds timeout,
                                                const std::vector<std::string>& tags,
                                                unsigned* seed,
                                                std::optional<unsigned> require_seed) {
  std::ifstream in(file);
  if (!in || fingerprint.empty()) return {};
  try {
    return read_cached_runs(nlohmann::json::parse(in, nullptr, false), fingerprint, timeout, tags,
                            seed, require_seed);
  } catch (const nlohmann::json::exception&) {
    return {};  // a damaged cache is no cache
  }
}

std::map<std::string, double> cached_run_seconds(const std::filesystem::path& file) {
  std::map<std::string, double> out;
  std::ifstream in(file);
  if (!in) return out;
  const auto j = nlohmann::json::parse(in, nullptr, false);
  if (j.is_discarded() || !j.is_object() || !j.contains("runs") || !j["runs"].is_object())
    return out;
  for (const auto& [tag, r] : j["runs"].items())
    if (r.is_object() && r.contains("seconds") && r["seconds"].is_number())
      out[tag] = r["seconds"].get<double>();
  return out;
}

std::map<std::string, int> cached_list_tags(const std::filesystem::path& binary,
                                            const std::filesystem::path& file,
                                            const std::vector<std::string>& confine) {
  const std::string fingerprint = binary_fingerprint(binary);
  if (std::ifstream in(file); in && !fingerprint.empty()) {
    try {
      const auto j = nlohmann::json::parse(in, nullptr, false);
      if (j.is_object() && j.value("fingerprint", "") == fingerprint && j.contains("tags"))
        return j["tags"].get<std::map<std::string, int>>();
    } catch (const nlohmann::json::exception&) {
      // a damaged cache is no cache
    }
  }
  auto tags = list_tags(binary, confine);
  std::error_code ec;
  std::filesystem::create_directories(file.parent_path(), ec);
  if (!tags.empty())
    std::ofstream(file) << nlohmann::json{{"fingerprint", fingerprint}, {"tags", tags}}.dump();
  return tags;
}

}  // namespace grader
