// Tests of the launch records' encoding across marking mode's process boundary
// (course/remote_device.hpp): a round trip keeps every field, and bytes from a hostile
// compute process (cut short, flipped, random) are refused as compute_failed, never a
// crash or a record read past its end.   build/dev/bin/course_remote_device_tests
#include <catch2/catch.hpp>

#include <random>

#include "course/remote_device.hpp"

using course::remote::compute_failed;
using course::remote::detail::decode_reply;
using course::remote::detail::device_reply;
using course::remote::detail::encode_reply;

namespace {

device_reply sample() {
  device_reply r;
  r.result = -7;
  r.peak_above = 123456789;
  cuda_emu::launch_record a;
  a.kernel = "matmul_tiled_kernel";
  a.grid = {3, 2, 1};
  a.block = {16, 16, 1};
  a.counters.global_load_requests = 11;
  a.counters.shared_load_bank_conflicts = 5;
  a.counters.max_thread_local_bytes = 864;
  a.reports.push_back({cuda_emu::report_kind::unseen_write, "changed bytes at 0x10"});
  a.races.push_back({"Write access at k+0x1c", "Read access at k+0x2c", 4, true, false});
  a.device_bytes_at_launch = 4096;
  a.schedule = 42;
  a.error = cudaErrorLaunchFailure;
  a.seconds = 0.25;
  cuda_emu::launch_record b;
  b.kernel = "second";
  r.launches = {a, b};
  return r;
}

}  // namespace

TEST_CASE("a reply's launch records survive the round trip", "[remote_device]") {
  const device_reply want = sample();
  const device_reply got = decode_reply(encode_reply(want));
  CHECK(got.result == want.result);
  CHECK(got.peak_above == want.peak_above);
  REQUIRE(got.launches.size() == 2);
  const auto& a = got.launches[0];
  CHECK(a.kernel == "matmul_tiled_kernel");
  CHECK((a.grid.x == 3 && a.grid.y == 2 && a.block.x == 16 && a.block.y == 16));
  CHECK(a.counters.global_load_requests == 11);
  CHECK(a.counters.shared_load_bank_conflicts == 5);
  CHECK(a.counters.max_thread_local_bytes == 864);
  REQUIRE(a.reports.size() == 1);
  CHECK(a.reports[0].kind == cuda_emu::report_kind::unseen_write);
  CHECK(a.reports[0].text == "changed bytes at 0x10");
  REQUIRE(a.races.size() == 1);
  CHECK(a.races[0].second == "Read access at k+0x2c");
  CHECK(a.races[0].hazards == 4);
  CHECK(a.races[0].global);
  CHECK_FALSE(a.races[0].across_blocks);
  CHECK(a.schedule == 42);
  CHECK(a.error == cudaErrorLaunchFailure);
  CHECK(a.seconds == 0.25);
  CHECK_FALSE(a.ok());
  CHECK(got.launches[1].kernel == "second");
  CHECK(got.launches[1].ok());
}

TEST_CASE("a reply cut short anywhere, or with bytes after it, is refused", "[remote_device]") {
  const std::string bytes = encode_reply(sample());
  for (std::size_t n = 0; n < bytes.size(); ++n) {
    INFO("the first " << n << " of " << bytes.size() << " bytes");
    CHECK_THROWS_AS(decode_reply(std::string_view(bytes).substr(0, n)), compute_failed);
  }
  CHECK_THROWS_AS(decode_reply(bytes + "x"), compute_failed);
}

TEST_CASE("counts and kinds past their bounds are refused", "[remote_device]") {
  std::string bytes = encode_reply(sample());
  // The launch count sits after result and peak: claim four billion launches.
  std::string many = bytes;
  many.replace(16, 4, std::string(4, '\xff'));
  CHECK_THROWS_AS(decode_reply(many), compute_failed);
  // A report kind past the last one the emulator knows.
  const std::string text = "changed bytes at 0x10";
  const std::size_t at = bytes.find(text);
  REQUIRE(at != std::string::npos);
  bytes[at - 4 - 1] = '\x63';  // the kind byte before the text's length
  CHECK_THROWS_AS(decode_reply(bytes), compute_failed);
}

TEST_CASE("random and flipped bytes decode or are refused, never crash", "[remote_device]") {
  std::mt19937_64 rng(20261202);
  const std::string good = encode_reply(sample());
  int refused = 0, decoded = 0;
  for (int i = 0; i < 4000; ++i) {
    std::string bytes = good;
    if (i % 2 == 0) {
      bytes[rng() % bytes.size()] = static_cast<char>(rng());
    } else {
      bytes.resize(rng() % 200);
      for (char& c : bytes) c = static_cast<char>(rng());
    }
    try {
      const device_reply r = decode_reply(bytes);
      CHECK(r.launches.size() <= 4096);
      ++decoded;
    } catch (const compute_failed&) {
      ++refused;
    }
  }
  CHECK(refused > 0);
  CHECK(decoded > 0);  // flips inside a counter or a string are still well-formed
}
