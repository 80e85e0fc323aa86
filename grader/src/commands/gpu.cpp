// GPU mode (see gpu.hpp).
#include "grader/commands/gpu.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <set>
#include <thread>

#include "course/protocol.hpp"
#include "grader/base/error.hpp"
#include "grader/base/files.hpp"
#include "grader/base/i18n.hpp"
#include "grader/base/sandbox.hpp"
#include "grader/base/subprocess.hpp"
#include "grader/pipeline/build.hpp"
#include "grader/pipeline/run.hpp"

namespace fs = std::filesystem;

namespace grader {
namespace {

// A CUDA Toolkit program (nvcc, compute-sanitizer): on PATH, or where the toolkit
// installs it; "" when absent.
std::string cuda_tool(const std::string& name) {
  if (on_path(name)) return name;
  for (const std::string dir : {"/usr/local/cuda/bin/", "/usr/bin/"})
    if (on_path(dir + name)) return dir + name;
  return {};
}

// Exit status compute-sanitizer gives a process in which it found an error.
constexpr int kSanitizerFound = 97;

}  // namespace

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

namespace {

std::string size_of(const nlohmann::json& j) {
  std::string s = j.contains("n") ? fmt::format("n={}", j["n"].get<int>()) : "";
  if (j.contains("d")) s += fmt::format(" d={}", j["d"].get<int>());
  return s;
}

// The timing program's JSON lines, by kernel and size.
std::vector<nlohmann::json> bench_lines(const fs::path& binary, std::string* error,
                                        std::uint64_t* peak) {
  run_options opts;
  opts.timeout = std::chrono::minutes(5);
  opts.max_memory = kGpuProcessMemory;
  const run_result r = run_process({binary.string()}, opts);
  if (peak) *peak = r.peak_memory;
  if (!r.ok()) *error = fmt::format("{}: {}", binary.filename().string(), r.describe());
  std::vector<nlohmann::json> out;
  for (std::string_view line : split_lines(r.output)) {
    auto j = nlohmann::json::parse(line, nullptr, false);
    if (!j.is_discarded() && j.is_object()) out.push_back(std::move(j));
  }
  return out;
}

}  // namespace

std::string detect_gpu(std::string* name) {
  run_options opts;
  opts.timeout = std::chrono::seconds(20);
  const run_result r = run_process(
      {"nvidia-smi", "--query-gpu=name,compute_cap", "--format=csv,noheader", "-i", "0"}, opts);
  if (!r.ok()) return {};
  const std::string line(split_lines(r.output).empty() ? std::string_view{}
                                                       : split_lines(r.output).front());
  const auto comma = line.rfind(',');
  if (comma == std::string::npos) return {};
  if (name) *name = line.substr(0, comma);
  std::string arch;
  for (char ch : line.substr(comma + 1))
    if (std::isdigit(static_cast<unsigned char>(ch))) arch.push_back(ch);
  return arch;
}

void require_gpu() {
  if (cuda_tool("nvcc").empty())
    throw cannot_grade("--gpu needs the CUDA toolkit's nvcc, which is not installed");
  if (detect_gpu(nullptr).empty())
    throw cannot_grade("--gpu needs an NVIDIA GPU (nvidia-smi found none)");
}

gpu_check gpu_check_of(const std::string& item, const tag_run& run, lang l) {
  gpu_check check{item, "", "", run.process.peak_memory};
  const run_result& p = run.process;
  const bool limit = p.timed_out || p.memory_exceeded || p.output_exceeded ||
                     p.processes_exceeded || p.spawn_failed;
  const auto failed = std::find_if(run.records.begin(), run.records.end(),
                                   [](const auto& r) { return !r.passed && !r.failures.empty(); });
  if (failed != run.records.end()) {  // a test's own verdict, whatever stopped it later
    const test_failure& f = failed->failures.front();
    check.status = "fail";
    check.feedback =
        fmt::format("'{}': {}", failed->name, f.message.empty() ? f.expanded : f.message);
    for (const auto& info : f.info)
      if (!::course::protocol::is_seed_line(info) && !info.empty())
        check.feedback += "; " + (::course::protocol::is_cause_line(info)
                                      ? info.substr(::course::protocol::cause_prefix.size())
                                      : info);
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

gpu_section grade_gpu(const course& c, const manifest& m, const grade_request& req) {
  require_gpu();
  gpu_section g;
  const std::string nvcc = cuda_tool("nvcc");
  g.arch = detect_gpu(&g.device);
  const lang l = req.language;

  // Only the CUDA exercises of the chosen units.
  std::set<std::string> used;
  for (const unit& u : m.units)
    if (req.unit.empty() || req.unit == u.id)
      for (const item& it : u.items) used.insert(it.exercise);
  // Every code file gets its wrapper (CMake configures all exercises); only the
  // CUDA exercises' tests are run on the GPU.
  std::map<std::string, fs::path> files;
  bool any_cuda = false;
  for (const exercise& e : m.exercises)
    if (e.is_code() && req.files.count(e.file)) {
      files[e.file] = req.files.at(e.file);
      any_cuda |= e.kind == "cu" && used.count(e.id);
    }
  if (!any_cuda) {
    g.messages.push_back(tr(l, "这些单元没有 CUDA 练习。", "These units have no CUDA exercise."));
    return g;
  }

  const std::string bench = m.lesson + "_gpu_bench", bench_solution = bench + "_solution";
  // Beside the emulator's tree (--build-dir moves both); nvcc builds take longer.
  const fs::path dir = tree_of(c, m, req).string() + "-gpu";
  // nvcc compiles the student's code confined, as the emulator's build does.
  const isolation confined =
      req.confine_build ? req.sandbox.value_or(strongest_isolation()) : isolation::none;
  grading_tree tree(c, m, dir,
                    tree_options{{"-DCOURSE_CUDA=ON", "-DCMAKE_CUDA_ARCHITECTURES=" + g.arch,
                                  "-DCMAKE_CUDA_COMPILER=" + nvcc},
                                 false,
                                 confined});
  const build_result built = tree.build(
      files, std::max<std::chrono::seconds>(req.build_timeout, std::chrono::minutes(10)), {bench},
      fs::exists(c.solutions_dir(m.lesson)) ? std::vector<std::string>{bench_solution}
                                            : std::vector<std::string>{});

  // The same correctness tests, on the GPU.
  std::vector<test_job> jobs;
  std::vector<const item*> job_items;
  for (const unit& u : m.units) {
    if (!req.unit.empty() && req.unit != u.id) continue;
    for (const item& it : u.items) {
      const exercise& e = m.exercise_of(it);
      if (e.kind != "cu" || !used.count(e.id)) continue;
      const exercise_build& b = built.exercises.at(e.id);
      if (!b.ok) {
        g.checks.push_back({it.id, "error",
                            tr(l, "nvcc 编译失败（见上）", "nvcc could not build it (see above)")});
        continue;
      }
      jobs.push_back({e.id, b.tests_binary,
                      ::course::protocol::item_tag(it.id) + "~" +
                          std::string(::course::protocol::emulator_tag),
                      0});
      job_items.push_back(&it);
    }
  }
  for (const auto& [id, b] : built.exercises)
    if (!b.ok) g.messages.push_back(fmt::format("{}:\n{}", id, b.diagnostics));
  // Always fresh (GPU results are never cached); one GPU: one process at a time.
  process_runner gpu_runner;
  run_limits limits;
  limits.timeout = std::max<std::chrono::milliseconds>(req.test_timeout, std::chrono::seconds(30));
  limits.max_memory = kGpuProcessMemory;  // one process at a time: its own, not a share
  const auto runs = run_all(gpu_runner, jobs, req.seed, limits, 1);
  const size_t first_check = g.checks.size();
  for (size_t i = 0; i < runs.size(); ++i) {
    g.checks.push_back(gpu_check_of(job_items[i]->id, runs[i], l));
  }

  // Right by luck is not right: a race that did not bite this time, a stray access that
  // landed in other memory. Where compute-sanitizer is installed, every item that
  // passed runs again under memcheck and racecheck (the sizes past 2^31 left out, too
  // slow there), and an error either reports fails the item, as the emulator fails it.
  if (const std::string sanitizer = cuda_tool("compute-sanitizer"); !sanitizer.empty()) {
    std::vector<test_job> again;
    std::vector<std::pair<size_t, std::string>> of;  // (check, tool)
    for (size_t i = 0; i < runs.size(); ++i) {
      if (g.checks[first_check + i].status != "pass") continue;
      for (const char* tool : {"memcheck", "racecheck"}) {
        test_job j = jobs[i];
        j.tag += "~" + std::string(::course::protocol::gpu_large_tag);
        j.wrapper = {
            sanitizer,       "--tool", tool, "--error-exitcode", std::to_string(kSanitizerFound),
            "--print-limit", "4"};
        again.push_back(std::move(j));
        of.push_back({first_check + i, tool});
      }
    }
    run_limits slow = limits;
    slow.timeout = std::max<std::chrono::milliseconds>(limits.timeout, std::chrono::minutes(2));
    slow.max_memory = kSanitizerProcessMemory;
    const auto checked = run_all(gpu_runner, again, req.seed, slow, 1);
    for (size_t k = 0; k < checked.size(); ++k) {
      gpu_check& check = g.checks[of[k].first];
      const run_result& p = checked[k].process;
      check.sanitizer_peak_bytes = std::max(check.sanitizer_peak_bytes, p.peak_memory);
      if (check.status == "pass" && (p.timed_out || p.memory_exceeded || p.output_exceeded)) {
        // The check could not finish: the item keeps the GPU's pass, and says so.
        check.feedback +=
            (check.feedback.empty() ? "" : "; ") +
            trf(l, "compute-sanitizer --tool {} 没能跑完：{}",
                "compute-sanitizer --tool {} could not finish: {}", of[k].second, p.describe());
        continue;
      }
      if (check.status != "pass" || checked[k].process.exit_code != kSanitizerFound) continue;
      check.status = "fail";
      const std::string found = first_sanitizer_error(checked[k].process.output);
      check.feedback = fmt::format("compute-sanitizer --tool {}: {}", of[k].second,
                                   found.empty() ? checked[k].process.describe() : found);
    }
  }

  // Timings: the submission's kernels against the solution's and the baselines.
  if (!built.extras.count(bench) || !built.extras.at(bench)) {
    g.messages.push_back(tr(l, "计时程序没有编译成功。", "The timing program did not build."));
    return g;
  }
  std::string error;
  const auto mine = bench_lines(dir / "bin" / bench, &error, &g.bench_peak_bytes);
  if (!error.empty()) g.messages.push_back(error);
  std::vector<nlohmann::json> theirs;
  if (built.extras.count(bench_solution) && built.extras.at(bench_solution)) {
    std::string e2;
    theirs = bench_lines(dir / "bin" / bench_solution, &e2, nullptr);
    if (!e2.empty()) g.messages.push_back(e2);
  } else if (fs::exists(c.solutions_dir(m.lesson))) {
    g.messages.push_back(tr(l, "参考解的计时程序没有编译成功。",
                            "The reference solution's timing program did not build."));
  } else if (!fs::exists(c.solutions_dir(m.lesson))) {
    g.messages.push_back(tr(l, "与参考解的计时比较：学生版中不提供（没有参考解）。",
                            "Timings against the reference solution: not available in a student "
                            "release (it has no solutions)."));
  }
  for (const auto& j : mine) {
    if (!j.contains("kernel") || !j.contains("baseline")) continue;  // baselines and headers
    gpu_timing t;
    t.kernel = j.value("kernel", "");
    t.size = size_of(j);
    t.valid = j.value("valid", false);
    t.ms = j.value("ms", -1.0);
    t.baseline = j.value("baseline", "");
    t.baseline_ms = j.value("baseline_ms", -1.0);
    for (const auto& s : theirs)
      if (s.value("kernel", "") == t.kernel && size_of(s) == t.size)
        t.solution_ms = s.value("ms", -1.0);
    g.timings.push_back(t);
  }
  return g;
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

nlohmann::json to_json(const gpu_section& g) {
  nlohmann::json checks = nlohmann::json::array(), timings = nlohmann::json::array();
  for (const auto& c : g.checks)
    checks.push_back({{"item", c.item},
                      {"status", c.status},
                      {"feedback", c.feedback},
                      {"peak_mib", c.peak_bytes >> 20},
                      {"sanitizer_peak_mib", c.sanitizer_peak_bytes >> 20}});
  for (const auto& t : g.timings)
    timings.push_back({{"kernel", t.kernel},
                       {"size", t.size},
                       {"valid", t.valid},
                       {"ms", t.ms},
                       {"solution_ms", t.solution_ms},
                       {"baseline", t.baseline},
                       {"baseline_ms", t.baseline_ms}});
  return {{"device", g.device},
          {"arch", g.arch},
          {"checks", checks},
          {"timings", timings},
          {"messages", g.messages},
          {"disagreements", g.disagreements},
          {"bench_peak_mib", g.bench_peak_bytes >> 20}};
}

std::string render_text(const gpu_section& g, lang l) {
  std::string out = fmt::format("\n{} {} (sm_{})\n", tr(l, "GPU：", "GPU:"), g.device, g.arch);
  for (const auto& m : g.messages) out += "  " + m + "\n";
  for (const auto& d : g.disagreements)
    out += "  " +
           trf(l, "模拟器与 GPU 结论不同（同一种子）：{}",
               "the emulator and the GPU disagree (same seed): {}", d) +
           "\n";
  for (const auto& c : g.checks)
    out += fmt::format("  {} {}  {}{}\n",
                       c.status == "pass"            ? "✓"
                       : c.status == "emulator-only" ? "-"
                       : c.status == "error"         ? "!"
                                                     : "✗",
                       c.item, c.status, c.feedback.empty() ? "" : ": " + c.feedback);
  if (!g.timings.empty()) {
    out += fmt::format("  {:<26} {:<14} {:>10} {:>12} {:>22}\n", tr(l, "kernel", "kernel"),
                       tr(l, "规模", "size"), "ms", tr(l, "相对参考解", "vs solution"),
                       tr(l, "相对基线", "vs baseline"));
    for (const auto& t : g.timings) {
      const std::string vs_solution =
          t.ms > 0 && t.solution_ms > 0 ? fmt::format("{:.2f}x", t.ms / t.solution_ms) : "-";
      std::string vs_base = "-";
      if (t.ms > 0 && t.baseline_ms > 0)
        vs_base = t.baseline == "cublas_sgemm"
                      ? fmt::format("{:.0f}% of cuBLAS", 100.0 * t.baseline_ms / t.ms)
                      : fmt::format("{:.2f}x faster than {}", t.baseline_ms / t.ms, t.baseline);
      out += fmt::format("  {:<26} {:<14} {:>10} {:>12} {:>22}\n", t.kernel, t.size,
                         t.valid ? fmt::format("{:.3f}", t.ms) : tr(l, "结果错误", "wrong"),
                         vs_solution, vs_base);
    }
  }
  return out;
}

}  // namespace grader
