// The fast fp32 FlashAttention reference (fast/flash_attention_fast.cu), which
// `--gpu` times against eager cuBLAS attention, checked on the emulator as lab kernels are:
// the double-precision attention's output at tile edges, no race or invalid access under
// seeded schedules, and no shared-memory bank conflict (its padding's claim). Not a graded
// item: ctest lesson13.fast runs it.   build/dev/bin/lesson13_fast_tests "[flash]"
#include <catch2/catch.hpp>

#include "attention_reference.hpp"
#include "flash_attention_fast.hpp"
#include "lab_support.hpp"

using namespace lesson13;
using namespace lesson13::labs;

TEST_CASE("fast FlashAttention reference matches standard attention, without bank conflicts",
          "[flash]") {
  auto rng = course::test_rng("fast-flash");
  INFO(course::seed_note());
  size_t i = 0;
  // Below one tile, one tile exactly, a partial last tile, several tiles; both d.
  for (auto [n, d] : {std::pair{1, 64}, {63, 64}, {64, 128}, {65, 64}, {150, 128}, {200, 64}})
    for (uint64_t schedule : schedules(rng, i++)) {
      INFO("n=" << n << " d=" << d);
      INFO(schedule_note(schedule));
      const auto Q = course::random_matrix(rng, n, d, 0.5),
                 K = course::random_matrix(rng, n, d, 0.5),
                 V = course::random_matrix(rng, n, d, 1.0);
      device_buffer<float> dQ(Q), dK(K), dV(V), dO(static_cast<size_t>(n) * d);
      dO.poison();
      quiet_emulator(schedule);
      REQUIRE(flash_attention_fast_forward(dQ.ptr, dK.ptr, dV.ptr, dO.ptr, n, d));
      cuda_emu::settings().schedule = 0;
      const cuda_emu::launch_record launch = cuda_emu::all_launches();
      const std::string problem = launch_problem(launch);
      INFO(problem);
      REQUIRE(problem.empty());
      const auto O = dO.download();
      const auto want = reference::standard_attention(Q, K, V, n, d);
      const double error = course::relative_error(O, want);
      INFO(first_wrong_element(O, want, n, d, 1e-5, "O"));
      CHECK(error <= 1e-5);
      CHECK(launch.counters.shared_load_bank_conflicts == 0);
      CHECK(launch.counters.shared_store_bank_conflicts == 0);
    }
  CHECK_FALSE(flash_attention_fast_forward(nullptr, nullptr, nullptr, nullptr, 64, 32));
}
