// `grader <lesson> --gpu`: on a machine with nvcc and an NVIDIA GPU, builds the
// lesson's CUDA exercises with nvcc for the GPU's architecture, re-runs their
// correctness tests on the GPU (tests tagged [emulator] need the emulator's
// counters and stay CPU-only), and times each kernel against the reference
// solution and against the lesson's baselines (cuBLAS, a naive attention).
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "grader/pipeline/grade.hpp"
#include "grader/lesson/manifest.hpp"

namespace grader {

struct gpu_check {
  std::string item;
  std::string status;  // pass, fail, error, emulator-only
  std::string feedback;
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
  std::vector<std::string> messages;  // build errors, missing timings
  // Items whose correctness verdict on the GPU differs from the emulator's (same seed):
  // "flash.correct: emulator pass, GPU fail". Empty when they agree.
  std::vector<std::string> disagreements;
};

// Compares each GPU check (pass, fail or error) with the same item in the emulated
// report: either passes, or neither does.
std::vector<std::string> disagreements(const gpu_section& g, const report& emulated);

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
