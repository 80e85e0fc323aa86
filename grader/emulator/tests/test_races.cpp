// Adversarial tests of the shared-memory race check: read-after-write and
// write-after-write between threads, what is not a race (a thread's own word,
// readers after a barrier), and __syncwarp ordering a warp's accesses.
//   build/bin/emulator_tests -# "[#test_races]"
#include <catch2/catch.hpp>

#include <cstdint>
#include <numeric>
#include <vector>

#include "course/device_buffer.hpp"
#include "cuda_emu/emulator.hpp"
#include "adversarial_support.hpp"
#include "races.hpp"

using namespace adversarial;  // quiet, last(), in_child(), ...

TEST_CASE("read-after-write across warps: none with a barrier, a race without",
          "[adversarial][races]") {
  quiet q;
  device_buffer<float> out(64);
  adv_raw_across_warps(out.ptr, true);
  CHECK(last().ok());
  CHECK(out.download()[0] == 63.0f);
  adv_raw_across_warps(out.ptr, false);
  const auto& r = last();
  REQUIRE_FALSE(r.races.empty());
  uint64_t hazards = 0;
  for (const auto& race : r.races) hazards += race.hazards;
  // Warp 1 reads, as it runs second, what warp 0 wrote: 32 threads x 4 bytes; warp 0's
  // reads of words warp 1 then writes: another 32 x 4.
  CHECK(hazards == 256);
}

TEST_CASE("two threads writing one word is a write-after-write race", "[adversarial][races]") {
  quiet q;
  device_buffer<float> out(32);
  adv_waw(out.ptr);
  const auto& r = last();
  REQUIRE(r.races.size() == 1);
  CHECK_THAT(r.races[0].first, Catch::StartsWith("Write access at"));
  CHECK_THAT(r.races[0].second, Catch::StartsWith("Write access at"));
  CHECK(r.races[0].hazards == 4);
}

TEST_CASE(
    "a thread rewriting and reading back its own word, and readers after a barrier, are no race",
    "[adversarial][races]") {
  quiet q;
  device_buffer<float> out(256);
  adv_own_word(out.ptr);
  CHECK(last().ok());
  CHECK(out.download()[100] == 101.0f);
  adv_broadcast_after_barrier(out.ptr);
  CHECK(last().ok());
  CHECK(last().counters.shared_load_wavefronts == 8);  // one broadcast wavefront per warp
  CHECK(out.download()[255] == 42.0f);
}

TEST_CASE("a shared-memory warp reduction synchronised with __syncwarp is race-free",
          "[adversarial]") {
  // BUG: __syncwarp() orders the warp's shared-memory accesses (CUDA guarantees it;
  // racecheck honours it), but race_check() only resets at __syncthreads epochs, so
  // the emulator reports races in this correct code.
  quiet q;
  std::vector<float> host(64);
  std::iota(host.begin(), host.end(), 1.0f);
  device_buffer<float> in(host), out(1);
  adv_warp_reduce_syncthreads(in.ptr, out.ptr);  // the control, with __syncthreads
  REQUIRE(last().ok());
  CHECK(out.download()[0] == 2080.0f);
  adv_warp_reduce_syncwarp(in.ptr, out.ptr);
  const auto& r = last();
  INFO(r.sanitizer_text());
  CHECK(out.download()[0] == 2080.0f);
  CHECK(r.races.empty());
  CHECK(r.ok());
}

TEST_CASE("a warp's lanes reading a word, then one lane writing it after __syncwarp, are no race",
          "[races]") {
  // Many readers of one warp: a __syncwarp after the last read orders them all before the
  // write (the emulator once reported this as a race); readers of another warp it cannot.
  quiet q;
  device_buffer<float> out(64);
  adv_warp_read_then_write(out.ptr, 1);
  INFO(last().sanitizer_text());
  CHECK(last().races.empty());
  CHECK(out.download()[31] == 1.0f);
  adv_warp_read_then_write(out.ptr, 0);  // no __syncwarp: lane 0's write races the reads
  CHECK_FALSE(last().races.empty());
  adv_warp_read_then_write(out.ptr, 2);  // warp 1 read the word too
  CHECK_FALSE(last().races.empty());
}

TEST_CASE("two-byte elements: neighbours never race, and a word meets each half's writer",
          "[adversarial][races]") {
  quiet q;
  device_buffer<float> out(64);
  auto hazards = [](const cuda_emu::launch_record& r) {
    uint64_t n = 0;
    for (const auto& race : r.races) n += race.hazards;
    return n;
  };
  adv_half_words(out.ptr, 0);  // neighbours' halves, then whole words after a barrier
  CHECK(last().ok());
  CHECK(out.download()[32] == float(1u << 16));  // word 0: halves 0 and 1 (little-endian)
  // Without the barrier each word read meets the two lanes that wrote its halves: 16 words,
  // 4 bytes each, one pair of instructions.
  adv_half_words(out.ptr, 1);
  REQUIRE(last().races.size() == 1);
  CHECK_THAT(last().races[0].first, Catch::StartsWith("Write access at"));
  CHECK(hazards(last()) == 64);
  // Whole words written, halves read in the same phase: 32 halves of 2 bytes.
  adv_half_words(out.ptr, 2);
  REQUIRE(last().races.size() == 1);
  CHECK(hazards(last()) == 64);
  // Halves written in one phase, then halves read and whole words written in the next.
  adv_half_words(out.ptr, 3);
  REQUIRE(last().races.size() == 1);
  CHECK_THAT(last().races[0].first, Catch::StartsWith("Write access at"));
  CHECK_THAT(last().races[0].second, Catch::StartsWith("Read access at"));
  CHECK(hazards(last()) == 64);
}

TEST_CASE("a write races the latest read, whichever instruction made it", "[adversarial][races]") {
  quiet q;
  device_buffer<float> out(128);
  for (int mode : {0, 1}) {  // readers in several warps; lanes of one warp
    INFO("mode " << mode);
    adv_reads_then_write(out.ptr, mode);
    const auto& r = last();
    REQUIRE(r.races.size() == 1);
    CHECK_THAT(r.races[0].first, Catch::StartsWith("Write access at"));
    CHECK_THAT(r.races[0].second, Catch::StartsWith("Read access at adv_second_read"));
    CHECK(r.races[0].hazards == 4);
  }
}

TEST_CASE(
    "a launch meets none of an earlier launch's race state, even past one that used "
    "fewer shared bytes",
    "[adversarial][races]") {
  quiet q;
  device_buffer<float> out(64);
  adv_stale_dynamic(out.ptr);
  INFO(last().sanitizer_text());
  REQUIRE(last().ok());
  CHECK(last().races.empty());
  const auto got = out.download();
  for (int t = 0; t < 64; ++t) CHECK(got[t] == float(t));
}
