// Adversarial tests of global-memory request counting (coalescing): wide and
// misaligned accesses, predicated and divergent loads, loops whose lanes run
// different trip counts, and what a shuffle by half a warp does to the next store.
//   build/bin/emulator_tests -# "[#test_coalescing]"     ([!mayfail] tests document emulator bugs)
#include <catch2/catch.hpp>

#include <chrono>
#include <cstdint>
#include <numeric>
#include <vector>

#include "course/device_buffer.hpp"
#include "cuda_emu/emulator.hpp"
#include "adversarial_support.hpp"
#include "copies.hpp"
#include "coalescing.hpp"

using namespace adversarial;  // quiet, last(), in_child(), ...

TEST_CASE("8-byte and 16-byte accesses: one request, 8 and 16 sectors per warp",
          "[adversarial][counters]") {
  quiet q;
  device_buffer<double> din(32), dout(32);
  adv_copy_double(din.ptr, dout.ptr);
  REQUIRE(last().ok());
  CHECK(last().counters.global_load_requests == 1);
  CHECK(last().counters.global_load_sectors == 8);
  CHECK(last().counters.global_store_sectors == 8);
  CHECK(last().counters.global_excessive_sectors() == 0);
  CHECK(last().counters.global_load_bytes == 256);

  std::vector<float4> host(32);
  for (int i = 0; i < 32; ++i) host[i] = make_float4(i, i + 0.5f, -i, 2.0f * i);
  device_buffer<float4> fin(host), fout(32);
  adv_copy_float4(fin.ptr, fout.ptr);
  REQUIRE(last().ok());
  CHECK(last().counters.global_load_requests == 1);
  CHECK(last().counters.global_load_sectors == 16);
  CHECK(last().counters.global_store_requests == 1);
  CHECK(last().counters.global_store_sectors == 16);
  CHECK(last().counters.global_load_bytes == 512);
  const auto got = fout.download();
  CHECK(got[31].x == 31.0f);
  CHECK(got[31].w == 62.0f);
}

TEST_CASE("a warp read offset by one float touches 5 sectors, 1 of them excessive",
          "[adversarial][counters]") {
  quiet q;
  device_buffer<float> in(64), out(32);
  adv_misaligned(in.ptr, out.ptr);
  REQUIRE(last().ok());
  CHECK(last().counters.global_load_requests == 1);
  CHECK(last().counters.global_load_sectors == 5);
  CHECK(last().counters.global_load_ideal_sectors == 4);
  CHECK(last().counters.global_excessive_sectors() == 1);
}

TEST_CASE("a predicated load: only odd lanes, one request", "[adversarial][counters]") {
  quiet q;
  device_buffer<float> in(32), out(32);
  adv_odd_lanes(in.ptr, out.ptr);
  REQUIRE(last().ok());
  CHECK(last().counters.global_load_requests == 1);
  CHECK(last().counters.global_load_sectors == 4);
  CHECK(last().counters.global_store_requests == 1);
  CHECK(last().counters.global_load_bytes == 64);
}

TEST_CASE("a grid-stride loop where lane 0 runs the most iterations", "[adversarial][counters]") {
  quiet q;
  device_buffer<float> in(std::vector<float>(40, 1.0f)), out(32);
  adv_grid_stride(in.ptr, out.ptr, 40);
  REQUIRE(last().ok());
  CHECK(last().counters.global_load_requests == 2);
  CHECK(last().counters.global_store_requests == 1);
  CHECK(out.download()[7] == 2.0f);
}

TEST_CASE("a load that lane 0 skips does not split the next load into two requests",
          "[adversarial][counters]") {
  // The stencil's `if (t > 0) left = in[t - 1]; out[t] = left + in[t];`: ncu counts 2
  // load requests (in[t-1] by 31 lanes, in[t] by 32) and 8 sectors.
  // BUG: add_to_group() (src/access.cpp) searches only from the lane's cursor; lane 0
  // put in[t] first, so lanes 1..31 (which did in[t-1] after it) open a second
  // in[t] group: 3 load requests, 9 sectors; the store is split the same way (2 requests).
  quiet q;
  std::vector<float> host(32);
  std::iota(host.begin(), host.end(), 0.0f);
  device_buffer<float> in(host), out(32);
  adv_stencil(in.ptr, out.ptr);
  REQUIRE(last().ok());
  CHECK(out.download()[5] == 9.0f);
  CHECK(last().counters.global_load_requests == 2);
  CHECK(last().counters.global_load_sectors == 8);
  CHECK(last().counters.global_store_requests == 1);
}

TEST_CASE("a loop where lane t runs t iterations: 31 load requests, 1 store request",
          "[adversarial][counters]") {
  // BUG: same cause as above; the single store after the loop is split into one
  // request per lane group (the emulator counts many store requests).
  quiet q;
  device_buffer<float> in(std::vector<float>(32, 1.0f)), out(32);
  adv_triangular(in.ptr, out.ptr);
  REQUIRE(last().ok());
  CHECK(out.download()[31] == 31.0f);
  const auto& c = last().counters;
  CHECK(c.global_load_requests == 31);
  CHECK(c.global_load_sectors == 31);
  CHECK(c.global_store_requests == 1);
  CHECK(c.global_store_sectors == 4);
}

TEST_CASE("a 1-thread kernel looping over 1M floats runs in bounded memory",
          "[adversarial][counters]") {
  // Was a bug: every access of a lone lane opened a 272-byte request group, kept until the
  // scheduler's pass ended (here the kernel's end): 1M loads held 203 MiB more. A lane with
  // no other live lane in its warp now has each request counted at once.
  quiet q;
  struct races_back_on {
    ~races_back_on() { cuda_emu::settings().check_races = true; }
  } guard;
  const int n = 1 << 20;
  device_buffer<float> in(std::vector<float>(n, 1.0f)), out(1);
  auto run = [&] {
    const long before = max_rss_kib();
    adv_serial_sum(in.ptr, out.ptr, n);
    REQUIRE(last().ok());
    CHECK(out.download()[0] == float(n));
    CHECK(last().counters.global_load_requests == uint64_t(n));
    CHECK(last().counters.global_load_sectors == uint64_t(n));
    return (max_rss_kib() - before) / 1024;
  };
  cuda_emu::settings().check_races = false;  // the requests alone
  const long requests_mib = run();
  INFO("peak RSS grew by " << requests_mib << " MiB without race checks");
  CHECK(requests_mib < 16);
  // With race checks: the input's shadow (56 bytes a 4-byte word, 56 MiB), and no more.
  cuda_emu::settings().check_races = true;
  const long races_mib = run();
  INFO("peak RSS grew by " << races_mib << " MiB more with race checks");
  CHECK(races_mib < 56 + 16);
}

TEST_CASE("32-byte struct copies are counted in full", "[adversarial][counters]") {
  // Was a bug (a clamp to 16 bytes counted 512 bytes, not 1024). A 32-byte copy is two
  // 16-byte loads per lane (two LDG.128 on a GPU), each touching the same 32 sectors.
  quiet q;
  device_buffer<adv_big> in(32), out(32);
  adv_copy_big(in.ptr, out.ptr, 32);
  REQUIRE(last().ok());
  CHECK(last().counters.global_load_bytes == 1024);
  CHECK(last().counters.global_store_bytes == 1024);
  CHECK(last().counters.global_load_sectors == 64);
  CHECK(last().counters.global_load_requests == 2);
}

TEST_CASE("a shuffle by half the warp does not split the warp's next store",
          "[adversarial][counters][!mayfail]") {
  // ncu: one store instruction for the 32 lanes after the branch reconverges.
  // BUG: lanes 16..31 store in the scheduler pass in which lanes 0..15 wait at the
  // shuffle; groups are flushed per pass, so lanes 0..15 make a second request.
  quiet q;
  device_buffer<int> out(32);
  adv_partial_mask_shuffle(out.ptr);
  REQUIRE(last().ok());
  const auto got = out.download();
  for (int t = 0; t < 15; ++t) CHECK(got[t] == t + 1);
  // got[15] is undefined: lane 15 reads lane 16, which is not in the mask.
  CHECK(got[20] == 20);
  CHECK(last().counters.global_store_requests == 1);
  CHECK(last().counters.global_store_sectors == 4);
}

TEST_CASE("float2/float4 and broadcast loads: every row of the H200 table",
          "[adversarial][counters][vectors]") {
  // docs/emulator.md, measured by ncu on an H200: one request per lane-instruction,
  // sectors growing with the width; a broadcast is one sector.
  struct row {
    const char* kernel;
    uint64_t ld_requests, ld_sectors, st_sectors;
  };
  const row table[] = {{"float copy", 32768, 131072, 131072},
                       {"float2 copy", 16384, 131072, 131072},
                       {"float4 copy", 8192, 131072, 131072},
                       {"float4, every other element", 4096, 131072, 65536},
                       {"broadcast float", 32768, 32768, 131072},
                       {"broadcast float4", 8192, 8192, 131072},
                       {"float stride 32", 32768, 1048576, 131072}};
  quiet q;
  const int n = 1 << 20;
  device_buffer<float> a(std::vector<float>(n, 1.5f)), o(n);
  for (int r = 0; r < 7; ++r) {
    INFO(table[r].kernel);
    vec_table_kernel(r, a.ptr, o.ptr, n);
    REQUIRE(last().ok());
    const auto& c = last().counters;
    CHECK(c.global_load_requests == table[r].ld_requests);
    CHECK(c.global_load_sectors == table[r].ld_sectors);
    CHECK(c.global_store_sectors == table[r].st_sectors);
  }
  // Coalesced means sectors per request = bytes per lane (4 x (bytes / 4)).
  vec_table_kernel(2, a.ptr, o.ptr, n);
  CHECK(last().counters.global_load_sectors_per_request() == 16.0);
  CHECK(last().counters.global_load_coalesced_sectors_per_request() == 16.0);
  vec_table_kernel(6, a.ptr, o.ptr, n);
  CHECK(last().counters.global_load_coalesced_sectors_per_request() == 4.0);
  CHECK(last().counters.global_load_sectors_per_request() == 32.0);
}

TEST_CASE("a broadcast is one request and one sector", "[adversarial][counters][vectors]") {
  // ncu: 32 lanes reading one float are one request of one sector (and excess 0);
  // global_load_bytes still counts what each lane asked for (4 x 32).
  quiet q;
  const int n = 1 << 13;
  device_buffer<float> a(std::vector<float>(n, 1.0f)), o(n);
  vec_table_kernel(4, a.ptr, o.ptr, n);
  REQUIRE(last().ok());
  const auto& c = last().counters;
  CHECK(c.global_load_requests == uint64_t(n / 32));
  CHECK(c.global_load_sectors == uint64_t(n / 32));
  CHECK(c.global_load_ideal_sectors == uint64_t(n / 32));
  CHECK(c.global_excessive_sectors() == 0);
  CHECK(c.global_load_bytes == uint64_t(n) * 4);
}
