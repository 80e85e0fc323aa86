// Adversarial tests of warp-level operations: shuffles within segments of 8 and 16
// lanes, disjoint masks, several operations pending at once in one warp (and the
// divergence and deadlock errors), and votes in a block whose last warp is partial.
//   build/bin/emulator_tests -# "[#test_warp]"     ([!mayfail] tests document emulator bugs)
#include <catch2/catch.hpp>

#include <chrono>
#include <cmath>
#include <numeric>
#include <string>
#include <vector>

#include "course/device_buffer.hpp"
#include "cuda_emu/emulator.hpp"
#include "adversarial_support.hpp"
#include "warp.hpp"

using namespace adversarial;  // quiet, last(), in_child(), ...

TEST_CASE("xor shuffles within 16-lane segments, with a half warp at the end of the block",
          "[adversarial]") {
  quiet q;
  std::vector<int> host(48);
  std::iota(host.begin(), host.end(), 1);
  device_buffer<int> in(host), out(48);
  adv_segment_sums(in.ptr, out.ptr, 48);
  REQUIRE(last().ok());
  const auto got = out.download();
  for (int t = 0; t < 48; ++t) {
    const int seg = t / 16 * 16;
    int want = 0;
    for (int i = seg; i < seg + 16; ++i) want += host[i];
    INFO("thread " << t);
    CHECK(got[t] == want);
  }
}

TEST_CASE("__shfl_xor_sync with width 16 reads from the earlier segment", "[adversarial]") {
  // CUDA: "each group of width consecutive threads are able to access elements from
  // earlier groups of threads; if they attempt to access elements from later groups
  // their own value is returned" (PTX shfl.bfly: valid when lane^mask <= maxLane).
  // BUG: resolve() in src/scheduler.cpp also returns the own value for an earlier group.
  quiet q;
  device_buffer<int> out(32);
  adv_xor_earlier_segment(out.ptr);
  REQUIRE(last().ok());
  const auto got = out.download();
  for (int l = 0; l < 16; ++l) CHECK(got[l] == l);        // later group: own value
  for (int l = 16; l < 32; ++l) CHECK(got[l] == l - 16);  // earlier group: lane ^ 16
}

TEST_CASE("shuffles with width 8: idx, up, down, negative source lane", "[adversarial]") {
  quiet q;
  device_buffer<int> out(128);
  adv_shfl_width8(out.ptr);
  REQUIRE(last().ok());
  const auto got = out.download();
  for (int t = 0; t < 32; ++t) {
    const int base = t / 8 * 8;
    INFO("lane " << t);
    CHECK(got[t] == base + 3);
    CHECK(got[32 + t] == (t - 2 >= base ? t - 2 : t));
    CHECK(got[64 + t] == (t + 5 < base + 8 ? t + 5 : t));
    CHECK(got[96 + t] == base + 7);
  }
}

TEST_CASE("even and odd lanes shuffle among themselves with disjoint masks", "[adversarial]") {
  // Legal since Volta: each group's mask names exactly the lanes that execute it.
  quiet q;
  device_buffer<int> out(32);
  adv_parity_masks(out.ptr);
  const auto& r = last();
  INFO(r.sanitizer_text());
  REQUIRE(r.ok());
  const auto got = out.download();
  for (int l = 0; l < 32; ++l) CHECK(got[l] == (l % 2 ? 10 : 0));
}

TEST_CASE("a partial tile's masked reduction while the other lanes wait at the broadcast",
          "[adversarial]") {
  // Lanes < bc reduce with mask __ballot_sync(lane < bc); lanes >= bc are already at the
  // full-mask __shfl_sync, which must wait until the masked shuffles are done (sm_70+).
  quiet q;
  const int threads = 64;
  std::vector<int> host(threads);
  std::iota(host.begin(), host.end(), 1);
  device_buffer<int> in(host), out(threads);
  for (uint64_t schedule : {uint64_t{0}, uint64_t{5}, uint64_t{12}})
    for (int bc : {1, 7, 16, 31, 32}) {
      INFO("bc " << bc << ", schedule " << schedule);
      cuda_emu::settings().schedule = schedule;
      adv_masked_partial_reduction(in.ptr, out.ptr, threads, bc);
      cuda_emu::settings().schedule = 0;
      const auto& r = last();
      INFO(r.sanitizer_text());
      REQUIRE(r.ok());
      const auto got = out.download();
      for (int t = 0; t < threads; ++t) {
        const int warp = t / 32 * 32;
        int want = 0;
        for (int i = warp; i < warp + bc; ++i) want += host[i];
        INFO("thread " << t);
        CHECK(got[t] == want);
      }
    }
}

TEST_CASE("two half warps reduce with their own masks at the same time", "[adversarial]") {
  quiet q;
  for (bool by_width : {false, true})
    for (uint64_t schedule : {uint64_t{0}, uint64_t{4}}) {
      INFO((by_width ? "width 16" : "masks only") << ", schedule " << schedule);
      device_buffer<int> out(32);
      cuda_emu::settings().schedule = schedule;
      adv_half_warp_reductions(out.ptr, by_width);
      cuda_emu::settings().schedule = 0;
      const auto& r = last();
      INFO(r.sanitizer_text());
      REQUIRE(r.ok());
      CHECK(r.reports.empty());  // no lane reads outside its mask
      const auto got = out.download();
      for (int l = 0; l < 32; ++l) CHECK(got[l] == (l < 16 ? 120 + 376000 : 376 + 120000));
    }
}

TEST_CASE("lanes at two different operations with the same mask are divergent", "[adversarial]") {
  quiet q;
  device_buffer<int> out(32);
  adv_same_mask_different_ops(out.ptr);
  const auto& r = last();
  CHECK(r.error == cudaErrorLaunchFailure);
  REQUIRE(r.reports.size() == 1);
  CHECK(r.reports[0].kind == cuda_emu::report_kind::synccheck);
  CHECK_THAT(
      r.reports[0].text,
      Catch::StartsWith("Barrier error detected. Divergent thread(s) in warp") &&
          Catch::Contains("lanes of one warp reached different warp-synchronous operations"));
}

TEST_CASE("lanes waiting at masks that can never complete are a deadlock, not a hang",
          "[adversarial]") {
  quiet q;
  cuda_emu::settings().time_limit = std::chrono::seconds(5);
  device_buffer<int> out(32);
  const auto start = std::chrono::steady_clock::now();
  adv_warp_deadlock(out.ptr);
  CHECK(std::chrono::steady_clock::now() - start < std::chrono::seconds(2));
  const auto& r = last();
  CHECK(r.error == cudaErrorLaunchFailure);
  REQUIRE(r.reports.size() == 1);
  CHECK(r.reports[0].kind == cuda_emu::report_kind::synccheck);
  const std::string& text = r.reports[0].text;
  INFO(text);
  CHECK_THAT(text, Catch::StartsWith("Barrier error detected. Deadlock in warp 0"));
  CHECK_THAT(text, Catch::Contains("lanes 0-15 wait at __shfl_sync with mask 0x0001ffff for "
                                   "lane 16"));
  CHECK_THAT(text, Catch::Contains("lanes 16-31 wait at __shfl_sync with mask 0xffff0001 for "
                                   "lane 0"));
}

TEST_CASE("lanes at a shuffle whose other lanes wait at __syncthreads are divergent",
          "[adversarial]") {
  quiet q;
  device_buffer<int> out(32);
  adv_shuffle_vs_barrier(out.ptr);
  const auto& r = last();
  CHECK(r.error == cudaErrorLaunchFailure);
  REQUIRE(r.reports.size() == 1);
  CHECK(r.reports[0].kind == cuda_emu::report_kind::synccheck);
  CHECK_THAT(r.reports[0].text,
             Catch::StartsWith("Barrier error detected. Divergent thread(s) in warp") &&
                 Catch::Contains("16 lane(s) wait at a warp-synchronous operation that lanes "
                                 "of their mask never reach") &&
                 Catch::Contains("lanes 0-15 wait at __shfl_sync with mask 0xffffffff for lanes "
                                 "16-31 (lanes 16-31 at __syncthreads())"));
}

TEST_CASE("a shuffle that reads a lane outside its mask gets a poison value and a warning",
          "[adversarial]") {
  // Undefined on a GPU (the H200 happened to return the lane's register). The emulator
  // returns NaN or 3.4e38 so a result that uses it is wrong, and says why.
  quiet q;
  device_buffer<float> out(32);
  adv_xor_outside_mask(out.ptr);
  const auto& r = last();
  CHECK(r.error == cudaSuccess);
  REQUIRE(r.reports.size() == 1);  // once per launch
  CHECK(r.reports[0].kind == cuda_emu::report_kind::warning);
  CHECK_THAT(r.reports[0].text,
             Catch::Contains("__shfl_xor_sync with mask 0x0000007f: lane 0 reads lane 16, which "
                             "is not in the mask"));
  const auto got = out.download();
  CHECK_FALSE(got[0] == 7.0f);  // the sum of seven 1s, had the outside lanes given 0
  CHECK_FALSE(got[0] == 32.0f);
}

TEST_CASE("a shuffle that reads a lane which has returned gets a poison value and a warning",
          "[adversarial]") {
  // Lanes 20..31 return before a full-mask warp sum: undefined on a GPU. Returning the
  // reader's own value would pass for a neutral element (20 + 12 doubled lanes here), so
  // the emulator poisons it and says which lane had returned.
  quiet q;
  device_buffer<float> out(1);
  adv_shuffle_after_return(out.ptr);
  const auto& r = last();
  CHECK(r.error == cudaSuccess);
  REQUIRE(r.reports.size() == 1);  // once per launch
  CHECK(r.reports[0].kind == cuda_emu::report_kind::warning);
  CHECK_THAT(r.reports[0].text, Catch::Contains("__shfl_down_sync with mask 0xffffffff: lane 4 "
                                                "reads lane 20, which has already returned"));
  const float got = out.download()[0];
  CHECK_FALSE(got == 20.0f);
  CHECK_FALSE((std::isfinite(got) && got < 1e30f));
}

TEST_CASE("ballot, any and all in a block whose last warp has 8 lanes", "[adversarial]") {
  quiet q;
  device_buffer<unsigned> out(8);
  adv_vote_partial(out.ptr);
  REQUIRE(last().ok());
  const auto got = out.download();
  CHECK(got[0] == 0xAAAAAAAAu);
  CHECK(got[1] == 0u);
  CHECK(got[2] == 1u);
  CHECK(got[3] == 1u);
  CHECK(got[4] == 0xAAu);  // lanes 0..7 of warp 1 exist
  CHECK(got[5] == 1u);
  CHECK(got[6] == 1u);
  CHECK(got[7] == 0u);  // thread 35 votes no
}
