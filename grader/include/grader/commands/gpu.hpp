// `grader <lesson> --gpu`: on a machine with nvcc and an NVIDIA GPU, builds the
// lesson's CUDA exercises with nvcc for the GPU's architecture, re-runs their
// correctness tests on the GPU (tests tagged [emulator] need the emulator's
// counters and stay CPU-only), and times each kernel against the reference
// solution and against the lesson's baselines (cuBLAS, a naive attention).
#pragma once

#include <nlohmann/json.hpp>
#include <cstdint>
#include <string>
#include <vector>

#include "grader/pipeline/grade.hpp"
#include "grader/pipeline/run.hpp"
#include "grader/lesson/manifest.hpp"

namespace grader {

struct gpu_check {
  std::string item;
  // pass, fail: the GPU judged. error: it could not judge (a limit, a crash, no build),
  // which is never a verdict, nor a disagreement with the emulator. emulator-only.
  std::string status;
  std::string feedback;
  std::uint64_t peak_bytes = 0;            // the test process's most resident memory (sampled)
  std::uint64_t sanitizer_peak_bytes = 0;  // the same under compute-sanitizer
};

struct gpu_timing {
  std::string kernel, size;
  bool valid = false;
  double ms = -1, solution_ms = -1, baseline_ms = -1;
  std::string baseline;
};

struct gpu_section {
  std::string device, arch;
  std::vector<gpu_check> checks;
  std::vector<gpu_timing> timings;
  std::vector<std::string> messages;   // build errors, missing timings
  std::uint64_t bench_peak_bytes = 0;  // the timing program's most resident memory
  // Items whose correctness verdict on the GPU differs from the emulator's (same seed):
  // "flash.correct: emulator pass, GPU fail". Empty when they agree.
  std::vector<std::string> disagreements;
};

// Resident memory a GPU process may hold: a CUDA context, cuBLAS and the tests' host
// buffers. On an H200 the largest test process held 477 MiB and the timing program
// (cuBLAS) 387 MiB (docs/measurements/2026-12-03-h200-gpu-fresh/): four times that, for
// other drivers and GPUs. compute-sanitizer's processes held up to 1,019 MiB: 4 GiB.
inline constexpr std::uint64_t kGpuProcessMemory = 2ull << 30;
inline constexpr std::uint64_t kSanitizerProcessMemory = 4ull << 30;

// Compares each GPU verdict (pass or fail) with the same item in the emulated report:
// either passes, or neither does. A check the GPU could not judge (error) is no verdict.
std::vector<std::string> disagreements(const gpu_section& g, const report& emulated);

// One item's GPU check from its test process: fail when a test failed (its first
// failure, with the cause lines), error when a limit stopped it before any failed (the
// limit named), emulator-only when no test of it runs on a GPU, else pass; a crash or
// an error exit without a failed test is a fail.
gpu_check gpu_check_of(const std::string& item, const tag_run& run, lang l);

// compute-sanitizer's first report in a process's output, headline and place on one
// line ("Invalid __global__ read of size 4 bytes at k(float*)+0x30 in f.cu:31"), or "".
std::string first_sanitizer_error(const std::string& output);

// The architecture of GPU 0 as CMake wants it ("90" for an H100/H200), or "" when
// there is no usable GPU; `name` receives the device's name.
std::string detect_gpu(std::string* name);

// Throws cannot_grade when there is no nvcc or no GPU.
void require_gpu();
gpu_section grade_gpu(const course& c, const manifest& m, const grade_request& request);

nlohmann::json to_json(const gpu_section& g);
std::string render_text(const gpu_section& g, lang l);

}  // namespace grader
