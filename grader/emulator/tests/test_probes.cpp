// The four probe kernels against the counters Nsight Compute measured on an H200
// (docs/emulator.md), and the race and out-of-bounds reports in compute-sanitizer's
// wording.   build/bin/emulator_tests "[probes]"
#include <catch2/catch.hpp>

#include "cuda_emu/emulator.hpp"
#include "course/device_buffer.hpp"
#include "probes.hpp"

namespace {

const cuda_emu::launch_record& run(probe which, float* out, const float* in, int n = 0) {
  cuda_emu::settings().print_reports = false;
  cuda_emu::reset();
  run_probe(which, out, in, n);
  return cuda_emu::last_launch();
}

}  // namespace

TEST_CASE("copy: 8192 load requests of 4 sectors, as ncu measured", "[probes]") {
  device_buffer<float> in(1024 * 256), out(1024 * 256);
  const auto& r = run(probe::copy, out.ptr, in.ptr);
  REQUIRE(r.ok());
  CHECK(r.counters.global_load_requests == 8192);
  CHECK(r.counters.global_load_sectors == 32768);
  CHECK(r.counters.global_store_sectors == 32768);
  CHECK(r.counters.global_load_sectors_per_request() == 4.0);
  CHECK(r.counters.global_excessive_sectors() == 0);
  CHECK(r.counters.shared_load_wavefronts == 0);
  CHECK(r.counters.max_thread_global_reads == 1);
  CHECK(r.counters.max_thread_global_writes == 1);
}

TEST_CASE("strided read: 32 sectors per request and ncu's excessive-sector figure", "[probes]") {
  device_buffer<float> in(1024 * 256 * 32), out(1024 * 256);
  const auto& r = run(probe::strided, out.ptr, in.ptr);
  REQUIRE(r.ok());
  CHECK(r.counters.global_load_requests == 8192);
  CHECK(r.counters.global_load_sectors == 262144);
  CHECK(r.counters.global_store_sectors == 32768);
  CHECK(r.counters.global_excessive_sectors() == 229376);
  CHECK_THAT(
      r.ncu_metrics(),
      Catch::Contains("a total of 229376 excessive sectors (78% of the total 294912 sectors)"));
}

TEST_CASE("bank conflict: 32 wavefronts, 31 conflicts on load and on store", "[probes]") {
  device_buffer<float> out(32);
  const auto& r = run(probe::bank_conflict, out.ptr, nullptr);
  REQUIRE(r.ok());
  CHECK(r.counters.global_load_requests == 0);
  CHECK(r.counters.global_store_sectors == 4);
  CHECK(r.counters.shared_load_bank_conflicts == 31);
  CHECK(r.counters.shared_store_bank_conflicts == 31);
  CHECK(r.counters.shared_load_wavefronts == 32);
  CHECK(r.counters.shared_load_requests == 1);
  const auto host = out.download();
  for (int t = 0; t < 32; ++t) CHECK(host[t] == float(t));
}

TEST_CASE("race: the counters, and racecheck's report with 1024 hazards", "[probes]") {
  device_buffer<float> out(256);
  const auto& r = run(probe::race, out.ptr, nullptr);
  CHECK(r.counters.global_store_sectors == 32);
  CHECK(r.counters.shared_load_wavefronts == 8);
  CHECK(r.counters.shared_load_requests == 8);
  CHECK(r.counters.shared_load_bank_conflicts == 0);
  CHECK_FALSE(r.ok());
  REQUIRE(r.races.size() == 1);
  CHECK(r.races[0].hazards == 1024);
  CHECK_THAT(r.races[0].first, Catch::StartsWith("Write access at probe_race"));
  CHECK_THAT(r.races[0].second, Catch::StartsWith("Read access at probe_race"));
  CHECK_THAT(r.races[0].first, Catch::Contains("probes.cu:"));
  CHECK_THAT(r.sanitizer_text(),
             Catch::Contains("Race reported between Write access at probe_race"));
  CHECK_THAT(r.sanitizer_text(), Catch::Contains("[1024 hazards]"));
}

TEST_CASE("out of bounds: memcheck's wording, thread 16, 1 byte after 4 MiB", "[probes]") {
  const int n = 1 << 20;  // 4 MiB of floats
  device_buffer<float> out(n);
  const auto& r = run(probe::out_of_bounds, out.ptr, nullptr, n);
  CHECK(r.error == cudaErrorIllegalAddress);
  REQUIRE(r.reports.size() == 1);
  const std::string& text = r.reports[0].text;
  CHECK_THAT(text, Catch::StartsWith("Invalid __global__ write of size 4 bytes"));
  CHECK_THAT(text, Catch::Contains("at probe_out_of_bounds"));
  CHECK_THAT(text, Catch::Contains("by thread (16,0,0) in block (0,0,0)"));
  CHECK_THAT(text, Catch::Contains("is out of bounds"));
  CHECK_THAT(text, Catch::Contains("and is 1 bytes after the nearest allocation at"));
  CHECK_THAT(text, Catch::Contains("of size 4,194,304 bytes"));
  CHECK(cudaGetLastError() == cudaErrorIllegalAddress);  // sticky, as on a GPU
  cuda_emu::reset();
  CHECK(cudaGetLastError() == cudaSuccess);
}
