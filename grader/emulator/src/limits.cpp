// The sm_90 (H200) resource limits a launch must respect, checked as the CUDA driver
// checks them: block and grid dimensions and shared memory per block. CUDA 13.0 on an
// H200 fails both with cudaErrorInvalidValue (measured: tests/limits/launch_limits.h200.txt;
// CUDA 12 and older said cudaErrorInvalidConfiguration for the dimensions). A launch over a limit
// fails and its kernel does not run, so code an H200 would refuse cannot pass on the emulator. The
// limits ptxas enforces at build time (static __shared__ over 48 KiB, __constant__ over 64 KiB) are
// static_asserts the rewrite adds (src/rewrite.cpp); the static shared memory a launch reaches is
// also summed here, for the checks it shares with the dynamic size.
#include <algorithm>
#include <cstdio>

#include "cuda_emu/device_api.hpp"
#include "internal.hpp"

namespace cuda_emu::detail {

// cudaFuncSetAttribute(..., cudaFuncAttributeMaxDynamicSharedMemorySize, v): the largest
// v any kernel set, and whether any did (one setting for all kernels; a GPU keeps one per
// kernel). cudaDeviceReset() forgets them, as a new context does.
size_t g_dynamic_shared_limit = kDefaultDynamicSharedBytes;
bool g_dynamic_shared_opted_in = false;

namespace {

// The running launch: its dynamic bytes and the static __shared__ arrays its threads
// have declared so far (by address, each counted once).
size_t g_launch_dynamic = 0;
size_t g_launch_static = 0;
std::vector<uintptr_t> g_launch_arrays;

}  // namespace

std::string grouped(uint64_t v) {  // 49280 -> "49,280", as the messages print figures
  std::string digits = std::to_string(v), out;
  for (size_t i = 0; i < digits.size(); ++i) {
    if (i > 0 && (digits.size() - i) % 3 == 0) out += ',';
    out += digits[i];
  }
  return out;
}

namespace {

std::string dims(const dim3& d) {
  return "(" + std::to_string(d.x) + "," + std::to_string(d.y) + "," + std::to_string(d.z) + ")";
}

const char* const kOptIn =
    "cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, bytes)";
const char* const kOptInMax =
    "227 KiB (232,448 bytes) per block, the most an H200 (sm_90) allows even after "
    "cudaFuncSetAttribute (an SM has 228 KiB, 1 KiB of it reserved per block)";

// Why the dimensions are invalid, or "".
std::string dimension_problem(const dim3& grid, const dim3& block) {
  const uint64_t threads = uint64_t{block.x} * block.y * block.z;
  if (block.x == 0 || block.y == 0 || block.z == 0)
    return "blockDim " + dims(block) + " has a zero dimension; each must be at least 1";
  if (grid.x == 0 || grid.y == 0 || grid.z == 0)
    return "gridDim " + dims(grid) + " has a zero dimension; each must be at least 1";
  if (block.x > kMaxThreadsPerBlock)
    return "blockDim.x " + grouped(block.x) + " > 1024, sm_90's limit";
  if (block.y > kMaxThreadsPerBlock)
    return "blockDim.y " + grouped(block.y) + " > 1024, sm_90's limit";
  if (block.z > kMaxBlockDimZ) return "blockDim.z " + grouped(block.z) + " > 64, sm_90's limit";
  if (threads > kMaxThreadsPerBlock)
    return "blockDim " + dims(block) + " = " + grouped(threads) +
           " threads per block > 1024, sm_90's limit";
  if (grid.x > kMaxGridDimX)
    return "gridDim.x " + grouped(grid.x) + " > 2^31 - 1 (2,147,483,647), sm_90's limit";
  if (grid.y > kMaxGridDimYZ) return "gridDim.y " + grouped(grid.y) + " > 65,535, sm_90's limit";
  if (grid.z > kMaxGridDimYZ) return "gridDim.z " + grouped(grid.z) + " > 65,535, sm_90's limit";
  return "";
}

// Why the launch's dynamic shared memory alone is over a limit, or "".
std::string dynamic_problem(size_t bytes) {
  if (bytes > kMaxDynamicSharedBytes)
    return "dynamic shared memory " + grouped(bytes) + " bytes > " + kOptInMax;
  if (bytes <= g_dynamic_shared_limit) return "";
  if (!g_dynamic_shared_opted_in)
    return "dynamic shared memory " + grouped(bytes) +
           " bytes > 48 KiB (49,152 bytes) per block without " + kOptIn + " first";
  return "dynamic shared memory " + grouped(bytes) + " bytes > the " +
         grouped(g_dynamic_shared_limit) + " bytes set with " + kOptIn;
}

// Why the static arrays reached so far, with the dynamic bytes, are over a limit, or "".
std::string shared_problem(size_t static_bytes, size_t dynamic_bytes) {
  const std::string sum = "static __shared__ " + grouped(static_bytes) + " + dynamic " +
                          grouped(dynamic_bytes) + " = " + grouped(static_bytes + dynamic_bytes) +
                          " bytes";
  // ptxas refuses such a kernel; this catches what the rewrite's static_assert cannot
  // see (arrays in several scopes or in __device__ functions the kernel calls).
  if (static_bytes > kMaxStaticSharedBytes)
    return "static __shared__ " + grouped(static_bytes) +
           " bytes > 48 KiB (49,152 bytes) per block: nvcc's ptxas refuses to build such a "
           "kernel for sm_90 (\"uses too much shared data\"), so it would not build for a GPU; "
           "use dynamic shared memory (extern __shared__) with " +
           std::string(kOptIn);
  if (static_bytes + dynamic_bytes > kMaxDynamicSharedBytes) return sum + " > " + kOptInMax;
  if (!g_dynamic_shared_opted_in && static_bytes + dynamic_bytes > kDefaultDynamicSharedBytes)
    return sum + " > 48 KiB (49,152 bytes) per block without " + kOptIn + " first";
  return "";
}

const char* const kNotRun = "; the kernel does not run";

}  // namespace

limit_problem check_launch_limits(const launch_config& config, const std::string& kernel) {
  g_launch_dynamic = config.shared_bytes;
  g_launch_static = 0;
  g_launch_arrays.clear();
  const std::string head = "launch of " + kernel + "<<<" + dims(config.grid) + ", " +
                           dims(config.block) + ", " + grouped(config.shared_bytes) + ">>>: ";
  if (const std::string why = dimension_problem(config.grid, config.block); !why.empty())
    return {cudaErrorInvalidValue, head + why + " (cudaErrorInvalidValue)" + kNotRun};
  if (const std::string why = dynamic_problem(config.shared_bytes); !why.empty())
    return {cudaErrorInvalidValue, head + why + " (cudaErrorInvalidValue)" + kNotRun};
  return {};
}

void reset_function_attributes() {
  g_dynamic_shared_limit = kDefaultDynamicSharedBytes;
  g_dynamic_shared_opted_in = false;
}

// The static __shared__ arrays declared at namespace scope (base, bytes), registered at
// start-up. A function-local static: other files' initialisers may run first.
std::vector<std::pair<uintptr_t, size_t>>& file_shared() {
  static std::vector<std::pair<uintptr_t, size_t>> arrays;
  return arrays;
}

bool note_file_shared(const volatile void* array, size_t bytes) {
  file_shared().push_back({reinterpret_cast<uintptr_t>(array), bytes});
  return true;
}

// After the launch's first block: the namespace-scope arrays it touched (its race-check
// shadow says which words it read or wrote) join the arrays its threads declared. ptxas
// counts only the arrays a kernel uses; a block that touched none of an array's words is
// taken not to use it. Without race checks there is no shadow, and nothing is added.
std::string file_shared_problem() {
  if (file_shared().empty() || emu.shadow.empty()) return "";
  size_t touched = 0;
  for (const auto& [base, bytes] : file_shared()) {
    const size_t w0 = (base - emu.shared_lo) / 2, w1 = std::min(emu.shadow.size(), w0 + bytes / 2);
    for (size_t w = w0; w < w1; ++w)
      if (emu.shadow[w].read_epoch != 0 || emu.shadow[w].write_epoch != 0) {
        touched += bytes;
        break;
      }
  }
  if (touched == 0) return "";
  const std::string why = shared_problem(g_launch_static + touched, g_launch_dynamic);
  if (why.empty()) return "";
  return "launch of " + (emu.record ? emu.record->kernel : std::string("?")) + ": " + why +
         " (cudaErrorInvalidValue)" + kNotRun;
}

// Called (through the rewrite) after each static __shared__ declaration in a function,
// by every thread that reaches it. On a GPU the sizes are known before the launch; here
// they are known when the first thread declares them, so an over-limit launch stops
// there: its results are discarded with the error, as if it had not run.
void note_static_shared(const volatile void* array, size_t bytes) {
  if (!emu.in_kernel) return;
  const uintptr_t at = reinterpret_cast<uintptr_t>(array);
  for (const uintptr_t seen : g_launch_arrays)
    if (seen == at) return;
  g_launch_arrays.push_back(at);
  g_launch_static += bytes;
  emu.in_kernel = false;  // the message builds strings
  const std::string why = shared_problem(g_launch_static, g_launch_dynamic);
  if (why.empty()) {
    emu.in_kernel = true;
    return;
  }
  abort_thread(abort_reason::config, "launch of " +
                                         (emu.record ? emu.record->kernel : std::string("?")) +
                                         ": " + why + " (cudaErrorInvalidValue)" + kNotRun);
}

}  // namespace cuda_emu::detail
