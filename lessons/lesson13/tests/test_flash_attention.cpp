// Tests for lab 3 (exercises/lesson13/flash_attention.cu), run on the CPU emulator
// against the double-precision standard attention: correctness, edge shapes and
// large scores, no n x n buffer, global reads within the FlashAttention bound, and
// the veto detectors of unit lab_flash.   build/bin/lesson13_flash_attention_tests "[flash.edges]"
#include <catch2/catch.hpp>

#include "attention_reference.hpp"
#include "flash_attention_lab.hpp"
#include "lab_support.hpp"

using namespace lesson13;
using namespace lesson13::labs;
namespace ref = lesson13::reference;

namespace {

// A thread's local memory (the emulator's deepest stack, up to 1 KiB of its own frames
// included; the solution measures 864 bytes at d = 32): room for q and o at the largest
// d (128 floats each) and two tiles of scores, not a row of scores sized for a large n
// (float s[512] or more).
constexpr uint64_t kLocalAllowance = 1024 + 4 * (2 * 128 + 2 * kFlashBc);

struct flash_result {
  std::vector<float> O;
  std::vector<double> want;
  double error = 0;
  uint64_t extra_device_bytes = 0, load_bytes = 0, store_bytes = 0;
  uint64_t traffic_bytes = 0;  // global sectors loaded and stored, x 32 bytes (ncu's count)
  cuda_emu::launch_record launch;
};

flash_result run_flash(std::mt19937_64& rng, int n, int d, double q_scale, uint64_t schedule = 0) {
  const auto Q = course::random_matrix(rng, n, d, q_scale),
             K = course::random_matrix(rng, n, d, 0.5), V = course::random_matrix(rng, n, d, 1.0);
  device_buffer<float> dQ(Q), dK(K), dV(V), dO(static_cast<size_t>(n) * d);
  dO.poison();
  quiet_emulator(schedule);
  cuda_emu::reset_peak_device_bytes();
  const uint64_t before = cuda_emu::device_bytes_in_use();
  const bool accepted = flash_attention_forward(dQ.ptr, dK.ptr, dV.ptr, dO.ptr, n, d);
  cuda_emu::settings().schedule = 0;
  REQUIRE(accepted);
  flash_result r;
  r.extra_device_bytes = cuda_emu::peak_device_bytes() - before;
  for (const auto& l : cuda_emu::launches()) {
    r.load_bytes += l.counters.global_load_bytes;
    r.store_bytes += l.counters.global_store_bytes;
    r.traffic_bytes += 32 * (l.counters.global_load_sectors + l.counters.global_store_sectors);
  }
  r.launch = cuda_emu::all_launches();
  pass_on_warnings(r.launch);
  r.O = dO.download();
  r.want = ref::standard_attention(Q, K, V, n, d);
  r.error = course::relative_error(r.O, r.want);
  return r;
}

// Each shape in order, and up to n^2 d = 2^19 also under a seeded schedule (the
// largest shape would cost a lab grade 0.3 s more): a clean launch (no race, no invalid
// access, no timeout) with the reference's output.
void check_flash(std::mt19937_64& rng, std::initializer_list<std::pair<int, int>> shapes) {
  const outputs_only outputs;
  size_t i = 0;
  for (auto [n, d] : shapes)
    for (uint64_t schedule : schedules(rng, i++)) {
      if (schedule != 0 && uint64_t(n) * n * d > (uint64_t{1} << 19)) continue;
      INFO("n=" << n << " d=" << d);
      INFO(schedule_note(schedule));
      const flash_result r = run_flash(rng, n, d, 0.5, schedule);
      const std::string problem = launch_problem(r.launch);
      INFO(problem);
      REQUIRE(problem.empty());
      INFO("relative error " << r.error << " (at most 1e-4)");
      if (r.error > 1e-4) {
        INFO(first_wrong_element(r.O, r.want, n, d, 1e-4, "O"));
        REQUIRE(r.error <= 1e-4);
      }
    }
}

}  // namespace

TEST_CASE("FlashAttention kernel matches standard attention", "[flash.correct]") {
  auto rng = course::test_rng("lab3-correct");
  INFO(course::seed_note());
  check_flash(rng, {{32, 32}, {64, 64}, {128, 32}, {96, 128}});
}

TEST_CASE("FlashAttention kernel: partial last tile, n below the tile, n = 1, large scores",
          "[flash.edges]") {
  auto rng = course::test_rng("lab3-edges");
  INFO(course::seed_note());
  check_flash(rng, {{50, 32}, {7, 32}, {1, 64}, {77, 64}});
  const flash_result big = run_flash(rng, 70, 32, 250.0);  // |scores| in the thousands
  const std::string problem = launch_problem(big.launch);
  INFO(problem);
  REQUIRE(problem.empty());
  INFO("scores of magnitude >= 1000: exp overflows unless the running max is subtracted");
  REQUIRE(big.error <= 2e-3);
}

TEST_CASE("FlashAttention kernel never allocates or writes an n x n buffer",
          "[flash.no_nxn][emulator]") {
  auto rng = course::test_rng("lab3-nxn");
  INFO(course::seed_note());
  const int n = 128, d = 32;
  const flash_result r = run_flash(rng, n, d, 0.5);
  require_precondition(r, "flash.correct", 1e-4);
  // Three places an n x n score matrix can hide: device memory allocated during the
  // call, memory written (cudaMalloc'ed, or a __device__ array: static data is global
  // memory too), and a thread's local memory holding a whole row of scores. Written
  // memory is counted once per address, so re-writing O once per key tile (FA-1's loop
  // order) is no n x n buffer.
  const uint64_t local = r.launch.counters.max_thread_local_bytes;
  const uint64_t written = r.launch.counters.global_written_bytes;
  INFO("device bytes allocated during the call: "
       << r.extra_device_bytes << " (at most " << uint64_t(n) * n * 4 / 8
       << "); distinct bytes written, __device__ arrays included: " << written << " (at most "
       << 2 * n * d * 4 << ", twice O; S would be " << n * n * 4 << "; " << r.store_bytes
       << " bytes stored in all)");
  INFO("a thread's local memory: " << local << " bytes (at most " << kLocalAllowance
                                   << ": q, o and a tile's scores, not a whole row of scores)");
  CHECK(r.extra_device_bytes < uint64_t(n) * n * 4 / 8);
  require_kernel_work(r);
  CHECK(written > 0);
  CHECK(written <= uint64_t(2) * n * d * 4);
  CHECK(local <= kLocalAllowance);
}

TEST_CASE("FlashAttention kernel's global memory traffic stays within the tiled bound",
          "[flash.global_reads][emulator]") {
  auto rng = course::test_rng("lab3-reads");
  INFO(course::seed_note());
  const int n = 256, d = 32;
  const flash_result r = run_flash(rng, n, d, 0.5);
  require_precondition(r, "flash.correct", 1e-4);
  // Traffic as the hardware counts it: 32-byte sectors (a broadcast is one), loads and
  // stores apart, each against the lab's bound (notes 6.4, "What it moves"):
  //   loads   Q once, in any layout (each float asked for once by its warp; read by
  //           broadcasts, all lanes at one address, that is a sector per float: 8 per
  //           sector), K and V once per query tile of kFlashBr rows:
  //           4 (8 nd + 2nd ceil(n/Br));
  //   stores  O at most once per key tile of kFlashBc rows, with each row's m and l (the
  //           FA-1 loop order's carry-over; a row's m or l is a sector of its own, 32 B):
  //           (4 nd + 64 n) ceil(n/Bc).
  // No slack: the emulator's sectors are Nsight Compute's (docs/measurements/
  // 2026-12-03-h200-gpu-fresh/ncu_flash.txt), and the solution moves exactly the minimum.
  // One redundant K tile per query tile is 40 % more loads; every warp streaming K and V
  // itself, 13 times as much.
  const double q_tiles = (n + kFlashBr - 1) / kFlashBr, k_tiles = (n + kFlashBc - 1) / kFlashBc;
  const double load_bound = 4.0 * (8.0 * n * d + 2.0 * n * d * q_tiles);
  const double store_bound = (4.0 * n * d + 64.0 * n) * k_tiles;
  uint64_t load_sectors = 0, store_sectors = 0;
  for (const auto& l : cuda_emu::launches()) {  // an atomic reads and writes its sectors
    load_sectors += l.counters.global_load_sectors + l.counters.global_atomic_sectors;
    store_sectors += l.counters.global_store_sectors + l.counters.global_atomic_sectors;
  }
  const double loaded = 32.0 * double(load_sectors), stored = 32.0 * double(store_sectors);
  INFO("global memory traffic: loads "
       << uint64_t(loaded) << " bytes (bound " << uint64_t(load_bound)
       << ": Q once in any layout, K and V once per query tile of " << kFlashBr << " rows), stores "
       << uint64_t(stored) << " bytes (bound " << uint64_t(store_bound)
       << ": O, m and l at most once per key tile of " << kFlashBc << " rows)");
  require_kernel_work(r);
  CHECK(loaded <= load_bound);
  CHECK(stored <= store_bound);
}

TEST_CASE("veto check: the kernel stays finite when scores are large",
          "[veto:lab_flash:no-running-max]") {
  auto rng = course::test_rng("lab3-veto-overflow");
  INFO(course::seed_note());
  bool right_on_small = false, finite_on_large = true;
  try {
    right_on_small = run_flash(rng, 64, 32, 0.5).error <= 1e-4;
    finite_on_large = course::all_finite(run_flash(rng, 64, 32, 250.0).O);
  } catch (const std::exception&) {
    right_on_small = false;  // unfinished code shows no misconception yet
  }
  INFO(
      "right on small scores but inf/NaN once |score| reaches the thousands: exp(score) overflows "
      "without "
      "subtracting the running max m");
  CHECK_FALSE((right_on_small && !finite_on_large));
}

TEST_CASE("veto check: the kernel's output is not per-tile softmax concatenated",
          "[veto:lab_flash:blockwise-softmax-concat]") {
  auto rng = course::test_rng("lab3-veto-concat");
  INFO(course::seed_note());
  bool matches_wrong = false;
  try {
    const int n = 96, d = 32;  // three key tiles
    const auto Q = course::random_matrix(rng, n, d, 1.0), K = course::random_matrix(rng, n, d, 0.5),
               V = course::random_matrix(rng, n, d, 1.0);
    device_buffer<float> dQ(Q), dK(K), dV(V), dO(static_cast<size_t>(n) * d);
    quiet_emulator();
    flash_attention_forward(dQ.ptr, dK.ptr, dV.ptr, dO.ptr, n, d);
    const auto got = dO.download();
    const double e_right = course::relative_error(got, ref::standard_attention(Q, K, V, n, d));
    const double e_sum =
        course::relative_error(got, ref::blockwise_softmax_concat(Q, K, V, n, d, kFlashBc, false));
    const double e_mean =
        course::relative_error(got, ref::blockwise_softmax_concat(Q, K, V, n, d, kFlashBc, true));
    matches_wrong = e_right > 1e-4 && std::min(e_sum, e_mean) <= 1e-3;
  } catch (const std::exception&) {
    matches_wrong = false;
  }
  INFO(
      "O equals softmax taken inside each key tile and concatenated: each tile used its own max "
      "and sum, and "
      "the old tiles were never re-based with exp(m_old - m_new)");
  CHECK_FALSE(matches_wrong);
}
