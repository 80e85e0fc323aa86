// Adversarial tests of warp-level operations: shuffles within segments of 8 and 16
// lanes, disjoint masks, and votes in a block whose last warp is partial.
//   build/bin/emulator_tests -# "[#test_warp]"     ([!mayfail] tests document emulator bugs)
#include <catch2/catch.hpp>

#include <numeric>
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

TEST_CASE("even and odd lanes shuffle among themselves with disjoint masks",
          "[adversarial][!mayfail]") {
  // Legal since Volta: each group's mask names exactly the lanes that execute it.
  // BUG: warp_rendezvous() keeps one pending operation per warp and reports lane 1's
  // different mask as "Divergent thread(s) in warp".
  quiet q;
  device_buffer<int> out(32);
  adv_parity_masks(out.ptr);
  const auto& r = last();
  INFO(r.sanitizer_text());
  REQUIRE(r.ok());
  const auto got = out.download();
  for (int l = 0; l < 32; ++l) CHECK(got[l] == (l % 2 ? 10 : 0));
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
