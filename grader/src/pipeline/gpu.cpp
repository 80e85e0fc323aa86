// The GPU stage's build and runs (see gpu.hpp): the nvcc tree, one plain test run per
// item of a CUDA exercise, compute-sanitizer's runs of those that passed, and the timing
// programs. What they mean is decided by score_gpu (score_gpu.cpp).
#include <fmt/format.h>

#include <algorithm>
#include <memory>
#include <set>

#include "course/protocol.hpp"
#include "grader/base/sandbox.hpp"
#include "grader/base/subprocess.hpp"
#include "grader/pipeline/build.hpp"
#include "grader/pipeline/gpu.hpp"

namespace fs = std::filesystem;

namespace grader {
namespace protocol = ::course::protocol;
namespace {

// The lesson's timing programs: the submission's, and the solution's (trusted).
std::string bench_of(const manifest& m) {
  return m.lesson + "_gpu_bench";
}
std::string solution_bench_of(const manifest& m) {
  return bench_of(m) + "_solution";
}

// The nvcc tree beside the emulator's (--build-dir moves both), locked while it lives.
std::unique_ptr<grading_tree> gpu_tree(const course& c, const manifest& m, const grade_request& req,
                                       const std::string& arch) {
  // nvcc compiles the student's code confined, as the emulator's build does.
  const isolation confined =
      req.confine_build ? req.sandbox.value_or(strongest_isolation()) : isolation::none;
  return std::make_unique<grading_tree>(
      c, m, tree_of(c, m, req).string() + "-gpu",
      tree_options{{"-DCOURSE_CUDA=ON", "-DCMAKE_CUDA_ARCHITECTURES=" + arch,
                    "-DCMAKE_CUDA_COMPILER=" + cuda_tool("nvcc")},
                   false,
                   confined});
}

// One job per item of a CUDA exercise that built: its tests but the [emulator] ones.
std::vector<test_job> plan_gpu_jobs(const manifest& m, const resolved& what, gpu_runs& g) {
  std::vector<test_job> jobs;
  for (const unit* u : what.units)
    for (const item& it : u->items) {
      const exercise& e = m.exercise_of(it);
      if (e.kind != "cu" || !what.find(e.id)) continue;
      if (!g.built.built(e.id)) {
        g.not_built.push_back(it.id);
        continue;
      }
      jobs.push_back({e.id, g.built.exercises.at(e.id).tests_binary,
                      protocol::item_tag(it.id) + "~" + std::string(protocol::emulator_tag), 0});
      g.items.push_back(it.id);
    }
  return jobs;
}

// Right by luck is not right: a race that did not bite this time, a stray access that
// landed in other memory. Every item that passed runs again under memcheck and
// racecheck (the sizes past 2^31 left out, too slow there).
void sanitize(gpu_runs& g, const std::vector<test_job>& jobs, runner& gpu, unsigned seed,
              const run_limits& limits) {
  const std::string sanitizer = cuda_tool("compute-sanitizer");
  if (sanitizer.empty()) return;
  std::vector<test_job> again;
  for (size_t i = 0; i < g.runs.size(); ++i) {
    if (!g.runs[i].passed() || g.runs[i].records.empty()) continue;
    for (const char* tool : {"memcheck", "racecheck"}) {
      test_job j = jobs[i];
      j.tag += "~" + std::string(protocol::gpu_large_tag);
      j.wrapper = {
          sanitizer,       "--tool", tool, "--error-exitcode", std::to_string(kSanitizerFound),
          "--print-limit", "4"};
      again.push_back(std::move(j));
      g.sanitized_of.push_back({i, tool});
    }
  }
  g.sanitized = run_all(gpu, again, seed, limits, 1);
}

run_result run_bench(const fs::path& binary) {
  run_options opts;
  opts.timeout = std::chrono::minutes(5);
  opts.max_memory = kGpuProcessMemory;
  return run_process({binary.string()}, opts);
}

}  // namespace

gpu_runs run_gpu(const course& c, const manifest& m, const grade_request& req, const resolved& what,
                 runner& gpu) {
  gpu_runs g;
  g.arch = detect_gpu(&g.device);
  g.any_cuda = std::any_of(what.files.begin(), what.files.end(),
                           [](const source_file& f) { return f.ex->kind == "cu"; });
  g.has_solutions = fs::exists(c.solutions_dir(m.lesson));
  if (!g.any_cuda) return g;
  // Every code file's wrapper is built (CMake configures all exercises), and the timing
  // programs; nvcc builds take longer than the emulator's.
  const auto tree = gpu_tree(c, m, req, g.arch);
  g.bench_needs_every_lab =
      !std::all_of(m.exercises.begin(), m.exercises.end(),
                   [&](const exercise& e) { return e.kind != "cu" || what.find(e.id) != nullptr; });
  std::vector<std::string> benches, solution_benches;
  if (!g.bench_needs_every_lab) {
    benches.push_back(bench_of(m));
    if (g.has_solutions) solution_benches.push_back(solution_bench_of(m));
  }
  g.built = tree->build(what.paths(),
                        std::max<std::chrono::seconds>(req.build_timeout, std::chrono::minutes(10)),
                        benches, solution_benches);
  const std::vector<test_job> jobs = plan_gpu_jobs(m, what, g);
  run_limits limits;
  limits.timeout = req.test_timeout;
  g.runs = run_all(gpu, jobs, req.seed, limits, 1);  // one GPU: one process at a time
  sanitize(g, jobs, gpu, req.seed, limits);
  const fs::path bin = tree->dir() / "bin";
  g.bench_built = g.built.extras.count(bench_of(m)) && g.built.extras.at(bench_of(m));
  g.solution_bench_built =
      g.built.extras.count(solution_bench_of(m)) && g.built.extras.at(solution_bench_of(m));
  if (g.bench_built) g.bench = run_bench(bin / bench_of(m));
  if (g.bench_built && g.solution_bench_built)
    g.solution_bench = run_bench(bin / solution_bench_of(m));
  return g;
}

}  // namespace grader
