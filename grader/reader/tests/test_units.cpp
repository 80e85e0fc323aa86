// Unit tests for units as keys and answers write them (parse_unit: units.cpp).
//   build/dev/bin/grader_reader_tests "[quantity]"
#include <catch2/catch.hpp>

#include "quantity_test.hpp"

TEST_CASE("parse_unit: every byte prefix, SI and binary, en and zh", "[quantity]") {
  struct row {
    std::string unit;
    double factor;
  };
  for (const row& r :
       std::vector<row>{{"B", 1},          {"byte", 1},        {"bytes", 1},      {"字节", 1},
                        {"b", 1},          {"kB", 1e3},        {"KB", 1e3},       {"MB", 1e6},
                        {"mb", 1e6},       {"GB", 1e9},        {"TB", 1e12},      {"PB", 1e15},
                        {"KiB", kib},      {"MiB", mib},       {"GiB", gib},      {"TiB", tib},
                        {"PiB", pib},      {"千字节", 1e3},    {"兆字节", 1e6},   {"吉字节", 1e9},
                        {"太字节", 1e12},  {"megabytes", 1e6}, {"gibibyte", gib}, {"bit", 1.0 / 8},
                        {"Gbit", 1e9 / 8}, {"ＭｉＢ", mib}}) {
    INFO("unit: " << r.unit);
    const auto u = parse_unit(r.unit);
    REQUIRE(u);
    CHECK(u->dimension == "bytes");
    CHECK(u->factor == exactly(r.factor));
  }
  CHECK(parse_unit("MiB")->binary);
  CHECK(parse_unit("MiB")->prefix_power == 2);
  CHECK_FALSE(parse_unit("MB")->binary);
  CHECK(parse_unit("TB")->prefix_power == 4);
}

TEST_CASE("parse_unit: rates, times, FLOPs, counts and percent", "[quantity]") {
  struct row {
    std::string unit, dimension;
    double factor;
  };
  for (const row& r : std::vector<row>{{"B/s", "bytes/s", 1},
                                       {"GB/s", "bytes/s", 1e9},
                                       {"TB/s", "bytes/s", 1e12},
                                       {"KiB/s", "bytes/s", kib},
                                       {"GiB/s", "bytes/s", gib},
                                       {"GBps", "bytes/s", 1e9},
                                       {"GB/sec", "bytes/s", 1e9},
                                       {"TB / s", "bytes/s", 1e12},
                                       {"TB/秒", "bytes/s", 1e12},
                                       {"TB每秒", "bytes/s", 1e12},
                                       {"GB per second", "bytes/s", 1e9},
                                       {"s", "s", 1},
                                       {"秒", "s", 1},
                                       {"ms", "s", 1e-3},
                                       {"毫秒", "s", 1e-3},
                                       {"us", "s", 1e-6},
                                       {"µs", "s", 1e-6},
                                       {"μs", "s", 1e-6},
                                       {"微秒", "s", 1e-6},
                                       {"ns", "s", 1e-9},
                                       {"纳秒", "s", 1e-9},
                                       {"min", "s", 60},
                                       {"FLOP", "flop", 1},
                                       {"GFLOP", "flop", 1e9},
                                       {"TFLOPs", "flop", 1e12},
                                       {"TFLOPS", "flop/s", 1e12},
                                       {"TFLOP/s", "flop/s", 1e12},
                                       {"tflops", "flop/s", 1e12},
                                       {"", "", 1},
                                       {"sectors", "", 1},
                                       {"times", "", 1},
                                       {"次", "", 1},
                                       {"%", "", 0.01},
                                       {"‰", "", 0.001}}) {
    INFO("unit: " << r.unit);
    const auto u = parse_unit(r.unit);
    REQUIRE(u);
    CHECK(u->dimension == r.dimension);
    CHECK(u->factor == exactly(r.factor));
  }
  CHECK(parse_unit("")->plain);
  CHECK(parse_unit("sectors")->plain);
  CHECK_FALSE(parse_unit("%")->plain);
  CHECK(parse_unit("%")->percent);
}

TEST_CASE("parse_unit refuses what a key cannot mean: bare prefixes, unknown words", "[quantity]") {
  for (const std::string bad :
       {"M", "k", "Mi", "T/s", "兆", "bananas", "32", "MiB/", "MiBs", "GB/s/s", "m/s", "B B"}) {
    INFO("unit: " << bad);
    CHECK_FALSE(parse_unit(bad));
  }
}
