// Unit tests for magnitudes in free text (find_magnitudes: magnitudes.cpp), what claims'
// "{ratio>=50}" alternatives read.
//   build/dev/bin/grader_reader_tests "[quantity]"
#include <catch2/catch.hpp>

#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "grader/reader/reader.hpp"

namespace {

struct mag_row {
  std::string text;
  std::string quoted;  // the magnitude as written
  double low, high;
};

}  // namespace

TEST_CASE("find_magnitudes: factors, orders of magnitude and sameness, en and zh", "[quantity]") {
  const double inf = std::numeric_limits<double>::infinity();
  for (const mag_row& r : std::vector<mag_row>{
           {"shared memory is about 10× faster", "10×", 10, 10},
           {"roughly 10x the bandwidth", "10x", 10, 10},
           {"ten times faster than HBM", "ten times", 10, 10},
           {"thousands of times HBM's bandwidth", "thousands of times", 1000, 9999},
           {"a thousand times higher", "a thousand times", 1000, 1000},
           {"higher by 20 times", "20 times", 20, 20},
           {"a 10-fold gap", "10-fold", 10, 10},
           {"a tenfold gap", "tenfold", 10, 10},
           {"by a factor of about 6", "factor of about 6", 6, 6},
           {"an order of magnitude faster", "an order of magnitude", 10, 10},
           {"two orders of magnitude faster", "two orders of magnitude", 100, 100},
           {"orders of magnitude faster", "orders of magnitude", 10, inf},
           {"the same order of magnitude", "same order of magnitude", 1, 1},
           {"within an order of magnitude of HBM", "within an order of magnitude", 1, 9.99},
           {"twice as fast", "twice", 2, 2},
           {"only 10% faster", "10%", 1.1, 1.1},
           {"HBM has 1/10 of it", "1/10", 10, 10},
           {"one tenth of the bandwidth", "one tenth", 10, 10},
           {"共享内存带宽约10倍", "10倍", 10, 10},
           {"快十倍", "十倍", 10, 10},
           {"是 HBM 的几千倍", "几千倍", 2000, 9000},
           {"快上千倍", "上千倍", 1000, 9000},
           {"几十倍", "几十倍", 20, 90},
           {"高一个数量级", "一个数量级", 10, 10},
           {"差距是一个数量级", "一个数量级", 10, 10},
           {"两个数量级", "两个数量级", 100, 100},
           {"带宽在同一数量级", "同一数量级", 1, 1},
           {"两者是一个数量级的", "一个数量级", 1, 1},
           {"HBM 只有它的十分之一", "十分之一", 10, 10},
           {"2～4 倍", "2～4 倍", 2, 4},
           {"快１０倍", "１０倍", 10, 10},
       }) {
    INFO("text: " << r.text);
    const auto found = grader::find_magnitudes(r.text);
    REQUIRE(found.size() == 1);
    CHECK(r.text.substr(found[0].begin, found[0].end - found[0].begin) == r.quoted);
    CHECK(found[0].low == Approx(r.low));
    if (std::isinf(r.high))
      CHECK(std::isinf(found[0].high));
    else
      CHECK(found[0].high == Approx(r.high));
  }
}

TEST_CASE("find_magnitudes: products, counts and plain numbers are no magnitudes", "[quantity]") {
  for (const std::string text : {
           "S is 4096×4096, 4096 x 4096 × 2 bytes",
           "32 heads × 32 layers, 2×N, 32 x n_heads",
           "each element is read 4096 times from HBM",
           "read N times without tiling, 128 times with it",
           "HBM3 gives 3.35 TB/s; the A100 about 19.5 TB/s",
           "每个元素读 128 次，一个 warp 有 32 个线程",
           "H100 and sm_90, 0x10",
           "一样快，一致，一起",
           "a tile, an SRAM, one kernel",
       }) {
    INFO("text: " << text);
    CHECK(grader::find_magnitudes(text).empty());
  }
}
