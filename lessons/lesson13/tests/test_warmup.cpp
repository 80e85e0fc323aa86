// Tests for lab 0 (exercises/lesson13/warmup.cu), run on the CPU emulator: each of the
// eight warm-up kernels against a double-precision reference on sizes that are not a
// multiple of the block, in order and under a seeded schedule, with outputs poisoned
// first; and the transpose's and the warp sum's accesses counted the way Nsight Compute
// counts them. Tags are rubric items of unit lab_warmup.
//   build/bin/lesson13_warmup_tests "[warmup.transpose_banks]"
#include <catch2/catch.hpp>

#include "warmup_support.hpp"

using namespace lesson13;
using namespace lesson13::warmup;
using lesson13::labs::schedule_note;
using lesson13::labs::schedules;

namespace {

// Sizes for the 1-D kernels: the fixed edges, then `draws` random ones up to `max_n`.
std::vector<int> sizes(std::mt19937_64& rng, std::vector<int> fixed, int max_n, int draws = 2) {
  std::uniform_int_distribution<int> n(1, max_n);
  for (int t = 0; t < draws; ++t) fixed.push_back(n(rng));
  return fixed;
}

std::vector<std::array<int, 2>> shapes(std::mt19937_64& rng,
                                       std::vector<std::array<int, 2>> fixed) {
  std::uniform_int_distribution<int> side(1, 90);
  for (int t = 0; t < 2; ++t) fixed.push_back({side(rng), side(rng)});
  return fixed;
}

// y = x^2 through `f` for each n, each under two schedules.
void check_square(void (*f)(const float*, float*, int), std::mt19937_64& rng,
                  const std::vector<int>& ns) {
  for (size_t k = 0; k < ns.size(); ++k) {
    const int n = ns[k];
    const std::vector<float> x = random_vector(rng, n, -3.0f, 3.0f);
    std::vector<double> want(n);
    for (int i = 0; i < n; ++i) want[i] = double(x[i]) * x[i];
    device_buffer<float> dx(x), dy(n);
    for (uint64_t schedule : schedules(rng, k)) {
      INFO("n = " << n);
      INFO(schedule_note(schedule));
      const run_result r = run([&] { f(dx.ptr, dy.ptr, n); }, dy, schedule);
      require_right(r, want, relative(want, 1e-6), {"y"});
    }
  }
}

}  // namespace

TEST_CASE("square: one thread per element, n a multiple of the block", "[warmup.map]") {
  auto rng = course::test_rng("lab0-map");
  INFO(course::seed_note());
  std::uniform_int_distribution<int> blocks(3, 24);
  check_square(square, rng, {kWarmupBlock, 2 * kWarmupBlock, kWarmupBlock * blocks(rng)});
}

TEST_CASE("square_guarded: any n, the last block's extra threads idle", "[warmup.guard]") {
  auto rng = course::test_rng("lab0-guard");
  INFO(course::seed_note());
  check_square(square_guarded, rng, sizes(rng, {1, 255, 257, 1000, kWarmupBlock}, 3000));
}

TEST_CASE("add_matrices: C = A + B on shapes not a multiple of the block", "[warmup.map2d]") {
  auto rng = course::test_rng("lab0-map2d");
  INFO(course::seed_note());
  const auto all = shapes(rng, {{1, 1}, {8, 32}, {33, 70}, {100, 31}, {9, 200}});
  for (size_t k = 0; k < all.size(); ++k) {
    const auto [rows, cols] = all[k];
    const size_t rc = size_t(rows) * cols;
    const std::vector<float> A = random_vector(rng, rc, -2.0f, 2.0f),
                             B = random_vector(rng, rc, -2.0f, 2.0f);
    const segment_sums want = elementwise_sums(A, B);
    device_buffer<float> dA(A), dB(B), dC(rc);
    for (uint64_t schedule : schedules(rng, k)) {
      INFO("rows = " << rows << ", cols = " << cols);
      INFO(schedule_note(schedule));
      const run_result r =
          run([&] { add_matrices(dA.ptr, dB.ptr, dC.ptr, rows, cols); }, dC, schedule);
      require_right(r, want.sum, want.tolerance, {"C", cols});
    }
  }
}

TEST_CASE("add_matrices: a warp's loads and stores touch few sectors", "[warmup.map2d][emulator]") {
  auto rng = course::test_rng("lab0-map2d-sectors");
  INFO(course::seed_note());
  const int rows = 64, cols = 96;
  const size_t rc = size_t(rows) * cols;
  const std::vector<float> A = random_vector(rng, rc, -2.0f, 2.0f),
                           B = random_vector(rng, rc, -2.0f, 2.0f);
  const segment_sums want = elementwise_sums(A, B);
  device_buffer<float> dA(A), dB(B), dC(rc);
  const run_result r = run([&] { add_matrices(dA.ptr, dB.ptr, dC.ptr, rows, cols); }, dC, 0);
  {
    INFO(course::protocol::cause_prefix
         << "first the sums must be right and the launch clean (see the other warmup.map2d test)");
    require_right(r, want.sum, want.tolerance, {"C", cols});
  }
  labs::require_kernel_work(r);
  const auto& c = r.launch.counters;
  INFO(r.launch.ncu_metrics());
  INFO("global load sectors per request: "
       << c.global_load_sectors_per_request() << ", stores " << c.global_write_sectors_per_request()
       << "; coalesced is " << c.global_load_coalesced_sectors_per_request()
       << ": a warp's 32 lanes should take 32 neighbouring columns of one row (x along the "
          "columns), not 32 rows of one column");
  CHECK(c.global_load_sectors_per_request() <= c.global_load_coalesced_sectors_per_request());
  CHECK(c.global_write_sectors_per_request() <= c.global_write_coalesced_sectors_per_request());
}

TEST_CASE("divide_rows: each row divided by its own s[r]", "[warmup.broadcast]") {
  auto rng = course::test_rng("lab0-broadcast");
  INFO(course::seed_note());
  const auto all = shapes(rng, {{1, 1}, {8, 32}, {33, 70}, {100, 31}, {9, 200}});
  std::bernoulli_distribution negative(0.5);
  for (size_t k = 0; k < all.size(); ++k) {
    const auto [rows, cols] = all[k];
    const size_t rc = size_t(rows) * cols;
    const std::vector<float> X = random_vector(rng, rc, -2.0f, 2.0f);
    std::vector<float> s = random_vector(rng, rows, 0.5f, 4.0f);  // never near zero
    for (float& e : s)
      if (negative(rng)) e = -e;
    std::vector<double> want(rc);
    for (size_t i = 0; i < rc; ++i) want[i] = double(X[i]) / s[i / cols];
    device_buffer<float> dX(X), ds(s), dY(rc);
    for (uint64_t schedule : schedules(rng, k)) {
      INFO("rows = " << rows << ", cols = " << cols);
      INFO(schedule_note(schedule));
      const run_result r =
          run([&] { divide_rows(dX.ptr, ds.ptr, dY.ptr, rows, cols); }, dY, schedule);
      require_right(r, want, relative(want, 1e-6), {"Y", cols});
    }
  }
}

namespace {

// partial[b] = the sum of each `per_block` elements, through `f`, for each n.
void check_sums(void (*f)(const float*, float*, int), int per_block, std::mt19937_64& rng,
                const std::vector<int>& ns) {
  for (size_t k = 0; k < ns.size(); ++k) {
    const int n = ns[k];
    const std::vector<float> x = random_vector(rng, n, -1.0f, 1.0f);
    const segment_sums want = sums_of(x, per_block);
    device_buffer<float> dx(x), dpartial(want.sum.size());
    for (uint64_t schedule : schedules(rng, k)) {
      INFO("n = " << n << ": " << want.sum.size() << " sums of " << per_block << " elements");
      INFO(schedule_note(schedule));
      const run_result r = run([&] { f(dx.ptr, dpartial.ptr, n); }, dpartial, schedule);
      require_right(r, want.sum, want.tolerance, {"partial", 0, 1, false});
    }
  }
}

}  // namespace

TEST_CASE("block_sum: each block's 256 elements summed in shared memory", "[warmup.block_sum]") {
  auto rng = course::test_rng("lab0-block-sum");
  INFO(course::seed_note());
  check_sums(block_sum, kWarmupBlock, rng, sizes(rng, {kWarmupBlock, 1, 255, 1000, 4113}, 5000));
}

TEST_CASE("warp_sum: each warp's 32 elements summed with shuffles", "[warmup.warp_sum]") {
  auto rng = course::test_rng("lab0-warp-sum");
  INFO(course::seed_note());
  check_sums(warp_sum, kWarpSize, rng, sizes(rng, {kWarmupBlock, 1, 31, 33, 1000}, 3000));
}

TEST_CASE("warp_sum: the sum travels through registers, not memory",
          "[warmup.warp_sum][emulator]") {
  auto rng = course::test_rng("lab0-warp-sum-counters");
  INFO(course::seed_note());
  const int n = 4 * kWarmupBlock;
  const std::vector<float> x = random_vector(rng, n, -1.0f, 1.0f);
  const segment_sums want = sums_of(x, kWarpSize);
  device_buffer<float> dx(x), dpartial(want.sum.size());
  const run_result r = run([&] { warp_sum(dx.ptr, dpartial.ptr, n); }, dpartial, 0);
  require_right(r, want.sum, want.tolerance, {"partial", 0, 1, false});
  labs::require_kernel_work(r);
  const auto& c = r.launch.counters;
  INFO(r.launch.ncu_metrics());
  INFO("shared-memory requests: " << c.shared_load_requests + c.shared_store_requests
                                  << " (a shuffle reduction makes none); the most global loads "
                                     "by one thread: "
                                  << c.max_thread_global_reads << " (one: its own element)");
  CHECK(c.shared_load_requests + c.shared_store_requests == 0);
  CHECK(c.max_thread_global_reads <= 1);
}

TEST_CASE("block_scan: inclusive prefix sums within each block", "[warmup.scan]") {
  auto rng = course::test_rng("lab0-scan");
  INFO(course::seed_note());
  const std::vector<int> ns = sizes(rng, {kWarmupBlock, 1, 100, 300, 1000}, 3000);
  for (size_t k = 0; k < ns.size(); ++k) {
    const int n = ns[k];
    const std::vector<float> x = random_vector(rng, n, -1.0f, 1.0f);
    const segment_sums want = prefix_sums(x);
    device_buffer<float> dx(x), dy(n);
    for (uint64_t schedule : schedules(rng, k)) {
      INFO("n = " << n);
      INFO(schedule_note(schedule));
      const run_result r = run([&] { block_scan(dx.ptr, dy.ptr, n); }, dy, schedule);
      require_right(r, want.sum, want.tolerance, {"y"});
    }
  }
}

namespace {

struct transposed {
  run_result r;
  std::vector<double> want;
};

transposed run_transpose(std::mt19937_64& rng, int rows, int cols, uint64_t schedule) {
  const size_t rc = size_t(rows) * cols;
  const std::vector<float> in = random_vector(rng, rc, -5.0f, 5.0f);
  transposed t;
  t.want.resize(rc);
  for (int r = 0; r < rows; ++r)
    for (int c = 0; c < cols; ++c) t.want[size_t(c) * rows + r] = in[size_t(r) * cols + c];
  device_buffer<float> din(in), dout(rc);
  t.r = run([&] { transpose(din.ptr, dout.ptr, rows, cols); }, dout, schedule);
  return t;
}

}  // namespace

TEST_CASE("transpose: out = in transposed, partial tiles included", "[warmup.transpose]") {
  auto rng = course::test_rng("lab0-transpose");
  INFO(course::seed_note());
  const auto all =
      shapes(rng, {{32, 32}, {1, 1}, {33, 65}, {100, 31}, {64, 256}, {1, 70}, {70, 1}});
  for (size_t k = 0; k < all.size(); ++k) {
    const auto [rows, cols] = all[k];
    for (uint64_t schedule : schedules(rng, k)) {
      INFO("in is rows = " << rows << " x cols = " << cols << "; out is " << cols << " x " << rows);
      INFO(schedule_note(schedule));
      const transposed t = run_transpose(rng, rows, cols, schedule);
      // A transpose moves floats: every element exactly.
      require_right(t.r, t.want, std::vector<double>(t.want.size(), 0.0),
                    {"out", rows, kWarmupBlock, false});
    }
  }
}

TEST_CASE("transpose: reads and writes both coalesced", "[warmup.transpose_coalesced][emulator]") {
  auto rng = course::test_rng("lab0-transpose-sectors");
  INFO(course::seed_note());
  const transposed t = run_transpose(rng, 96, 128, 0);
  {
    INFO(course::protocol::cause_prefix
         << "first the transpose must be right and its launch clean (see warmup.transpose)");
    require_right(t.r, t.want, std::vector<double>(t.want.size(), 0.0), {"out", 96, 256, false});
  }
  labs::require_kernel_work(t.r);
  const auto& c = t.r.launch.counters;
  REQUIRE(c.global_store_requests + c.global_atomic_requests > 0);
  INFO(t.r.launch.ncu_metrics());
  INFO("your transpose made " << c.global_load_sectors_per_request()
                              << " sectors per global load request; coalesced is "
                              << c.global_load_coalesced_sectors_per_request()
                              << " (a warp reading 32 floats of a row of `in`)");
  INFO("and " << c.global_write_sectors_per_request()
              << " sectors per global store request; coalesced is "
              << c.global_write_coalesced_sectors_per_request()
              << " (a warp writing 32 floats of a row of `out`)");
  CHECK(c.global_load_sectors_per_request() <= c.global_load_coalesced_sectors_per_request());
  CHECK(c.global_write_sectors_per_request() <= c.global_write_coalesced_sectors_per_request());
}

TEST_CASE("transpose: bank conflicts at most 5% of shared-memory requests",
          "[warmup.transpose_banks][emulator]") {
  auto rng = course::test_rng("lab0-transpose-banks");
  INFO(course::seed_note());
  const transposed t = run_transpose(rng, 96, 128, 0);
  {
    INFO(course::protocol::cause_prefix
         << "first the transpose must be right and its launch clean (see warmup.transpose)");
    require_right(t.r, t.want, std::vector<double>(t.want.size(), 0.0), {"out", 96, 256, false});
  }
  labs::require_kernel_work(t.r);
  const auto& c = t.r.launch.counters;
  INFO(t.r.launch.ncu_metrics());
  {
    INFO(course::protocol::cause_prefix
         << "the kernel never reads shared memory: this lab's transpose goes through a shared "
            "tile, so there are no accesses to judge");
    REQUIRE(c.shared_load_requests > 0);
  }
  const uint64_t requests = c.shared_load_requests + c.shared_store_requests;
  const uint64_t conflicts = c.shared_load_bank_conflicts + c.shared_store_bank_conflicts;
  INFO("bank conflicts: " << conflicts << " over " << requests << " shared-memory requests (reads "
                          << c.shared_load_bank_conflicts << ", writes "
                          << c.shared_store_bank_conflicts << "; at most " << requests / 20
                          << "). A warp reading a column of a 32 x 32 float tile puts all 32 "
                             "lanes in one bank: 31 conflicts per request");
  CHECK(conflicts <= requests / 20);
}
