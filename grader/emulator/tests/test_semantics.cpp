// CUDA semantics the emulator must get right (shuffles, ballots, atomics, a
// reduction, 2-D indices) and the faults it must report instead of hanging or
// crashing (divergent barrier, endless loop, stray pointers, missing barrier).
//   build/bin/emulator_tests "[semantics]"
#include <catch2/catch.hpp>

#include <numeric>
#include <random>

#include "course/testing.hpp"
#include "cuda_emu/emulator.hpp"
#include "course/device_buffer.hpp"
#include "semantics.hpp"

namespace {

struct quiet {
  quiet() {
    cuda_emu::settings().print_reports = false;
    cuda_emu::reset();
  }
  ~quiet() { cuda_emu::reset(); }
};

}  // namespace

TEST_CASE("__shfl_down_sync sums each warp", "[semantics]") {
  quiet q;
  auto rng = course::test_rng("shfl-down");
  INFO(course::seed_note());
  const std::vector<float> host = course::random_matrix(rng, 4, 32, 1.0);
  device_buffer<float> in(host), out(4);
  run_warp_sum_down(in.ptr, out.ptr, 4);
  REQUIRE(cuda_emu::last_launch().ok());
  const auto got = out.download();
  for (int w = 0; w < 4; ++w) {
    double want = 0;
    for (int l = 0; l < 32; ++l) want += host[w * 32 + l];
    CHECK(got[w] == Approx(want).epsilon(1e-5).margin(1e-5));
  }
}

TEST_CASE("__shfl_xor_sync gives every lane the warp's total", "[semantics]") {
  quiet q;
  std::vector<int> host(32);
  std::iota(host.begin(), host.end(), 1);
  device_buffer<int> in(host), out(32);
  run_warp_xor_allreduce(in.ptr, out.ptr);
  for (int v : out.download()) CHECK(v == 528);
}

TEST_CASE("__shfl_sync broadcasts one lane; __shfl_up_sync keeps lane 0's own value",
          "[semantics]") {
  quiet q;
  std::vector<float> host(32);
  for (int i = 0; i < 32; ++i) host[i] = 100.0f + i;
  device_buffer<float> in(host), out(32);
  run_warp_broadcast(in.ptr, out.ptr, 7);
  for (float v : out.download()) CHECK(v == 107.0f);
  device_buffer<int> up(32);
  run_warp_shift_up(up.ptr);
  const auto shifted = up.download();
  CHECK(shifted[0] == 0);
  for (int l = 1; l < 32; ++l) CHECK(shifted[l] == (l - 1) * 10);
}

TEST_CASE("__ballot_sync sets one bit per lane whose predicate holds", "[semantics]") {
  quiet q;
  device_buffer<unsigned> out(1);
  run_warp_ballot(out.ptr);
  unsigned want = 0;
  for (int l = 0; l < 32; l += 3) want |= 1u << l;
  CHECK(out.download()[0] == want);
}

TEST_CASE("atomicAdd counts every thread of every block", "[semantics]") {
  quiet q;
  device_buffer<int> counter(std::vector<int>{0});
  run_count_with_atomics(counter.ptr, 7, 96);
  CHECK(counter.download()[0] == 7 * 96);
  CHECK(cuda_emu::last_launch().counters.global_load_requests == 0);  // atomics are not loads
}

TEST_CASE("a shared-memory tree reduction with barriers is exact and race-free", "[semantics]") {
  quiet q;
  auto rng = course::test_rng("reduce");
  INFO(course::seed_note());
  for (int n : {1, 255, 256, 1000}) {
    const std::vector<float> host = course::random_matrix(rng, 1, n, 1.0);
    device_buffer<float> in(host), out(std::vector<float>{0.0f});
    run_block_sum(in.ptr, out.ptr, n);
    const auto& r = cuda_emu::last_launch();
    CHECK(r.ok());
    CHECK(r.races.empty());
    double want = 0;
    for (float x : host) want += x;
    INFO("n=" << n);
    CHECK(out.download()[0] == Approx(want).epsilon(1e-4).margin(1e-4));
  }
}

TEST_CASE("a reduction without barriers between steps is reported as a race", "[semantics]") {
  quiet q;
  device_buffer<float> in(std::vector<float>(256, 1.0f)), out(1);
  run_block_sum_missing_barrier(in.ptr, out.ptr);
  const auto& r = cuda_emu::last_launch();
  REQUIRE_FALSE(r.races.empty());
  CHECK_THAT(r.sanitizer_text(), Catch::Contains("Race reported between"));
  CHECK_THAT(r.sanitizer_text(), Catch::Contains("block_sum_missing_barrier"));
}

TEST_CASE("blockIdx, blockDim and threadIdx in two dimensions", "[semantics]") {
  quiet q;
  device_buffer<int> out(32 * 16);
  run_index_2d(out.ptr, 32, 16);
  const auto got = out.download();
  for (int y = 0; y < 16; ++y)
    for (int x = 0; x < 32; ++x) CHECK(got[y * 32 + x] == y * 1000 + x);
}

TEST_CASE("a divergent barrier is reported, not a hang", "[semantics][faults]") {
  quiet q;
  device_buffer<float> out(32);
  run_divergent_barrier(out.ptr);
  const auto& r = cuda_emu::last_launch();
  CHECK(r.error == cudaErrorLaunchFailure);
  REQUIRE(r.reports.size() == 1);
  CHECK(r.reports[0].kind == cuda_emu::report_kind::synccheck);
  CHECK_THAT(r.reports[0].text,
             Catch::StartsWith("Barrier error detected. Divergent thread(s) in block"));
  CHECK_THAT(r.reports[0].text,
             Catch::Contains("16 thread(s) exited while 16 wait at __syncthreads()"));
}

TEST_CASE("an endless loop is stopped at the time limit and the process stays usable",
          "[semantics][faults]") {
  quiet q;
  cuda_emu::settings().time_limit = std::chrono::milliseconds(200);
  device_buffer<int> flag(std::vector<int>{0}), out(1);
  const auto start = std::chrono::steady_clock::now();
  run_spin_forever(flag.ptr, out.ptr);
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  cuda_emu::settings().time_limit = std::chrono::seconds(10);
  const auto& r = cuda_emu::last_launch();
  CHECK(r.error == cudaErrorLaunchTimeout);
  REQUIRE(r.reports.size() == 1);
  CHECK_THAT(r.reports[0].text, Catch::Contains("did not finish within its time limit of 200 ms"));
  CHECK(seconds < 2.0);
  // After a reset the emulator runs kernels again.
  cuda_emu::reset();
  device_buffer<float> in(std::vector<float>(8, 2.0f)), copy(8);
  run_copy_each(in.ptr, copy.ptr, 8);
  CHECK(cuda_emu::last_launch().ok());
  CHECK(copy.download()[7] == 2.0f);
}

TEST_CASE("use after cudaFree and host pointers are memcheck errors", "[semantics][faults]") {
  quiet q;
  float* freed = nullptr;
  cudaMalloc(&freed, 64 * sizeof(float));
  cudaFree(freed);
  device_buffer<float> out(32);
  run_copy_each(freed, out.ptr, 32);
  REQUIRE(cuda_emu::last_launch().reports.size() == 1);
  CHECK_THAT(cuda_emu::last_launch().reports[0].text,
             Catch::StartsWith("Invalid __global__ read of size 4 bytes"));
  CHECK_THAT(cuda_emu::last_launch().reports[0].text, Catch::Contains("already freed by cudaFree"));
  // Device memory sits at a fixed base, so the addresses quoted read the same in every run.
  CHECK_THAT(cuda_emu::last_launch().reports[0].text, Catch::Contains("Access to 0x50"));

  cuda_emu::reset();
  std::vector<float> host(32, 1.0f);
  run_copy_each(host.data(), out.ptr, 32);
  REQUIRE(cuda_emu::last_launch().reports.size() == 1);
  CHECK_THAT(cuda_emu::last_launch().reports[0].text,
             Catch::Contains("a host pointer passed to a kernel?"));
  // A host address moves with ASLR: the message names it without quoting it.
  CHECK_THAT(cuda_emu::last_launch().reports[0].text,
             Catch::Contains("Access to a host address is out of bounds"));
  CHECK_THAT(cuda_emu::last_launch().reports[0].text, !Catch::Contains("0x"));
  CHECK(cuda_emu::last_launch().error == cudaErrorIllegalAddress);
}

TEST_CASE("peak and current device bytes are recorded", "[semantics]") {
  quiet q;
  cuda_emu::reset_peak_device_bytes();
  const uint64_t before = cuda_emu::device_bytes_in_use();
  {
    device_buffer<float> a(1000), b(500);
    CHECK(cuda_emu::device_bytes_in_use() == before + 6000);
  }
  CHECK(cuda_emu::device_bytes_in_use() == before);
  CHECK(cuda_emu::peak_device_bytes() == before + 6000);
}

TEST_CASE("bad launch configurations and bad copies are errors, not crashes",
          "[semantics][faults]") {
  quiet q;
  device_buffer<float> in(8), out(8);
  run_copy_each(in.ptr, out.ptr, 2048);  // more than 1024 threads per block
  CHECK(cuda_emu::last_launch().error == cudaErrorInvalidValue);
  CHECK(cudaGetLastError() == cudaErrorInvalidValue);
  CHECK(cudaGetLastError() == cudaSuccess);  // not sticky
  std::vector<float> host(16);
  CHECK(cudaMemcpy(host.data(), out.ptr, 16 * sizeof(float), cudaMemcpyDeviceToHost) ==
        cudaErrorInvalidValue);
  CHECK(cudaMemcpy(out.ptr, host.data(), 8 * sizeof(float), cudaMemcpyDeviceToHost) ==
        cudaErrorInvalidValue);
  CHECK(std::string(cudaGetErrorString(cudaErrorIllegalAddress)) ==
        "an illegal memory access was encountered");
}

TEST_CASE("a __shared__ array inside a template kernel is shared memory", "[semantics]") {
  quiet q;
  device_buffer<float> out(32);
  run_template_local_shared(out.ptr);
  const auto& r = cuda_emu::last_launch();
  CHECK(r.ok());
  CHECK(r.reports.empty());  // no "wrote static data" warning any more (test_cuda_api.cpp)
  CHECK(r.counters.shared_store_requests == 1);
  CHECK(r.counters.shared_load_requests == 1);
  CHECK(out.download()[31] == 1.0f);
}
