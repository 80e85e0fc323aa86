// Hidden tests of lab 0 (warmup.cu): compiled into marking mode's judge only (grader mark),
// never shipped to students. Larger and differently shaped inputs than the public tests,
// and values of large magnitude, so a submission tuned to the public shapes (a guard that
// holds only below 3000, a transpose right only on the public tile counts) meets new ones.
// Run by hand: the lesson13_warmup_judge binary of a dev build.
#include <catch2/catch.hpp>

#include "warmup_support.hpp"

using namespace lesson13;
using namespace lesson13::warmup;

namespace {

std::vector<float> scaled(std::mt19937_64& rng, size_t n) {
  return random_vector(rng, n, -1000.0f, 1000.0f);
}

// y = x^2 through `f` on one size.
void check_square(void (*f)(const float*, float*, int), std::mt19937_64& rng, int n) {
  const std::vector<float> x = scaled(rng, n);
  std::vector<double> want(n);
  for (int i = 0; i < n; ++i) want[i] = double(x[i]) * x[i];
  device_buffer<float> dx(x), dy(n);
  INFO("n = " << n);
  require_right(run([&] { f(dx.ptr, dy.ptr, n); }, dy, 0), want, relative(want, 1e-6), {"y"});
}

using shape = std::array<int, 2>;
const shape kShapes[] = {{257, 3}, {3, 257}, {129, 95}};

// partial sums of each `per_block` elements through `f`, over many blocks.
void check_sums(void (*f)(const float*, float*, int), int per_block, std::mt19937_64& rng) {
  const int n = 33 * kWarmupBlock + 7;
  const std::vector<float> x = scaled(rng, n);
  const segment_sums want = sums_of(x, per_block);
  device_buffer<float> dx(x), dpartial(want.sum.size());
  INFO("n = " << n);
  require_right(run([&] { f(dx.ptr, dpartial.ptr, n); }, dpartial, 0), want.sum,
                want.tolerance, {"partial", 0, 1, false});
}

}  // namespace

TEST_CASE("hidden: square on a large multiple of the block", "[warmup.map]") {
  auto rng = course::test_rng("lab0-hidden-map");
  INFO(course::seed_note());
  check_square(square, rng, 40 * kWarmupBlock);
}

TEST_CASE("hidden: square_guarded on a large size", "[warmup.guard]") {
  auto rng = course::test_rng("lab0-hidden-guard");
  INFO(course::seed_note());
  std::uniform_int_distribution<int> extra(1, kWarmupBlock - 1);
  check_square(square_guarded, rng, 40 * kWarmupBlock + extra(rng));
}

TEST_CASE("hidden: add_matrices on tall and wide shapes", "[warmup.map2d]") {
  auto rng = course::test_rng("lab0-hidden-map2d");
  INFO(course::seed_note());
  for (auto [rows, cols] : kShapes) {
    const size_t rc = size_t(rows) * cols;
    const std::vector<float> A = scaled(rng, rc), B = scaled(rng, rc);
    const segment_sums want = elementwise_sums(A, B);
    device_buffer<float> dA(A), dB(B), dC(rc);
    INFO("rows = " << rows << ", cols = " << cols);
    require_right(run([&] { add_matrices(dA.ptr, dB.ptr, dC.ptr, rows, cols); }, dC, 0), want.sum,
                  want.tolerance, {"C", cols});
  }
}

TEST_CASE("hidden: divide_rows on tall and wide shapes", "[warmup.broadcast]") {
  auto rng = course::test_rng("lab0-hidden-broadcast");
  INFO(course::seed_note());
  for (auto [rows, cols] : kShapes) {
    const size_t rc = size_t(rows) * cols;
    const std::vector<float> X = scaled(rng, rc), s = random_vector(rng, rows, 0.25f, 8.0f);
    std::vector<double> want(rc);
    for (size_t i = 0; i < rc; ++i) want[i] = double(X[i]) / s[i / cols];
    device_buffer<float> dX(X), ds(s), dY(rc);
    INFO("rows = " << rows << ", cols = " << cols);
    require_right(run([&] { divide_rows(dX.ptr, ds.ptr, dY.ptr, rows, cols); }, dY, 0), want,
                  relative(want, 1e-6), {"Y", cols});
  }
}

TEST_CASE("hidden: block_sum over many blocks", "[warmup.block_sum]") {
  auto rng = course::test_rng("lab0-hidden-block-sum");
  INFO(course::seed_note());
  check_sums(block_sum, kWarmupBlock, rng);
}

TEST_CASE("hidden: warp_sum over many warps", "[warmup.warp_sum]") {
  auto rng = course::test_rng("lab0-hidden-warp-sum");
  INFO(course::seed_note());
  check_sums(warp_sum, kWarpSize, rng);
}

TEST_CASE("hidden: block_scan over many blocks", "[warmup.scan]") {
  auto rng = course::test_rng("lab0-hidden-scan");
  INFO(course::seed_note());
  const int n = 33 * kWarmupBlock + 7;
  const std::vector<float> x = scaled(rng, n);
  const segment_sums want = prefix_sums(x);
  device_buffer<float> dx(x), dy(n);
  INFO("n = " << n);
  require_right(run([&] { block_scan(dx.ptr, dy.ptr, n); }, dy, 0), want.sum, want.tolerance,
                {"y"});
}

TEST_CASE("hidden: transpose of many partial tiles", "[warmup.transpose]") {
  auto rng = course::test_rng("lab0-hidden-transpose");
  INFO(course::seed_note());
  for (auto [rows, cols] : {shape{161, 97}, {31, 300}, {2, 2}}) {
    const size_t rc = size_t(rows) * cols;
    const std::vector<float> in = scaled(rng, rc);
    std::vector<double> want(rc);
    for (int r = 0; r < rows; ++r)
      for (int c = 0; c < cols; ++c) want[size_t(c) * rows + r] = in[size_t(r) * cols + c];
    device_buffer<float> din(in), dout(rc);
    INFO("in is " << rows << " x " << cols);
    require_right(run([&] { transpose(din.ptr, dout.ptr, rows, cols); }, dout, 0), want,
                  std::vector<double>(rc, 0.0), {"out", rows, kWarmupBlock, false});
  }
}
