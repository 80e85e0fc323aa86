// Unit tests for numbers with units in answers (quantity.cpp) and number grading with them
// (grade_answers, load_answer_key in answers.cpp).
//   build/bin/grader_tests "[quantity]"
#include <catch2/catch.hpp>

#include <cmath>
#include <fstream>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "grader/base/error.hpp"
#include "grader/lesson/answers.hpp"
#include "grader/lesson/quantity.hpp"
#include "temp_dir.hpp"

using grader::lang;
using grader::parse_unit;
using grader::quantity_error;
using grader::read_quantity;

namespace {

const double kib = 1024.0, mib = kib * kib, gib = mib * kib, tib = gib * kib, pib = tib * kib;

// The answer's value in key_unit; fails the test when it cannot be read.
double value_of(const std::string& answer, const std::string& key_unit) {
  const auto q = read_quantity(answer, key_unit);
  INFO("answer: " << answer << "  key unit: " << key_unit << "  quoted: " << q.quoted);
  REQUIRE(q.error == quantity_error::none);
  return q.value;
}

quantity_error error_of(const std::string& answer, const std::string& key_unit) {
  return read_quantity(answer, key_unit).error;
}

// Exact to the last few bits: the conversions multiply and divide once each.
Approx exactly(double x) {
  return Approx(x).epsilon(1e-12).margin(1e-300);
}

}  // namespace

// ---- units

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

// ---- reading answers

TEST_CASE("read_quantity: the issue's examples, converted to the key's unit", "[quantity]") {
  struct row {
    std::string answer, key_unit;
    double value;
  };
  for (const row& r : std::vector<row>{
           {"3350 GB/s", "TB/s", 3.35},
           {"约 33.6 MB", "MiB", 33.6e6 / mib},
           {"4096/32 = 128", "times", 128},
           {"2^25 B", "MiB", 32},
           {"32 MiB", "MiB", 32},
           {"64GiB", "GiB", 64},
           {"64GiB", "MiB", 65536},
           {"3.35TB/s", "TB/s", 3.35},
           {"~3.35 TB/s", "TB/s", 3.35},
           {"～3.35 TB/s", "TB/s", 3.35},
           {"3,35", "TB/s", 3.35},
           {"33,554,432 B", "MiB", 32},
           {"33_554_432", "B", 33554432},
           {"33\u2009554\u2009432 B", "MiB", 32},
           {"33\u202F554\u202F432 B", "MiB", 32},
           {"33\u00A0554\u00A0432 B", "MiB", 32},
           {"3.2万", "", 32000},
           {"1.5亿", "", 1.5e8},
           {"3.35×10^12 B/s", "TB/s", 3.35},
           {"3.35 x 10^12", "", 3.35e12},
           {"3.35e12 B/s", "TB/s", 3.35},
           {"50%", "", 0.5},
           {"H100: 3.35 TB/s", "TB/s", 3.35},
           {"32 MiB（兆字节）", "MiB", 32},
           {"３２ ＭｉＢ", "MiB", 32},
           {"H100：３．３５ ＴＢ／ｓ", "TB/s", 3.35},
       }) {
    CHECK(value_of(r.answer, r.key_unit) == exactly(r.value));
  }
}

TEST_CASE("read_quantity: quotes the number and unit exactly as written", "[quantity]") {
  const auto q = read_quantity("H100 SXM: 3350 GB/s（HBM3）", "TB/s");
  REQUIRE(q.ok());
  CHECK(q.quoted == "3350 GB/s");
  CHECK(q.unit == "GB/s");
  CHECK_FALSE(q.unit_assumed);
  CHECK(q.read_as.dimension == "bytes/s");
  const auto zh = read_quantity("约 33.6 MB", "MiB");
  CHECK(zh.quoted == "33.6 MB");
  CHECK(zh.unit == "MB");
  const auto wide = read_quantity("答：３２ ＭｉＢ", "MiB");
  CHECK(wide.quoted == "３２ ＭｉＢ");
  const auto bare = read_quantity("32", "MiB");
  CHECK(bare.quoted == "32");
  CHECK(bare.unit.empty());
  CHECK(bare.unit_assumed);
  CHECK(bare.value == 32);
  // At most 60 characters, then an ellipsis.
  const auto longer = read_quantity(std::string(100, '1'), "");
  CHECK(longer.quoted == std::string(60, '1') + "…");
  // Bad UTF-8 is quoted as U+FFFD, so a report's JSON stays valid.
  CHECK(read_quantity("\xff\xfe", "").quoted == "\uFFFD\uFFFD");
}

TEST_CASE("read_quantity: a number without a unit is in the key's unit", "[quantity]") {
  CHECK(value_of("32", "MiB") == 32);
  CHECK(value_of("3350", "TB/s") == 3350);
  CHECK(value_of("0.5", "%") == 0.5);
  CHECK(value_of("3", "ms") == 3);
  // Count words say nothing more: 4 sectors, 128 次, 4 个.
  CHECK(value_of("4 sectors", "sectors") == 4);
  CHECK(value_of("4个", "sectors") == 4);
  CHECK(value_of("128 times", "") == 128);
  CHECK(value_of("128次", "times") == 128);
  CHECK(value_of("2x", "") == 2);
  CHECK(read_quantity("128 times", "").unit == "times");
  CHECK(read_quantity("128 times", "").unit_assumed);
  // An unknown word after the number is prose.
  CHECK(value_of("32 bananas", "MiB") == 32);
  CHECK(value_of("32 " + std::string(30000, 'x'), "MiB") == 32);
}

TEST_CASE("read_quantity: each dimension converts within itself", "[quantity]") {
  // bytes
  CHECK(value_of("32768 KiB", "MiB") == 32);
  CHECK(value_of("0.03125 GiB", "MiB") == 32);
  CHECK(value_of("1.5 TiB", "GiB") == 1536);
  CHECK(value_of("1 PiB", "TiB") == 1024);
  CHECK(value_of("32 MB", "MiB") == exactly(32e6 / mib));
  CHECK(value_of("1 GB", "MB") == exactly(1000));
  CHECK(value_of("1 kB", "B") == 1000);
  CHECK(value_of("1 KB", "B") == 1000);
  CHECK(value_of("2 PB", "TB") == exactly(2000));
  CHECK(value_of("256 mebibytes", "MiB") == 256);
  CHECK(value_of("32 兆字节", "MB") == exactly(32));
  CHECK(value_of("2048 字节", "KiB") == 2);
  CHECK(value_of("256 bits", "B") == 32);
  // rates
  CHECK(value_of("3.35 TBps", "TB/s") == exactly(3.35));
  CHECK(value_of("3350 GB per second", "TB/s") == exactly(3.35));
  CHECK(value_of("3.35 TB / s", "TB/s") == exactly(3.35));
  CHECK(value_of("3.35 TB/秒", "TB/s") == exactly(3.35));
  CHECK(value_of("3.35 TB每秒", "GB/s") == exactly(3350));
  CHECK(value_of("3.35 TiB/s", "TB/s") == exactly(3.35 * tib / 1e12));
  // times
  CHECK(value_of("3000 us", "ms") == exactly(3));
  CHECK(value_of("3 µs", "ns") == exactly(3000));
  CHECK(value_of("3 μs", "ns") == exactly(3000));
  CHECK(value_of("0.003 s", "ms") == exactly(3));
  CHECK(value_of("2 毫秒", "us") == exactly(2000));
  CHECK(value_of("1 min", "s") == 60);
  // FLOPs
  CHECK(value_of("989 TFLOPS", "TFLOP/s") == exactly(989));
  CHECK(value_of("0.989 PFLOP/s", "TFLOP/s") == exactly(989));
  CHECK(value_of("4 GFLOPs", "FLOP") == exactly(4e9));
  // percent and counts
  CHECK(value_of("50%", "%") == 50);
  CHECK(value_of("50 percent", "%") == 50);
  CHECK(value_of("5‰", "%") == exactly(0.5));
  CHECK(value_of("50％", "") == exactly(0.5));
}

TEST_CASE("read_quantity: a bare prefix takes the key's unit and prefix family", "[quantity]") {
  CHECK(value_of("32M", "MiB") == 32);
  CHECK(value_of("32 Mi", "MiB") == 32);
  CHECK(value_of("32M", "MB") == 32);
  CHECK(value_of("32兆", "MiB") == 32);
  CHECK(value_of("32K", "MiB") == exactly(1.0 / 32));
  CHECK(value_of("64G", "GiB") == 64);
  CHECK(value_of("3.35T", "TB/s") == exactly(3.35));
  CHECK(value_of("3350G", "TB/s") == exactly(3.35));
  CHECK(value_of("3.35 T/s", "TB/s") == exactly(3.35));
  CHECK(value_of("4k", "") == 4000);
  CHECK(value_of("1M", "") == 1e6);
  CHECK(value_of("1.5G", "TFLOP/s") == exactly(0.0015));
  // A bare prefix per second is no number of bytes.
  CHECK(error_of("32M/s", "MiB") == quantity_error::wrong_dimension);
  // 兆 counts 10^6 or 10^12; M of a time, or of a percentage, means nothing.
  CHECK(error_of("3兆", "") == quantity_error::ambiguous);
  CHECK(error_of("32M", "ms") == quantity_error::ambiguous);
  CHECK(error_of("5k", "%") == quantity_error::ambiguous);
}

TEST_CASE("read_quantity: the wrong dimension is an error quoting the student", "[quantity]") {
  struct row {
    std::string answer, key_unit, quoted, dimension;
  };
  for (const row& r : std::vector<row>{{"32 GB/s", "MiB", "32 GB/s", "bytes/s"},
                                       {"3.35 TB", "TB/s", "3.35 TB", "bytes"},
                                       {"3.35T/s", "TB", "3.35T/s", "bytes/s"},
                                       {"50%", "MiB", "50%", ""},
                                       {"32 MiB", "", "32 MiB", "bytes"},
                                       {"128 B", "sectors", "128 B", "bytes"},
                                       {"3 GB", "ms", "3 GB", "bytes"},
                                       {"32 ms", "MiB", "32 ms", "s"},
                                       {"989 TFLOPs", "TFLOP/s", "989 TFLOPs", "flop"},
                                       {"4 GFLOPS", "FLOP", "4 GFLOPS", "flop/s"}}) {
    INFO("answer: " << r.answer << "  key unit: " << r.key_unit);
    const auto q = read_quantity(r.answer, r.key_unit);
    CHECK(q.error == quantity_error::wrong_dimension);
    CHECK(q.quoted == r.quoted);
    CHECK(q.read_as.dimension == r.dimension);
  }
}

TEST_CASE("read_quantity: overflow, NaN and infinity are errors, never a crash", "[quantity]") {
  for (const std::string bad :
       {"1e309", "1e999 TB/s", "-1e309", "10^400", "1e200 × 1e200", "1/0", "0/0", "NaN", "nan",
        "inf", "-inf", "Infinity", "∞", "1e99999999999999999999999", "2**99999"}) {
    INFO("answer: " << bad);
    CHECK(error_of(bad, "MiB") == quantity_error::overflow_or_nan);
  }
  CHECK(error_of(std::string(30000, '7'), "MiB") == quantity_error::overflow_or_nan);
  CHECK(read_quantity("1e309", "").quoted == "1e309");
  CHECK(read_quantity("about NaN", "").quoted == "NaN");
  // Too small is 0, which a double holds.
  CHECK(value_of("1e-400", "") == 0);
  // A finite number whose conversion overflows.
  CHECK(error_of("1e290 PiB", "B") == quantity_error::none);
  CHECK(error_of("1e300 PiB", "B") == quantity_error::overflow_or_nan);
}

TEST_CASE("read_quantity: no number at all", "[quantity]") {
  for (const std::string none :
       {"", "thirty-two", "H100", "BF16 / FP8", "sm_90", "很快", "三十二", "A100, H100", "v1.2"}) {
    INFO("answer: " << none);
    const auto q = read_quantity(none, "MiB");
    CHECK(q.error == quantity_error::no_number);
    CHECK(q.quoted == none);
  }
  CHECK(error_of("32", "bananas") == quantity_error::bad_key_unit);
}

TEST_CASE("read_quantity: a range or two readings is ambiguous", "[quantity]") {
  for (const std::string range : {"3~4 TB/s", "3-4", "3 - 4 TB/s", "3–4", "3 到 4", "3至4",
                                  "3 to 4", "3 TB/s ~ 4 TB/s", "3 TB/s - 3.5 TB/s"}) {
    INFO("answer: " << range);
    CHECK(error_of(range, "TB/s") == quantity_error::ambiguous);
  }
  CHECK(read_quantity("about 3~4 TB/s", "TB/s").quoted == "3~4");
  CHECK(read_quantity("3 TB/s ~ 4 TB/s!", "TB/s").quoted == "3 TB/s ~ 4 TB/s");
  // Not ranges: a leading ~, a dash before words, ±.
  CHECK(value_of("~3.35", "TB/s") == exactly(3.35));
  CHECK(value_of("3.35 TB/s - H100 SXM", "TB/s") == exactly(3.35));
  CHECK(value_of("3.35 ± 0.1 TB/s", "TB/s") == exactly(3.35));
  CHECK(read_quantity("3.35 ± 0.1 TB/s", "TB/s").unit == "TB/s");
}

TEST_CASE("read_quantity: expressions; only the text after the last = counts", "[quantity]") {
  CHECK(value_of("4096/32 = 128", "") == 128);
  CHECK(value_of("4096 / 32", "") == 128);
  CHECK(value_of("32 × 32 × 2 B = 2 KiB", "KiB") == 2);
  CHECK(value_of("32 × 32 × 2 B", "KiB") == 2);
  CHECK(value_of("4096*4096*2 B", "MiB") == 32);
  CHECK(value_of("4096 · 4096 · 2 B", "MiB") == 32);
  CHECK(value_of("4096 ⋅ 4096 ÷ 2 B", "MiB") == 8);
  CHECK(value_of("4096x4096x2 B", "MiB") == 32);
  CHECK(value_of("2^25 B = 32 MiB", "MiB") == 32);
  CHECK(value_of("2^{25} B", "MiB") == 32);
  CHECK(value_of("2**25 B", "MiB") == 32);
  CHECK(value_of("2²⁵ B", "MiB") == 32);
  CHECK(value_of("10⁻³ s", "ms") == exactly(1));
  CHECK(value_of("3.35 \\times 10^{12} B/s", "TB/s") == exactly(3.35));
  CHECK(value_of("3.35 \\cdot 10^12 B/s", "TB/s") == exactly(3.35));
  CHECK(value_of("3.35×10¹² B/s", "TB/s") == exactly(3.35));
  CHECK(value_of("N/T ＝ 4096/32 ＝ 128", "") == 128);
  CHECK(value_of("4096/32 ≈ 128", "") == 128);
  CHECK(value_of("4096/32 → 128", "") == 128);
  CHECK(value_of("4096/32 -> 128", "") == 128);
  CHECK(value_of("4096/32 => 128", "") == 128);
  CHECK(value_of("T = 32 时，4096/32 = 128 次", "") == 128);
  // Nothing after the last =: the reading before it.
  CHECK(value_of("4096/32 =", "") == 128);
  // An = in parentheses is an aside.
  CHECK(value_of("128 (N/T, T = 32)", "") == 128);
  CHECK(value_of("3.35 TB/s（≈ 3350 GB/s）", "TB/s") == exactly(3.35));
  // Unbalanced parentheses: every = counts.
  CHECK(value_of("(T = 32) = 128 (", "") == 128);
  // Only the first paragraph: a later = in an explanation is no answer.
  CHECK(value_of("3.35 TB/s\n\nbecause 5 × 0.67 = 3.35e3 GB/s... no, = 7", "TB/s") ==
        exactly(3.35));
  CHECK(value_of("4096 × 4096 × 2 B\n= 32 MiB", "MiB") == 32);
}

TEST_CASE("read_quantity: separators; thousands versus decimal comma", "[quantity]") {
  struct row {
    std::string answer;
    double value;
  };
  for (const row& r : std::vector<row>{{"1,024", 1024},
                                       {"33,554,432", 33554432},
                                       {"33,554,432.5", 33554432.5},
                                       {"3,35", 3.35},
                                       {"1,5", 1.5},
                                       {"0,125", 0.125},
                                       {"4096,5", 4096.5},
                                       {"3,350", 3350},
                                       {"33.554.432", 33554432},
                                       {"3.350", 3.35},
                                       {"33_554_432", 33554432},
                                       {"1_0", 10},
                                       {"33'554'432", 33554432},
                                       {"4\u2009096", 4096},
                                       {"4\u202F096", 4096},
                                       {"32 768", 32},  // an ASCII space separates numbers
                                       {"32, 64", 32},
                                       {"32，因为", 32},
                                       {"32.", 32},
                                       {".5", 0.5},
                                       {"1,234,5", 1234}}) {
    CHECK(value_of(r.answer, "") == exactly(r.value));
  }
  CHECK(value_of("3,350 GB/s", "TB/s") == exactly(3.35));
}

TEST_CASE("read_quantity: digits inside words are not the number", "[quantity]") {
  CHECK(value_of("H100: 3.35 TB/s", "TB/s") == exactly(3.35));
  CHECK(value_of("Hopper (H100, sm_90): 3.35 TB/s", "TB/s") == exactly(3.35));
  CHECK(value_of("BF16: 4096 × 4096 × 2 B", "MiB") == 32);
  CHECK(value_of("FP8 32", "") == 32);
  CHECK(value_of("A100 4", "") == 4);
  CHECK(value_of("v1.2 4", "") == 4);
  CHECK(value_of("sm_90: 4", "") == 4);
  CHECK(value_of("x86 4", "") == 4);
  // The first number wins: the A100's figure here.
  CHECK(value_of("A100 1.5 TB/s, H100 3.35 TB/s", "TB/s") == exactly(1.5));
}

TEST_CASE("read_quantity: signs and negative numbers", "[quantity]") {
  CHECK(value_of("-32", "MiB") == -32);
  CHECK(value_of("−32 MiB", "MiB") == -32);
  CHECK(value_of("+32", "MiB") == 32);
  CHECK(value_of("-3.35e12 B/s", "TB/s") == exactly(-3.35));
  CHECK(value_of("about -0.5", "") == -0.5);
  CHECK(read_quantity("−32 MiB", "MiB").quoted == "−32 MiB");
}

TEST_CASE("read_quantity: MB against MiB notes the other family", "[quantity]") {
  const auto q = read_quantity("32 MB", "MiB");
  REQUIRE(q.ok());
  CHECK(q.value == exactly(32e6 / mib));
  REQUIRE(q.other_family_value);
  CHECK(*q.other_family_value == exactly(32));
  CHECK(q.family_note == "1 MB = 10^6 B, 1 MiB = 2^20 B");
  const auto t = read_quantity("3.35 TiB/s", "TB/s");
  REQUIRE(t.other_family_value);
  CHECK(*t.other_family_value == exactly(3.35));
  CHECK(t.family_note == "1 TB = 10^12 B, 1 TiB = 2^40 B");
  CHECK_FALSE(read_quantity("32", "MiB").other_family_value);
  CHECK_FALSE(read_quantity("32M", "MiB").other_family_value);
  CHECK_FALSE(read_quantity("2048 B", "KiB").other_family_value);
}

TEST_CASE("describe_reading and describe_error, in en and zh", "[quantity]") {
  using grader::describe_error;
  using grader::describe_reading;
  CHECK(describe_reading(read_quantity("3350 GB/s", "TB/s"), "TB/s", lang::en) ==
        "\"3350 GB/s\" = 3.35 TB/s");
  CHECK(describe_reading(read_quantity("3350 GB/s", "TB/s"), "TB/s", lang::zh) ==
        "“3350 GB/s” = 3.35 TB/s");
  CHECK(describe_reading(read_quantity("3.35 TB/s", "TB/s"), "TB/s", lang::en) == "\"3.35 TB/s\"");
  CHECK(describe_reading(read_quantity("19", "TB/s"), "TB/s", lang::en) ==
        "\"19\" (read as 19 TB/s)");
  CHECK(describe_reading(read_quantity("19", "TB/s"), "TB/s", lang::zh) == "“19”（按 19 TB/s 读）");
  CHECK(describe_reading(read_quantity("5 sectors", "sectors"), "sectors", lang::en) ==
        "\"5 sectors\"");
  CHECK(describe_reading(read_quantity("5", ""), "", lang::en) == "\"5\"");
  CHECK(describe_reading(read_quantity("50%", ""), "", lang::en) == "\"50%\" = 0.5");
  CHECK(describe_error(read_quantity("32 GB/s", "MiB"), "MiB", lang::en) ==
        "\"32 GB/s\" is a rate, the question asks for bytes (MiB)");
  CHECK(describe_error(read_quantity("32 GB/s", "MiB"), "MiB", lang::zh) ==
        "“32 GB/s”是速率，题目问的是字节数（MiB）");
  CHECK(describe_error(read_quantity("3.35 TB", "TB/s"), "TB/s", lang::en) ==
        "\"3.35 TB\" is a number of bytes, the question asks for a rate (TB/s)");
  CHECK(describe_error(read_quantity("50%", "MiB"), "MiB", lang::en) ==
        "\"50%\" is a percentage, the question asks for bytes (MiB)");
  CHECK(describe_error(read_quantity("128 B", "sectors"), "sectors", lang::en) ==
        "\"128 B\" is a number of bytes, the question asks for a count (sectors)");
  CHECK(describe_error(read_quantity("4 GB", ""), "", lang::en) ==
        "\"4 GB\" is a number of bytes, the question asks for a plain number");
  CHECK(describe_error(read_quantity("1e309", ""), "", lang::en) ==
        "\"1e309\" is not a finite number");
  CHECK(describe_error(read_quantity("1e309", ""), "", lang::zh) == "“1e309”不是有限的数");
  CHECK(describe_error(read_quantity("fast", ""), "", lang::en) == "needs a number, got \"fast\"");
  CHECK(describe_error(read_quantity("3~4", "TB/s"), "TB/s", lang::en) ==
        "\"3~4\" can be read more than one way; write one number and its unit (TB/s)");
  CHECK(grader::format_number(0.0035) == "0.0035");
  CHECK(grader::format_number(32.043457031) == "32.0435");
  CHECK(grader::format_number(3.35e12) == "3.35e+12");
}

// ---- never throws, stays linear

TEST_CASE("read_quantity never throws on random input", "[quantity]") {
  std::mt19937 rng(20240513);
  const std::vector<std::string> pieces = {
      "3",  "35",  ".",       ",",      "_",    "'",        "e",    "E",     "-",
      "+",  "−",   "^",       "**",     "×",    "x",        "/",    "÷",     "=",
      "≈",  "→",   "->",      "(",      ")",    "（",       "）",   "~",     "～",
      "到", "±",   " ",       "\u2009", "\n",   "\n\n",     "MiB",  "GB/s",  "T",
      "M",  "k",   "兆",      "万",     "亿",   "%",        "H100", "sm_90", "¹²",
      "⁻",  "nan", "inf",     "∞",      "\xff", "\xe4\xb8", "０",   "＝",    "TFLOPs",
      "s",  "次",  "\\times", "{",      "}",    "1e309",    "0"};
  for (int n = 0; n < 20000; ++n) {
    std::string s;
    const int len = static_cast<int>(rng() % 12);
    for (int i = 0; i < len; ++i) s += pieces[rng() % pieces.size()];
    if (n % 4 == 0)  // raw bytes too
      for (int i = 0; i < len; ++i) s += static_cast<char>(rng() % 256);
    for (const std::string key : {"", "MiB", "TB/s", "%", "ms", "sectors", "bananas"}) {
      INFO("answer: " << s << "  key: " << key);
      grader::quantity_result q;
      REQUIRE_NOTHROW(q = read_quantity(s, key));
      if (q.ok()) CHECK(std::isfinite(q.value));
      REQUIRE_NOTHROW(grader::describe_error(q, key, lang::zh));
      REQUIRE_NOTHROW(grader::describe_reading(q, key, lang::en));
    }
  }
}

TEST_CASE("read_quantity on megabyte answers finishes (linear time)", "[quantity]") {
  const size_t mb = 1 << 20;
  auto repeat = [&](const std::string& unit) {
    std::string s;
    while (s.size() < mb) s += unit;
    return s;
  };
  for (const std::string& s : {repeat("1"), repeat("1,000"), repeat("="), repeat("("),
                               repeat("H100 "), repeat("1 = "), repeat("2×"), repeat("3~"),
                               repeat("\u2009"
                                      "123"),
                               repeat("万"), repeat("\xff"), repeat("x"), repeat("MiB "),
                               repeat("1."), repeat("-"), repeat("1e"), repeat("^2")}) {
    grader::quantity_result q;
    REQUIRE_NOTHROW(q = read_quantity(s, "MiB"));
    if (q.ok()) CHECK(std::isfinite(q.value));
    CHECK(q.quoted.size() <= 60 * 4 + 3);
  }
  CHECK(value_of("32 MiB " + repeat("words "), "MiB") == 32);
}

// ---- grading number parts

namespace {

grader::key_part number_key(const std::string& id, double value, double tolerance,
                            const std::string& unit) {
  grader::key_part k;
  k.id = id;
  k.item = id.substr(0, id.find('.'));
  k.type = "number";
  k.points = 1;
  k.value = value;
  k.tolerance = tolerance;
  k.unit = unit;
  return k;
}

grader::key_part q2f() {
  grader::key_part k = number_key("q2.f", 3.35, 0.35, "TB/s");
  k.outside_lo = 1;
  k.outside_hi = 10;
  k.veto_if_outside = "hbm-smem-bandwidth";
  return k;
}

grader::part_grade grade(const grader::key_part& k, const std::string& answer, lang l = lang::en) {
  grader::answers_doc doc;
  grader::answer_part& p = doc.parts[k.id];
  p.id = k.id;
  p.line = 1;
  p.answer = answer;
  p.answer_line = 2;
  grader::answer_key key;
  key.parts.push_back(k);
  const auto grades = grader::grade_answers(doc, key, l);
  REQUIRE(grades.size() == 1);
  return grades.front();
}

}  // namespace

TEST_CASE("grade_answers: 3350 GB/s and 约 33.6 MB earn full marks", "[quantity]") {
  for (const std::string right :
       {"3350 GB/s", "3.35 TB/s", "3.35", "H100: 3.35 TB/s", "3.35e12 B/s", "3.35×10^12 B/s",
        "~3.35TB/s", "3,35", "3.0", "3.7 TB/s", "3350G/s"}) {
    INFO("answer: " << right);
    const auto g = grade(q2f(), right);
    CHECK(g.points == 1);
    CHECK(g.feedback.empty());
    CHECK(g.vetoes.empty());
  }
  for (const std::string right :
       {"约 33.6 MB", "32", "32 MiB", "2^25 B", "33,554,432 B", "4096 × 4096 × 2 B = 32 MiB", "32M",
        "0.03125 GiB", "32768 KiB"}) {
    INFO("answer: " << right);
    const auto g = grade(number_key("q1.b", 32, 0.5, "MiB"), right);
    CHECK(g.points == 1);
    CHECK(g.feedback.empty());
  }
  CHECK(grade(number_key("q2.d", 128, 0, "times"), "4096/32 = 128").points == 1);
  CHECK(grade(number_key("q2.d", 128, 0, "times"), "128 次").points == 1);
  CHECK(grade(number_key("q2.b", 4, 0, "sectors"), "4 sectors").points == 1);
  CHECK(grade(number_key("q2.b", 4, 0, "sectors"), "4 个 sector").points == 1);
  CHECK(grade(number_key("q2.b", 4, 0, ""), "4.0").points == 1);
}

TEST_CASE("grade_answers: a wrong number quotes the student and the key's unit", "[quantity]") {
  const auto g = grade(q2f(), "3.5 GB/s");
  CHECK(g.points == 0);
  CHECK(g.feedback == "q2.f: you wrote \"3.5 GB/s\" = 0.0035 TB/s; wrong value");
  REQUIRE(g.vetoes.size() == 1);
  CHECK(g.vetoes[0].id == "hbm-smem-bandwidth");
  CHECK(g.vetoes[0].reason ==
        "q2.f: \"3.5 GB/s\" = 0.0035 TB/s is off by at least an order of magnitude");
  const auto zh = grade(q2f(), "3.5 GB/s", lang::zh);
  CHECK(zh.feedback == "q2.f：你写的是 “3.5 GB/s” = 0.0035 TB/s，数值不对");
  CHECK(zh.vetoes[0].reason == "q2.f：“3.5 GB/s” = 0.0035 TB/s 的量级不对（至少差一个数量级）");

  const auto far = grade(q2f(), "3350 TB/s");
  CHECK(far.feedback == "q2.f: you wrote \"3350 TB/s\"; wrong value");
  REQUIRE(far.vetoes.size() == 1);
  CHECK(far.vetoes[0].reason == "q2.f: \"3350 TB/s\" is off by at least an order of magnitude");
  const auto bare = grade(q2f(), "3350");
  REQUIRE(bare.vetoes.size() == 1);
  CHECK(bare.vetoes[0].reason ==
        "q2.f: \"3350\" (read as 3350 TB/s) is off by at least an order of magnitude");
  // Wrong but plausible: no veto.
  const auto near = grade(q2f(), "2 TB/s");
  CHECK(near.points == 0);
  CHECK(near.vetoes.empty());
  CHECK(grade(q2f(), "2000 GB/s").vetoes.empty());
  CHECK(grade(q2f(), "11 TB/s").vetoes.size() == 1);
  CHECK(grade(q2f(), "19").vetoes.size() == 1);

  const auto count = grade(number_key("q2.b", 4, 0, "sectors"), "5 sectors");
  CHECK(count.feedback == "q2.b: you wrote \"5 sectors\"; wrong value");
  CHECK(grade(number_key("q.n", 4, 0, ""), "5").feedback == "q.n: you wrote \"5\"; wrong value");
  CHECK(grade(number_key("q.n", 32, 0.5, "MiB"), "33").feedback ==
        "q.n: you wrote \"33\" (read as 33 MiB); wrong value");
  CHECK(grade(number_key("q.n", 32, 0.5, "MiB"), "33", lang::zh).feedback ==
        "q.n：你写的是 “33”（按 33 MiB 读），数值不对");
  CHECK(grade(q2f(), "19", lang::zh).vetoes.at(0).reason ==
        "q2.f：“19”（按 19 TB/s 读） 的量级不对（至少差一个数量级）");
}

TEST_CASE("grade_answers: MB for MiB loses the points, with a note", "[quantity]") {
  const auto g = grade(number_key("q1.b", 32, 0.5, "MiB"), "32 MB");
  CHECK(g.points == 0);
  CHECK(g.feedback ==
        "q1.b: you wrote \"32 MB\" = 30.5176 MiB; wrong value (note: 1 MB = 10^6 B, 1 MiB = 2^20 "
        "B)");
  CHECK(grade(number_key("q1.b", 32, 0.5, "MiB"), "32 MB", lang::zh).feedback ==
        "q1.b：你写的是 “32 MB” = 30.5176 MiB，数值不对（注意 1 MB = 10^6 B, 1 MiB = 2^20 B）");
  // No note when neither reading is right.
  CHECK(grade(number_key("q1.b", 32, 0.5, "MiB"), "64 MB").feedback ==
        "q1.b: you wrote \"64 MB\" = 61.0352 MiB; wrong value");
}

TEST_CASE("grade_answers: a wrong dimension or an unreadable number never raises the veto",
          "[quantity]") {
  const auto rate = grade(number_key("q1.b", 32, 0.5, "MiB"), "32 GB/s");
  CHECK(rate.points == 0);
  CHECK(rate.feedback == "q1.b: \"32 GB/s\" is a rate, the question asks for bytes (MiB)");
  CHECK(grade(number_key("q1.b", 32, 0.5, "MiB"), "32 GB/s", lang::zh).feedback ==
        "q1.b：“32 GB/s”是速率，题目问的是字节数（MiB）");
  for (const std::string unreadable :
       {"3.35 TB", "3350 GB", "1e309", "NaN", "inf", "fast", "3~4 TB/s", "50%", "3 ms"}) {
    INFO("answer: " << unreadable);
    const auto g = grade(q2f(), unreadable);
    CHECK(g.points == 0);
    CHECK_FALSE(g.feedback.empty());
    CHECK(g.vetoes.empty());
  }
  CHECK(grade(q2f(), "3.35 TB").feedback ==
        "q2.f: \"3.35 TB\" is a number of bytes, the question asks for a rate (TB/s)");
  CHECK(grade(q2f(), "1e309").feedback == "q2.f: \"1e309\" is not a finite number");
  CHECK(grade(q2f(), "fast").feedback == "q2.f: needs a number, got \"fast\"");
  CHECK(grade(q2f(), "fast", lang::zh).feedback == "q2.f：需要一个数字，写的是“fast”");
}

TEST_CASE("grade_answers: relative_tolerance widens the absolute tolerance", "[quantity]") {
  grader::key_part k = number_key("q.r", 100, 1, "GB/s");
  k.relative_tolerance = 0.05;
  CHECK(grade(k, "106 GB/s").points == 1);
  CHECK(grade(k, "0.094 TB/s").points == 1);
  CHECK(grade(k, "106.1 GB/s").points == 0);
  CHECK(grade(k, "93.9").points == 0);
}

// ---- the key's units

namespace {
grader::answer_key key_from(const std::string& json) {
  temp_dir dir;
  std::ofstream(dir.path / "key.json") << json;
  return grader::load_answer_key(dir.path / "key.json");
}
}  // namespace

TEST_CASE("load_answer_key reads units and relative_tolerance, refuses unknown units",
          "[quantity]") {
  const auto key = key_from(
      R"({"parts": [{"id": "q.n", "item": "q", "type": "number", "points": 1, "value": 3.35,
          "tolerance": 0, "relative_tolerance": 0.1, "unit": "TB/s"}]})");
  REQUIRE(key.parts.size() == 1);
  CHECK(key.parts[0].relative_tolerance == 0.1);
  CHECK(key.parts[0].unit == "TB/s");
  for (const std::string unit : {"bananas", "M", "MiBs"}) {
    INFO("unit: " << unit);
    CHECK_THROWS_WITH(
        key_from(R"({"parts": [{"id": "q.n", "item": "q", "type": "number", "points": 1,
                     "value": 3, "tolerance": 0, "unit": ")" +
                 unit + R"("}]})"),
        Catch::Matchers::Contains("part q.n has unit \"" + unit + "\""));
  }
  CHECK_THROWS_WITH(key_from(R"({"parts": [{"id": "q.n", "item": "q", "type": "number", "points": 1,
                   "value": 3, "tolerance": 0, "relative_tolerance": -1}]})"),
                    Catch::Matchers::Contains("part q.n has a negative tolerance"));
}

TEST_CASE("lesson13's key: every number part has a unit the reader knows", "[quantity]") {
  const auto key = grader::load_answer_key(std::filesystem::path(COURSE_SOURCE_DIR) /
                                           "solutions/lesson13/answer_key.json");
  int numbers = 0;
  for (const auto& p : key.parts) {
    if (p.type != "number") continue;
    ++numbers;
    INFO("part " << p.id << " unit " << p.unit);
    CHECK(parse_unit(p.unit));
  }
  CHECK(numbers == 6);
}

// ---- magnitudes in free text (find_magnitudes), what "{ratio>=50}" claims read

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
