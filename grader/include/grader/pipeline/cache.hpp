// The run stage's result cache: a test binary's results are reused while the
// binary is unchanged (like Go's test cache), so a re-grade that changed one file
// re-runs only that exercise's tests. The fingerprint is the binary's size and
// modification time.
#pragma once

#include <chrono>
#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "grader/pipeline/run.hpp"

namespace grader {

std::string binary_fingerprint(const std::filesystem::path& binary);

// `timeout` is the limit the runs had: results are reused only under the same limit.
void save_cached_runs(const std::filesystem::path& file, const std::string& fingerprint,
                      unsigned seed, std::chrono::milliseconds timeout,
                      const std::vector<tag_run>& runs);

// The cached runs for `tags`, or nothing when the cache is stale or lacks one.
// `seed` receives the seed they ran with; with `require_seed`, only runs made with
// that seed come back.
std::map<std::string, tag_run> load_cached_runs(const std::filesystem::path& file,
                                                const std::string& fingerprint,
                                                std::chrono::milliseconds timeout,
                                                const std::vector<std::string>& tags,
                                                unsigned* seed,
                                                std::optional<unsigned> require_seed = {});

// The seconds each tag's last run took, from `file`, whatever binary ran it: estimates
// that order a grade's jobs (test_job::estimate), never results.
std::map<std::string, double> cached_run_seconds(const std::filesystem::path& file);

// list_tags(binary), remembered in `file` while the binary is unchanged: a re-grade
// then starts no process for an exercise whose binary did not change.
std::map<std::string, int> cached_list_tags(const std::filesystem::path& binary,
                                            const std::filesystem::path& file,
                                            const std::vector<std::string>& confine = {});

}  // namespace grader
