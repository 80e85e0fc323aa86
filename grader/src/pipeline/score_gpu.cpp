// The score stage for --gpu (see gpu.hpp): pure functions from the GPU's runs to the
// report's GPU section. No process runs here, so test_score_gpu.cpp checks every rule
// with hand-made runs, a limit that stopped a test among them.
#include <fmt/format.h>

#include <nlohmann/json.hpp>
#include <algorithm>

#include "course/protocol.hpp"
#include "grader/base/files.hpp"
#include "grader/base/text.hpp"
#include "grader/pipeline/gpu.hpp"

namespace grader {
namespace protocol = ::course::protocol;

std::string first_sanitizer_error(const std::string& output) {
  const auto lines = split_lines(output);
  for (size_t i = 0; i < lines.size(); ++i) {
    const std::string_view line = lines[i];
    if (line.find("=========") == std::string_view::npos) continue;
    if (line.find("Invalid") == std::string_view::npos &&
        line.find("Race reported") == std::string_view::npos &&
        line.find("Error") == std::string_view::npos)
      continue;
    std::string out(trim_ascii(line.substr(line.find("=========") + 9)));
    if (i + 1 < lines.size() && lines[i + 1].find("=========") != std::string_view::npos)
      out += " " + std::string(trim_ascii(lines[i + 1].substr(lines[i + 1].find("=========") + 9)));
    return out;
  }
  return {};
}

gpu_check gpu_check_of(const std::string& item, const tag_run& run, lang l) {
  gpu_check check{item, "", "", run.process.peak_memory};
  const run_result& p = run.process;
  const bool limit = p.timed_out || p.memory_exceeded || p.output_exceeded ||
                     p.processes_exceeded || p.spawn_failed;
  const auto failed = std::find_if(run.records.begin(), run.records.end(),
                                   [](const auto& r) { return !r.passed && !r.failures.empty(); });
  const test_failure* unusable = nullptr;  // the process could not use the GPU at all
  for (const auto& r : run.records)
    for (const test_failure& f : r.failures)
      if (!unusable && protocol::is_gpu_unavailable(f.message)) unusable = &f;
  if (unusable) {  // no verdict, and so no disagreement
    check.status = "error";
    check.feedback = trf(l, "GPU 上没能判定：{}", "not judged on the GPU: {}", unusable->message);
  } else if (failed != run.records.end()) {  // a test's own verdict, whatever stopped it later
    const test_failure& f = failed->failures.front();
    check.status = "fail";
    check.feedback =
        fmt::format("'{}': {}", failed->name, f.message.empty() ? f.expanded : f.message);
    for (const auto& info : f.info)
      if (!protocol::is_seed_line(info) && !info.empty())
        check.feedback +=
            "; " +
            (protocol::is_cause_line(info) ? info.substr(protocol::cause_prefix.size()) : info);
  } else if (limit) {
    // A limit stopped it before a test failed: the GPU gave no verdict, and the report
    // says which limit (never "GPU fail", never a disagreement with the emulator).
    check.status = "error";
    check.feedback = trf(l, "GPU 上没能判定：{}", "not judged on the GPU: {}", p.describe());
  } else if (run.records.empty() && p.ok()) {
    // No record from a process that exited cleanly: every test of the item is
    // [emulator]-only.
    check.status = "emulator-only";
    check.feedback =
        tr(l, "只在模拟器上检查（需要计数器）", "checked on the emulator only (it needs counters)");
  } else if (run.passed()) {
    check.status = "pass";
  } else {  // the student's code crashed the process, or it exited with an error
    check.status = "fail";
    check.feedback = p.describe();
  }
  return check;
}

std::vector<std::string> disagreements(const gpu_section& g, const report& emulated) {
  std::vector<std::string> out;
  for (const gpu_check& c : g.checks) {
    if (c.status != "pass" && c.status != "fail") continue;  // the GPU gave no verdict
    for (const unit_report& u : emulated.units)
      for (const item_result& it : u.items)
        if (it.id == c.item && (it.status == item_status::pass) != (c.status == "pass"))
          out.push_back(
              fmt::format("{}: emulator {}, GPU {}", c.item, to_string(it.status), c.status));
  }
  return out;
}

namespace {

// compute-sanitizer's verdict on an item the GPU passed: an error it reports fails the
// item, as the emulator fails it; a run it could not finish keeps the pass, and says so.
void apply_sanitizer(gpu_check& check, const std::string& tool, const tag_run& run, lang l) {
  const run_result& p = run.process;
  check.sanitizer_peak_bytes = std::max(check.sanitizer_peak_bytes, p.peak_memory);
  if (check.status != "pass") return;
  if (p.timed_out || p.memory_exceeded || p.output_exceeded) {
    check.feedback += (check.feedback.empty() ? "" : "; ") +
                      trf(l, "compute-sanitizer --tool {} 没能跑完：{}",
                          "compute-sanitizer --tool {} could not finish: {}", tool, p.describe());
    return;
  }
  if (p.exit_code != kSanitizerFound) return;
  check.status = "fail";
  const std::string found = first_sanitizer_error(p.output);
  check.feedback =
      fmt::format("compute-sanitizer --tool {}: {}", tool, found.empty() ? p.describe() : found);
}

// The timing program's JSON lines.
std::vector<nlohmann::json> bench_lines(const run_result& r) {
  std::vector<nlohmann::json> out;
  for (std::string_view line : split_lines(r.output)) {
    auto j = nlohmann::json::parse(line, nullptr, false);
    if (!j.is_discarded() && j.is_object()) out.push_back(std::move(j));
  }
  return out;
}

std::string size_of(const nlohmann::json& j) {
  std::string s = j.contains("heads") && j["heads"].is_number_integer()
                      ? fmt::format("heads={} ", j["heads"].get<long long>())
                      : "";
  if (j.contains("n") && j["n"].is_number_integer())
    s += fmt::format("n={}", j["n"].get<long long>());
  if (j.contains("d") && j["d"].is_number_integer())
    s += fmt::format(" d={}", j["d"].get<long long>());
  return s;
}

std::string bench_failure(const char* which, const run_result& r) {
  return fmt::format("{}: {}", which, r.describe());
}

// One line for a reference kernel the timing program ran beside the student's (the
// course's fast matmul and FlashAttention): its time against cuBLAS SGEMM or against the
// eager cuBLAS attention.
std::string reference_line(const nlohmann::json& j, lang l) {
  const double ms = j.value("ms", -1.0);
  const std::string kernel = j.value("kernel", "");
  const bool zh = l == lang::zh;
  const int n = j.value("n", 0);
  std::string size = j.contains("d") ? fmt::format("n = {}, d = {}", n, j.value("d", 0))
                                     : fmt::format("{} x {}", n, n);
  if (!j.value("valid", false))
    return zh ? fmt::format("参考内核 {}（{}）：输出不对，未计时。", kernel, size)
              : fmt::format("Reference kernel {} ({}): wrong output, not timed.", kernel, size);
  if (ms <= 0)  // right output, then a CUDA error in the timed runs
    return zh ? fmt::format("参考内核 {}（{}）：计时运行出了 CUDA 错误，未计时。", kernel, size)
              : fmt::format("Reference kernel {} ({}): a CUDA error in its timed runs, not timed.",
                            kernel, size);
  // Against cuBLAS SGEMM (a matmul) or the eager attention (absent where S does not fit).
  std::string against;
  if (j.contains("percent_of_baseline"))
    against = fmt::format(
        fmt::runtime(zh ? "，达到 cuBLAS SGEMM 的 {:.0f}%" : ", {:.0f}% of cuBLAS SGEMM"),
        j.value("percent_of_baseline", 0.0));
  else if (const double eager = j.value("speedup_over_eager", 0.0); eager > 0)
    against = fmt::format(fmt::runtime(zh ? "，是 eager cuBLAS 注意力的 {:.2f} 倍速度"
                                          : ", {:.2f}x the speed of eager cuBLAS attention"),
                          eager);
  return zh ? fmt::format("课程的快速参考内核 {}（{}）：{:.3f} ms{}。", kernel, size, ms, against)
            : fmt::format("The course's fast reference {} ({}): {:.3f} ms{}.", kernel, size, ms,
                          against);
}

// The submission's kernels against the solution's and the baselines.
void score_timings(const gpu_runs& runs, gpu_section& g, lang l) {
  if (runs.bench_needs_every_lab) {
    g.messages.push_back(tr(l,
                            "计时：计时程序要链接所有 CUDA 实验，只评部分单元（--unit）时不计时；"
                            "不加 --unit 再运行 --gpu 即可看到计时。",
                            "Timings: the timing program links every CUDA lab, so a grade of "
                            "some units (--unit) has none; run --gpu without --unit for them."));
    return;
  }
  if (!runs.bench_built) {
    g.messages.push_back(tr(l, "计时程序没有编译成功。", "The timing program did not build."));
    return;
  }
  g.bench_peak_bytes = runs.bench.peak_memory;
  if (!runs.bench.ok()) g.messages.push_back(bench_failure("the timing program", runs.bench));
  std::vector<nlohmann::json> theirs;
  if (runs.solution_bench_built) {
    theirs = bench_lines(runs.solution_bench);
    if (!runs.solution_bench.ok())
      g.messages.push_back(bench_failure("the solution's timing program", runs.solution_bench));
  } else if (runs.has_solutions) {
    g.messages.push_back(tr(l, "参考解的计时程序没有编译成功。",
                            "The reference solution's timing program did not build."));
  } else {
    g.messages.push_back(tr(l, "与参考解的计时比较：学生版中不提供（没有参考解）。",
                            "Timings against the reference solution: not available in a student "
                            "release (it has no solutions)."));
  }
  for (const auto& j : bench_lines(runs.bench)) {
    if (!j.contains("kernel")) continue;  // the header
    if (j.value("reference", false)) {    // the course's own fast kernel: context, not a row
      g.messages.push_back(reference_line(j, l));
      continue;
    }
    if (!j.contains("baseline")) continue;  // a baseline's own line
    gpu_timing t{j.value("kernel", ""),   size_of(j), j.value("valid", false),
                 j.value("ms", -1.0),     -1,         j.value("baseline_ms", -1.0),
                 j.value("baseline", ""), {}};
    // Several baselines (the naive kernels and the eager cuBLAS one), or the one.
    if (j.contains("baselines") && j["baselines"].is_array()) {
      for (const auto& b : j["baselines"])
        if (b.is_object() && b.contains("name") && b["name"].is_string())
          t.baselines.push_back(
              {b["name"].get<std::string>(),
               b.contains("ms") && b["ms"].is_number() ? b["ms"].get<double>() : -1.0});
    }
    if (t.baselines.empty()) t.baselines.push_back({t.baseline, t.baseline_ms});
    for (const auto& s : theirs)
      if (s.value("kernel", "") == t.kernel && size_of(s) == t.size)
        t.solution_ms = s.value("ms", -1.0);
    g.timings.push_back(t);
  }
}

}  // namespace

gpu_section score_gpu(const gpu_runs& runs, const report& emulated, lang l) {
  gpu_section g;
  g.device = runs.device;
  g.arch = runs.arch;
  if (!runs.any_cuda) {
    g.messages.push_back(tr(l, "这些单元没有 CUDA 练习。", "These units have no CUDA exercise."));
    return g;
  }
  for (const auto& [id, b] : runs.built.exercises)
    if (!b.ok) g.messages.push_back(fmt::format("{}:\n{}", id, b.diagnostics));
  for (const std::string& item : runs.not_built)
    g.checks.push_back(
        {item, "error", tr(l, "nvcc 编译失败（见上）", "nvcc could not build it (see above)")});
  const size_t first = g.checks.size();
  for (size_t i = 0; i < runs.runs.size() && i < runs.items.size(); ++i)
    g.checks.push_back(gpu_check_of(runs.items[i], runs.runs[i], l));
  for (size_t k = 0; k < runs.sanitized.size() && k < runs.sanitized_of.size(); ++k)
    if (runs.sanitized_of[k].first < runs.runs.size())
      apply_sanitizer(g.checks[first + runs.sanitized_of[k].first], runs.sanitized_of[k].second,
                      runs.sanitized[k], l);
  score_timings(runs, g, l);
  g.disagreements = disagreements(g, emulated);
  return g;
}

}  // namespace grader
