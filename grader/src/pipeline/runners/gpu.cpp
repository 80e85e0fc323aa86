// The GPU's runner and the device it runs on (see pipeline/gpu.hpp).
#include <fmt/format.h>

#include <algorithm>
#include <cctype>

#include "grader/base/error.hpp"
#include "grader/base/files.hpp"
#include "grader/base/subprocess.hpp"
#include "grader/pipeline/gpu.hpp"

namespace grader {

std::string cuda_tool(const std::string& name) {
  if (on_path(name)) return name;
  for (const std::string dir : {"/usr/local/cuda/bin/", "/usr/bin/"})
    if (on_path(dir + name)) return dir + name;
  return {};
}

std::string detect_gpu(std::string* name) {
  run_options opts;
  opts.timeout = std::chrono::seconds(20);
  const run_result r = run_process(
      {"nvidia-smi", "--query-gpu=name,compute_cap", "--format=csv,noheader", "-i", "0"}, opts);
  if (!r.ok()) return {};
  const auto lines = split_lines(r.output);
  const std::string line(lines.empty() ? std::string_view{} : lines.front());
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

tag_run gpu_runner::run(const test_job& job, unsigned seed, const run_limits& limits) {
  run_limits own = limits;
  const bool sanitized = !job.wrapper.empty();
  own.timeout = std::max<std::chrono::milliseconds>(
      limits.timeout, sanitized ? std::chrono::minutes(2) : std::chrono::seconds(30));
  own.max_memory = sanitized ? kSanitizerProcessMemory : kGpuProcessMemory;
  return inner_.run(job, seed, own);
}

}  // namespace grader
