// Tests for lab 1 (exercises/lesson13/matmul_coalesced.cu), run on the CPU
// emulator: correct results on odd sizes, and coalesced global accesses counted
// the way Nsight Compute counts them. Tags are rubric items of unit lab_coalescing.
//   build/bin/lesson13_matmul_coalesced_tests "[coalescing.sectors]"
#include <catch2/catch.hpp>

#include "lab_support.hpp"
#include "matmul_labs.hpp"

using namespace lesson13;
using namespace lesson13::labs;

namespace {

// The given naive kernel (reference/matmul_naive.cu) at n = 128: a warp's 32 lanes read
// 32 rows of A, 32 sectors a request, and one element of B, one sector, so its loads
// average 16.5 sectors a request. The kernel is the course's, not the student's, so no
// grade runs it: "[baseline]" below holds the number to an emulated run, in CI.
constexpr int kSectorsN = 128;
constexpr double kNaiveLoadSectorsPerRequest = (32.0 + 1.0) / 2;

}  // namespace

TEST_CASE("coalesced matmul matches the reference, sizes not a multiple of 32 included",
          "[coalescing.correct]") {
  auto rng = course::test_rng("lab1-correct");
  INFO(course::seed_note());
  std::uniform_int_distribution<int> size(1, 80);
  std::vector<std::array<int, 3>> shapes = {{64, 64, 64},
                                            {1, 1, 1},
                                            {33, 17, 45},
                                            {100, 70, 31},
                                            {20, 70, 33}};  // more column tiles than row tiles
  for (int t = 0; t < 3; ++t) shapes.push_back({size(rng), size(rng), size(rng)});
  check_matmul_correct(matmul_coalesced, rng, shapes);
}

#ifdef CUDA_EMU_GPU_EDITION
TEST_CASE("coalesced matmul: C with more than 2^31 elements (GPU only)",
          "[coalescing.correct][gpu_large]") {
  auto rng = course::test_rng("lab1-large");
  INFO(course::seed_note());
  check_matmul_large(matmul_coalesced, rng);
}
#endif

TEST_CASE("coalesced matmul: a warp's loads and stores touch few sectors",
          "[coalescing.sectors][emulator]") {
  auto rng = course::test_rng("lab1-sectors");
  INFO(course::seed_note());
  const int n = kSectorsN;
  // The test can fail: the naive mapping averages 16.5 sectors a request, the bound 4 or 16.
  static_assert(kNaiveLoadSectorsPerRequest > 8.0);

  const matmul_result r = run_matmul(matmul_coalesced, rng, n, n, n);
  require_precondition(r, "coalescing.correct", 1e-5);
  const auto& c = r.launch.counters;
  // The work must happen in kernels, spread over the threads: a ratio of nothing, or of a
  // single lane's requests (one sector each), says nothing about coalescing.
  require_kernel_work(r);
  // C's writes: plain stores, or atomics (split-k's atomicAdd into C is accepted: the
  // lab's policy, lessons/lesson13/notes/06-labs). Either way a warp writes whole
  // sectors of consecutive floats.
  const uint64_t writes = c.global_store_requests + c.global_atomic_requests;
  REQUIRE(writes > 0);
  {
    INFO(course::protocol::cause_prefix
         << "on average " << double(c.global_store_bytes) / double(writes) / 4.0
         << " of a warp's 32 lanes store a float per request: the outputs must be spread over "
            "the threads of full warps, not computed by a few threads");
    REQUIRE(c.global_store_bytes >= 64 * writes);
  }
  // Coalesced: at most 4 sectors per request for each 4 bytes a lane moves (16 for float4).
  INFO("global load sectors per request: "
       << c.global_load_sectors_per_request() << " (naive " << kNaiveLoadSectorsPerRequest
       << "; coalesced at most " << c.global_load_coalesced_sectors_per_request()
       << " for these access widths; with floats, 1 for the broadcast A, 4 for B, 2.5 on average)");
  INFO("global write sectors per request (stores and atomics): "
       << c.global_write_sectors_per_request() << " (coalesced at most "
       << c.global_write_coalesced_sectors_per_request() << ")");
  INFO(r.launch.ncu_metrics());
  CHECK(c.global_load_sectors_per_request() <= c.global_load_coalesced_sectors_per_request());
  CHECK(c.global_write_sectors_per_request() <= c.global_write_coalesced_sectors_per_request());
}

// Not an item (no grade runs it): the naive kernel's figure above, as the emulator counts it.
TEST_CASE("the naive kernel's loads average the sectors per request the sector test quotes",
          "[baseline][emulator]") {
  auto rng = course::test_rng("lab1-baseline");
  const matmul_result naive = run_matmul(matmul_naive, rng, kSectorsN, kSectorsN, kSectorsN);
  REQUIRE(naive.launch.ok());
  REQUIRE(naive.error <= 1e-5);
  CHECK(naive.launch.counters.global_load_sectors_per_request() == kNaiveLoadSectorsPerRequest);
}
