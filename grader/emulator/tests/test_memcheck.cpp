// Adversarial tests of the memory checks: __device__ variables, one byte past an
// allocation, host pointers, wide and misaligned accesses, and the runtime API's
// argument checks.
//   build/bin/emulator_tests -# "[#test_memcheck]"     ([!mayfail] tests document emulator bugs)
#include <catch2/catch.hpp>

#include <vector>

#include "course/device_buffer.hpp"
#include "cuda_emu/emulator.hpp"
#include "adversarial_support.hpp"
#include "copies.hpp"
#include "memcheck.hpp"

using namespace adversarial;  // quiet, last(), in_child(), ...

TEST_CASE("__device__ variables: reads and atomics are not errors", "[adversarial][memcheck]") {
  quiet q;
  device_buffer<float> out(32);
  device_buffer<int> counter(1);
  adv_device_vars(out.ptr, counter.ptr);
  const auto& all = cuda_emu::launches();
  REQUIRE(all.size() == 2);
  CHECK(all[0].ok());
  CHECK_FALSE(has_error_report(all[0]));
  CHECK(all[1].ok());
  const auto got = out.download();
  for (int t = 0; t < 32; ++t) CHECK(got[t] == float(t % 4 + 1));
  CHECK(counter.download()[0] == 32);
}

TEST_CASE("writing 1 byte past the end and reading 1 element before the start",
          "[adversarial][memcheck]") {
  quiet q;
  char* bytes = nullptr;
  REQUIRE(cudaMalloc(&bytes, 33) == cudaSuccess);
  adv_write_bytes(bytes, 33);
  CHECK(last().ok());
  adv_write_bytes(bytes, 34);
  {
    const auto& r = last();
    CHECK(r.error == cudaErrorIllegalAddress);
    REQUIRE(r.reports.size() == 1);
    CHECK_THAT(r.reports[0].text, Catch::StartsWith("Invalid __global__ write of size 1 bytes"));
    CHECK_THAT(r.reports[0].text, Catch::Contains("by thread (33,0,0) in block (0,0,0)"));
    CHECK_THAT(r.reports[0].text, Catch::Contains("is 1 bytes after the nearest allocation"));
    CHECK_THAT(r.reports[0].text, Catch::Contains("of size 33 bytes"));
  }
  cudaFree(bytes);
  cuda_emu::reset();
  device_buffer<float> in(32), out(32);
  adv_read_before(in.ptr, out.ptr);
  const auto& r = last();
  CHECK(r.error == cudaErrorIllegalAddress);
  REQUIRE(r.reports.size() == 1);
  CHECK_THAT(r.reports[0].text, Catch::StartsWith("Invalid __global__ read of size 4 bytes"));
  CHECK_THAT(r.reports[0].text, Catch::Contains("by thread (0,0,0)"));
  CHECK_THAT(r.reports[0].text, Catch::Contains("is 4 bytes before the nearest allocation"));
  CHECK(cudaMemcpy(out.ptr, in.ptr, 4, cudaMemcpyDeviceToDevice) ==
        cudaErrorIllegalAddress);  // sticky
}

TEST_CASE("a host array in static storage passed to a kernel is a memcheck error",
          "[adversarial][memcheck][!mayfail]") {
  // The classic mistake (a global host array passed without cudaMemcpy).
  // BUG (false negative): on_access() takes every address between __executable_start
  // and _end for a __device__ variable, so host globals are accepted silently.
  quiet q;
  static float host_array[32] = {1.0f};
  device_buffer<float> out(32);
  adv_copy(host_array, out.ptr, 32);
  CHECK(last().error == cudaErrorIllegalAddress);
}

TEST_CASE("a 32-byte struct read that runs 4 bytes past the allocation is caught",
          "[adversarial][memcheck]") {
  // BUG: __tsan_read_range/__tsan_write_range clamp the size to 16 (src/access.cpp),
  // so only the first half of a 32-byte struct is checked (and counted).
  quiet q;
  adv_big* in = nullptr;
  device_buffer<adv_big> out(1);
  REQUIRE(cudaMalloc(reinterpret_cast<void**>(&in), sizeof(adv_big) - 4) == cudaSuccess);
  adv_copy_big(in, out.ptr, 1);
  CHECK(last().error == cudaErrorIllegalAddress);
  cuda_emu::reset();
  cudaFree(in);
}

TEST_CASE("cudaMemcpy with wrong kinds or sizes, cudaFree twice, cudaMemset past the end",
          "[adversarial][memcheck]") {
  quiet q;
  device_buffer<float> d(8);
  std::vector<float> h(16, 3.0f);
  CHECK(cudaMemcpy(h.data(), d.ptr, 8 * sizeof(float), cudaMemcpyHostToDevice) ==
        cudaErrorInvalidValue);
  CHECK(cudaGetLastError() == cudaErrorInvalidValue);
  CHECK(cudaGetLastError() == cudaSuccess);
  CHECK(cudaMemcpy(d.ptr, h.data(), 9 * sizeof(float), cudaMemcpyHostToDevice) ==
        cudaErrorInvalidValue);
  CHECK(cudaMemcpy(d.ptr, h.data(), 8 * sizeof(float), cudaMemcpyDefault) == cudaSuccess);
  std::vector<float> back(8);
  CHECK(cudaMemcpy(back.data(), d.ptr, 8 * sizeof(float), cudaMemcpyDefault) == cudaSuccess);
  CHECK(back[7] == 3.0f);
  CHECK(cudaMemcpy(d.ptr + 1, d.ptr, 7 * sizeof(float), cudaMemcpyDeviceToDevice) == cudaSuccess);
  CHECK(cudaMemcpy(d.ptr + 1, d.ptr, 8 * sizeof(float), cudaMemcpyDeviceToDevice) ==
        cudaErrorInvalidValue);
  CHECK(cudaMemset(d.ptr, 0, 9 * sizeof(float)) == cudaErrorInvalidValue);
  CHECK(cudaMemset(h.data(), 0, 4) == cudaErrorInvalidValue);
  float* twice = nullptr;
  REQUIRE(cudaMalloc(&twice, 16) == cudaSuccess);
  CHECK(cudaFree(twice) == cudaSuccess);
  CHECK(cudaFree(twice) == cudaErrorInvalidValue);
  CHECK(cudaMemcpy(h.data(), twice, 16, cudaMemcpyDeviceToHost) == cudaErrorInvalidValue);
  CHECK(cudaFree(h.data()) == cudaErrorInvalidValue);
  CHECK(cudaFree(d.ptr + 1) == cudaErrorInvalidValue);
  CHECK(cudaFree(nullptr) == cudaSuccess);
  cudaGetLastError();
  // The device buffer still works after all that.
  adv_copy(d.ptr, d.ptr, 1);
  CHECK(last().ok());
}

TEST_CASE("a misaligned float4 load fails the launch instead of crashing the process",
          "[adversarial][memcheck]") {
  // A GPU stops the launch with "misaligned address" (cudaErrorMisalignedAddress) and
  // the process goes on. BUG: g++ compiles the 16-byte-aligned float4 load to movdqa,
  // which faults (SIGSEGV) on x86: no report, and the whole test program dies.
  quiet q;
  const int status = in_child(
      [] {
        device_buffer<float> in(32 * 4 + 4);
        device_buffer<float4> out(32);
        adv_misaligned_float4(in.ptr, out.ptr);
        return cuda_emu::last_launch().error != cudaSuccess ? 0 : 1;
      },
      10);
  INFO(describe(status));
  CHECK(exited_with(status, 0));
}

TEST_CASE("a float load 2 bytes off its alignment is a memcheck error", "[adversarial][memcheck]") {
  // compute-sanitizer: "Invalid __global__ read of size 4 bytes ... misaligned";
  // BUG (false negative): the emulator has unaligned hooks and accepts the access.
  quiet q;
  device_buffer<float> in(40), out(32);
  adv_misaligned_float(in.ptr, out.ptr);
  CHECK(last().error != cudaSuccess);
}
