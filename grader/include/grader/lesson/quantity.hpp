// Numbers with units in students' answers ("3350 GB/s", "约 33.6 MB", "4096/32 = 128"),
// read and converted to the answer key's unit. Pure functions, no I/O; never throws.
// Tests: build/bin/grader_tests "[quantity]".
//
// Units (case-insensitive; full-width letters and digits are read as ASCII):
//   bytes    B byte bytes 字节 bit bits; SI prefixes k M G T P (10^3 steps; also 千 兆 吉 太 拍),
//            binary Ki Mi Gi Ti Pi (2^10 steps), kilobyte ... pebibyte. A lower-case b is a
//            byte too: the course never asks for bits, and students write "mb" loosely.
//   bytes/s  any byte unit with /s, /sec, /second, /秒, 每秒, "per second", or ps (GBps, Gbps)
//   s        s sec second(s) 秒, ms 毫秒, us µs μs 微秒, ns 纳秒, min 分钟
//   flop     FLOP, FLOPs (exactly that case) with SI prefixes; flop/s: FLOP/s, FLOPS, TFLOPS
//   count    no unit, or a count word (times 次 个 倍 sectors threads ...): dimension ""
//   %        percent: dimension "" with factor 0.01, so 50% against a count key reads 0.5
// Bare prefixes ("32M", "3.35T", "32兆", "4k") take the key's unit and its prefix family:
// "32M" is 32 MiB for a MiB key, 32 MB for an MB key, 32e6 for a count key; against a time
// key (or 兆 against a count key: 10^6 or 10^12?) they are ambiguous.
// Multipliers on the number: 万 (1e4), 亿 (1e8), 十万, 百万, 千万, 万亿, e-notation,
// 2^25, 10¹², "3.35 × 10^12" (× x * · ⋅ \times \cdot), division (4096/32).
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "grader/base/i18n.hpp"

namespace grader {

// What a unit measures and its size in that dimension's base unit (B, B/s, s, FLOP,
// FLOP/s, 1). "MiB" -> {"bytes", 1048576}; "TB/s" -> {"bytes/s", 1e12}; "%" -> {"", 0.01}.
struct unit_info {
  std::string dimension;  // "", "bytes", "bytes/s", "s", "flop", "flop/s"
  double factor = 1;
  bool binary = false;   // a Ki/Mi/Gi/Ti/Pi prefix: the family a bare prefix follows
  int prefix_power = 0;  // k = 1, M = 2, G = 3, T = 4, P = 5 (0: none)
  bool plain = false;    // no unit, or a count word: read in the key's unit
  bool bare = false;     // a prefix without its unit ("M", "T/s"), resolved against the key
  bool percent = false;
};

// A whole unit string, as an answer key writes it ("MiB", "TB/s", "", "sectors", "%").
// nullopt when it is no unit the reader knows, or a bare prefix.
std::optional<unit_info> parse_unit(std::string_view unit);

enum class quantity_error {
  none,
  no_number,        // no digits outside words (H100, BF16 are words)
  wrong_dimension,  // "32 GB/s" for a MiB key
  overflow_or_nan,  // 1e309, 1/0, NaN, inf, ∞
  ambiguous,        // a range (3~4, 3-4), or a bare prefix the key cannot settle
  bad_key_unit,     // the key's unit is not one parse_unit reads
};

struct quantity_result {
  quantity_error error = quantity_error::no_number;
  double value = 0;           // in the key's unit (when error is none)
  std::string quoted;         // the number and unit exactly as written ("3350 GB/s"); at most 60
                              // characters, then "…"; for no_number, the answer itself
  std::string unit;           // the student's unit as written ("GB/s"; "" when none)
  unit_info read_as;          // the student's unit, resolved against the key
  bool unit_assumed = false;  // no unit (or a count word): read in the key's unit
  // A byte prefix read in the other family (MB as MiB), and the note explaining the two
  // ("1 MB = 10^6 B, 1 MiB = 2^20 B"): a hint when only the other reading is right.
  std::optional<double> other_family_value;
  std::string family_note;
  bool ok() const { return error == quantity_error::none; }
};

// Reads the answer's number in `key_unit`. Only the first paragraph counts, and in it
// the text after the last '=', '≈', '→', '=>' or '->' outside parentheses (if that has a
// number; else the text before it): "4096/32 = 128" -> 128. There, the first number not
// inside a word (H100, sm_90) with its multipliers, operators and unit. Separators:
// 33,554,432 and 33.554.432 (groups of exactly three), 33_554_432, 33'554'432, thin or
// no-break spaces; any other comma between digits is a decimal comma (3,35). Linear time.
quantity_result read_quantity(std::string_view answer, std::string_view key_unit);

// A magnitude stated in free text: how many times one thing is another. "10×", "~10x",
// "ten times faster", "10-fold", "a factor of 10", "an order of magnitude", "two orders of
// magnitude", "thousands of times HBM's bandwidth", "10倍", "约十倍", "几千倍", "上千倍",
// "高一个数量级", "两个数量级", "十分之一" (a tenth is a factor of 10), "only 10% faster"
// (1.1); and sameness: "the same order of magnitude", "同一数量级", "是一个数量级" (1).
// Not a magnitude: products (4096×4096, 32 × n_heads), counts ("read 4096 times", "128
// 次"), "times" without a comparison after it. The factor is at least 1, as [low, high]:
// "几倍" is [2, 9], "orders of magnitude" [100, inf). Used by claims ("{ratio>=50}").
struct magnitude {
  size_t begin = 0, end = 0;  // bytes of the text
  double low = 1, high = 1;
};
// Every magnitude in `text`, in order, none overlapping. Linear time; never throws.
std::vector<magnitude> find_magnitudes(std::string_view text);

// Messages for the grader's feedback, in `l`.
// `"3350 GB/s" = 3.35 TB/s`, `"32 MiB"`, `"19" (read as 19 TB/s)`: what the student wrote
// and what it is in the key's unit.
std::string describe_reading(const quantity_result& q, std::string_view key_unit, lang l);
// Why an answer could not be read: `"32 GB/s" is a rate, the question asks for bytes (MiB)`.
std::string describe_error(const quantity_result& q, std::string_view key_unit, lang l);
// A number for a message: up to 6 significant digits (3.35, 0.0035, 3.35e+12).
std::string format_number(double x);

}  // namespace grader
