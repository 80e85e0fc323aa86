// Unit tests for numbers with units in answers (read_quantity: quantity.cpp, numbers.cpp).
//   build/dev/bin/grader_reader_tests "[quantity]"
#include <catch2/catch.hpp>

#include <cmath>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "quantity_test.hpp"

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
