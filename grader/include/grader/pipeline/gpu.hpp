// `--gpu` through the pipeline's own stages: on a machine with nvcc and an NVIDIA GPU,
// the lesson's CUDA exercises are built with nvcc for the GPU's architecture (build),
// their correctness tests run again on the GPU through `gpu_runner`, once plainly and,
// where compute-sanitizer is installed, under memcheck and racecheck (tests tagged
// [emulator] need the emulator's counters and stay CPU-only), and the lesson's timing
// program times each kernel against the reference solution and the baselines (run).
// score_gpu turns those runs into the report's typed GPU section (score); every
// reporter renders it.
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "grader/pipeline/grade.hpp"
#include "grader/pipeline/report.hpp"
#include "grader/pipeline/run.hpp"

namespace grader {

// Resident memory a GPU process may hold: a CUDA context, cuBLAS and the tests' host
// buffers. On an H200 the largest test process held 477 MiB and the timing program
// (cuBLAS) 387 MiB (docs/measurements/2026-12-03-h200-gpu-fresh/): four times that, for
// other drivers and GPUs. compute-sanitizer's processes held up to 1,019 MiB: 4 GiB.
inline constexpr std::uint64_t kGpuProcessMemory = 2ull << 30;
inline constexpr std::uint64_t kSanitizerProcessMemory = 4ull << 30;
// Exit status compute-sanitizer gives a process in which it found an error.
inline constexpr int kSanitizerFound = 97;

// A CUDA Toolkit program (nvcc, compute-sanitizer): on PATH, or where the toolkit
// installs it; "" when absent.
std::string cuda_tool(const std::string& name);
// The architecture of GPU 0 as CMake wants it ("90" for an H100/H200), or "" when
// there is no usable GPU; `name` receives the device's name.
std::string detect_gpu(std::string* name);
// Throws cannot_grade when there is no nvcc or no GPU.
void require_gpu();

// Test jobs on the GPU: one process at a time (one GPU), never cached, with the GPU's own
// memory limits (its share of a parallel grade would be too small for a CUDA context)
// and at least 30 s (2 min under compute-sanitizer, a job with a wrapper).
class gpu_runner final : public runner {
 public:
  std::string isolation() const override { return "process (GPU)"; }
  tag_run run(const test_job& job, unsigned seed, const run_limits& limits) override;

 private:
  process_runner inner_;
};

// What the GPU stage ran, as plain data for score_gpu.
struct gpu_runs {
  std::string device, arch;
  bool any_cuda = false;  // the graded units have a CUDA exercise
  build_result built;     // the nvcc tree's build
  // One plain run per item of a CUDA exercise that built, in manifest order.
  std::vector<std::string> items;
  std::vector<tag_run> runs;
  std::vector<std::string> not_built;  // items whose exercise nvcc could not build
  // compute-sanitizer's runs of the items whose plain run passed: (index into runs, tool).
  std::vector<std::pair<size_t, std::string>> sanitized_of;
  std::vector<tag_run> sanitized;
  // The timing program, the submission's and the solution's (absent in a student release).
  bool bench_built = false, solution_bench_built = false, has_solutions = false;
  // The timing program links every CUDA exercise: with --unit naming only some, it is
  // not built, and the report says so (not that it failed to build).
  bool bench_needs_every_lab = false;
  run_result bench, solution_bench;
};

// The GPU stage's build and runs for the request's units (require_gpu() first).
gpu_runs run_gpu(const course& c, const manifest& m, const grade_request& req, const resolved& what,
                 runner& gpu);

// One item's GPU check from its test process: fail when a test failed (its first
// failure, with the cause lines), error when a limit stopped it before any failed (the
// limit named), emulator-only when no test of it runs on a GPU, else pass; a crash or
// an error exit without a failed test is a fail.
gpu_check gpu_check_of(const std::string& item, const tag_run& run, lang l);

// compute-sanitizer's first report in a process's output, headline and place on one
// line ("Invalid __global__ read of size 4 bytes at k(float*)+0x30 in f.cu:31"), or "".
std::string first_sanitizer_error(const std::string& output);

// Compares each GPU verdict (pass or fail) with the same item in the emulated report:
// either passes, or neither does. A check the GPU could not judge (error) is no verdict.
std::vector<std::string> disagreements(const gpu_section& g, const report& emulated);

// The score stage for the GPU: pure, from the runs to the report's section (checks,
// sanitizer verdicts, timings against the solution and baselines, disagreements).
gpu_section score_gpu(const gpu_runs& runs, const report& emulated, lang l);

// The section as the reporters write it: JSON (docs/report.schema.json's "gpu") and text.
nlohmann::json to_json(const gpu_section& g);
std::string render_text(const gpu_section& g, lang l);

}  // namespace grader
