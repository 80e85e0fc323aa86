// sm_90's resource limits at launch (src/limits.cpp): each limit met exactly runs, one
// thread, block or byte more fails as on an H200 with CUDA 13 (cudaErrorInvalidValue,
// the kernel not run: tests/limits/launch_limits.h200.txt) with a report naming the
// limit and the figure. The build-time limits (static __shared__ over 48 KiB, __constant__ over
// 64 KiB) are checked by ctest's emulator.limits_build.
//   build/bin/emulator_limits_tests          (ctest emulator.limits)
#include <catch2/catch.hpp>

#include <string>

#include "adversarial_support.hpp"
#include "course/device_buffer.hpp"
#include "cuda_emu/emulator.hpp"
#include "limits.hpp"

using namespace adversarial;  // quiet, last()

namespace {

// One launch's outcome: its error (what cudaGetLastError gave), whether the kernel ran,
// the report, and that the error was not sticky.
struct outcome {
  cudaError_t error;
  bool ran;
  std::string report;
};

template <class Launch>
outcome run(Launch launch) {
  device_buffer<int> ran(1);
  cudaMemset(ran.ptr, 0, sizeof(int));
  const cudaError_t e = launch(ran.ptr);
  outcome o{e, ran.download()[0] == 1, last().sanitizer_text()};
  CHECK(last().error == e);
  CHECK(cudaGetLastError() == cudaSuccess);  // read once, then cleared: not sticky
  return o;
}

void fails(const outcome& o, cudaError_t error, const std::string& says) {
  INFO(o.report);
  CHECK(o.error == error);
  CHECK_FALSE(o.ran);
  CHECK_THAT(o.report, Catch::Contains(says));
  CHECK_THAT(o.report, Catch::Contains("the kernel does not run"));
}

void runs(const outcome& o) {
  INFO(o.report);
  CHECK(o.error == cudaSuccess);
  CHECK(o.ran);
}

// The opt-in to more dynamic shared memory lasts until cudaDeviceReset, as on a GPU;
// these tests start and end without it. (No device buffer may be alive across it.)
struct no_opt_in {
  no_opt_in() { cudaDeviceReset(); }
  ~no_opt_in() { cudaDeviceReset(); }
};

}  // namespace

TEST_CASE("block dimensions: 1024 threads, 1024 in x or y, 64 in z", "[limits]") {
  quiet q;
  auto dims = [](dim3 g, dim3 b) { return run([=](int* ran) { return lim_dims(g, b, ran); }); };
  runs(dims(1, dim3(1024)));
  runs(dims(1, dim3(32, 32)));
  runs(dims(1, dim3(1, 1024)));
  runs(dims(1, dim3(1, 1, 64)));
  runs(dims(1, dim3(16, 1, 64)));
  fails(dims(1, dim3(1025)), cudaErrorInvalidValue, "blockDim.x 1,025 > 1024");
  fails(dims(1, dim3(2048)), cudaErrorInvalidValue, "blockDim.x 2,048 > 1024");
  fails(dims(1, dim3(1, 1025)), cudaErrorInvalidValue, "blockDim.y 1,025 > 1024");
  fails(dims(1, dim3(1, 1, 65)), cudaErrorInvalidValue, "blockDim.z 65 > 64");
  fails(dims(1, dim3(32, 33)), cudaErrorInvalidValue,
        "blockDim (32,33,1) = 1,056 threads per block > 1024");
  fails(dims(1, dim3(17, 1, 64)), cudaErrorInvalidValue, "= 1,088 threads per block > 1024");
  fails(dims(1, dim3(0)), cudaErrorInvalidValue, "blockDim (0,1,1) has a zero dimension");
  fails(dims(dim3(1, 0), 32), cudaErrorInvalidValue, "gridDim (1,0,1) has a zero dimension");
}

TEST_CASE("grid dimensions: 2^31 - 1 in x, 65535 in y and z", "[limits]") {
  quiet q;
  cuda_emu::settings().check_races = false;  // 65,535 blocks: no race shadow to reset in each
  auto dims = [](dim3 g, dim3 b) { return run([=](int* ran) { return lim_dims(g, b, ran); }); };
  runs(dims(dim3(1, 65535), 1));
  runs(dims(dim3(1, 1, 65535), 1));
  cuda_emu::settings().check_races = true;
  // 2^31 - 1 blocks would take the emulator hours: only the block past the limit.
  fails(dims(dim3(2147483648u), 1), cudaErrorInvalidValue,
        "gridDim.x 2,147,483,648 > 2^31 - 1 (2,147,483,647)");
  fails(dims(dim3(4294967295u), 1), cudaErrorInvalidValue, "gridDim.x 4,294,967,295");
  fails(dims(dim3(1, 65536), 1), cudaErrorInvalidValue, "gridDim.y 65,536 > 65,535");
  fails(dims(dim3(1, 1, 65536), 1), cudaErrorInvalidValue, "gridDim.z 65,536 > 65,535");
}

TEST_CASE("dynamic shared memory: 48 KiB, or 227 KiB after cudaFuncSetAttribute", "[limits]") {
  no_opt_in reset;
  quiet q;
  auto dynamic = [](size_t bytes) {
    return run([=](int* ran) { return lim_dynamic(bytes, ran); });
  };
  runs(dynamic(49152));
  fails(dynamic(49153), cudaErrorInvalidValue,
        "dynamic shared memory 49,153 bytes > 48 KiB (49,152 bytes) per block without "
        "cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, bytes) first");
  CHECK(lim_opt_in(232449) == cudaErrorInvalidValue);  // past the opt-in maximum: refused,
  CHECK(cudaGetLastError() == cudaErrorInvalidValue);  // and the last error, as on an H200
  fails(dynamic(49153), cudaErrorInvalidValue, "without cudaFuncSetAttribute");
  CHECK(lim_opt_in(232448) == cudaSuccess);
  runs(dynamic(49153));
  runs(dynamic(232448));
  fails(dynamic(232449), cudaErrorInvalidValue,
        "dynamic shared memory 232,449 bytes > 227 KiB (232,448 bytes) per block, the most an "
        "H200 (sm_90) allows even after cudaFuncSetAttribute");
}

TEST_CASE("static and dynamic shared memory together", "[limits]") {
  no_opt_in reset;
  quiet q;
  auto both = [](size_t bytes) {
    return run([=](int* ran) { return lim_static_dynamic(bytes, ran); });
  };
  runs(both(48 * 1024 - 1024));
  fails(both(48 * 1024 - 1023), cudaErrorInvalidValue,
        "static __shared__ 1,024 + dynamic 48,129 = 49,153 bytes > 48 KiB (49,152 bytes) per "
        "block without cudaFuncSetAttribute");
  CHECK(last().counters.shared_store_requests == 0);  // as if it had not run
  CHECK(lim_opt_in(232448) == cudaSuccess);
  runs(both(232448 - 1024));
  fails(both(232448 - 1023), cudaErrorInvalidValue,
        "static __shared__ 1,024 + dynamic 231,425 = 232,449 bytes > 227 KiB (232,448 bytes) "
        "per block");
}

TEST_CASE("static shared memory: 48 KiB per kernel, summed over the functions it calls",
          "[limits]") {
  quiet q;
  runs(run([](int* ran) { return lim_static_48k(ran); }));
  // ptxas refuses this kernel; the emulator's build cannot see the sum, its launch does.
  fails(run([](int* ran) { return lim_static_split(ran); }), cudaErrorInvalidValue,
        "static __shared__ 49,153 bytes > 48 KiB (49,152 bytes) per block: nvcc's ptxas refuses "
        "to build such a kernel for sm_90");
}

TEST_CASE("static shared memory at namespace scope counts for the kernels that use it",
          "[limits]") {
  quiet q;
  runs(run([](int* ran) { return lim_file_shared(false, ran); }));
  // Known after the first block, which has run by then; the error discards the results.
  const outcome o = run([](int* ran) { return lim_file_shared(true, ran); });
  INFO(o.report);
  CHECK(o.error == cudaErrorInvalidValue);
  CHECK_THAT(o.report, Catch::Contains("static __shared__ 49,156 bytes > 48 KiB (49,152 bytes) "
                                       "per block: nvcc's ptxas refuses"));
}
