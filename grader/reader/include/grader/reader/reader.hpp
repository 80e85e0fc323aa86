// The free-text reader: what a student's answer (zh or en) says. The exam's scorer
// (lesson/answers.cpp) calls only what this header declares:
//   - claims: does the text make a statement, deny it, or not say it (claim_text);
//   - quantities: the number with its unit, in the answer key's unit (read_quantity);
//   - magnitudes: "10×", "an order of magnitude", "几千倍" (find_magnitudes);
//   - messages for the feedback (describe_reading, describe_error, quote_excerpt).
// It reads no file and knows no lesson. Layer: above base (lang, one_line), below lesson.
// Tests: build/dev/bin/grader_reader_tests ("[claims]", "[quantity]"); how the lesson13
// key uses it: build/dev/bin/grader_tests "[claims]".
//
// A claim is a list of pattern groups; each group is a list of alternatives. It holds in a
// sentence when every group matches there, one match each, not overlapping, and in the
// claim's order where they fall in different clauses: "S and P are written to HBM" holds
// [[S, P], [HBM], [written, 写]]; "FLOPs stay O(N²d), memory drops to O(N)" does not hold
// [[reduce, 降], [FLOPs]]. Sentences end at . ! ? ; 。！？； and line breaks (not in 3.35,
// e.g., torch.compile, nor at a line break inside English prose); clauses at , : ( and but
// so because 但 而 所以 ... A question, a list of five or more short keywords, or a list of
// terms (items of at most four words with no verb, comparison, negation, relation or
// magnitude in them: "FLOPs, running max, concatenation", "- HBM 带宽瓶颈") states nothing.
//
// Magnitudes are claims too: an alternative "{ratio>=50}" (or >, <=, <) matches a magnitude
// the sentence states, read by find_magnitudes: "thousands of times HBM's bandwidth",
// "高一个数量级" (10), "same order of magnitude", "同一数量级" (1). It is negated like any
// match ("not the same order of magnitude", "不是一个数量级").
//
// Negation, by clause: a match is negated by a negation word (not, n't, no, never, without,
// rather than, instead of, 不, 没, 无, 非, 未; not 不同, 不断, 不变 ...) at most three words
// (six Chinese characters) before it in its clause, by "same"/"相同的" right before it, or
// by "stay the same", "unchanged", "不变", "减少不了" right after it; "not only", "不仅"
// negate only a match that starts with the "only". The claim is denied when its groups
// meet only through negated matches ("FA does not reduce FLOPs", "FA reduces HBM traffic,
// not FLOPs", "FLOPs are not reduced", "计算量没有减少"), or when the sentence calls it
// wrong ("a common misconception is that ...", "..., but it doesn't", "……是错的").
// Negation words inside an alternative ("not reduce", "不变") are part of the claim.
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

#include <memory>
#include <nlohmann/json_fwd.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "grader/base/i18n.hpp"
#include "grader/base/text.hpp"

namespace grader {

// ---- claims

// Every group must match; a group matches when any of its alternatives does. Alternatives
// are substrings (the stem "coalesc" matches "coalesced"), but one that starts with an
// ASCII letter or digit must start a word ("tile" is not in "utile"), and a short one (4
// characters or fewer, ending with a letter or digit) must be a whole word ("fa", "less").
// Spaces next to Chinese characters are ignored on both sides ("写回 HBM" == "写回HBM").
// Negation words inside an alternative ("not reduce", "不变") are part of the claim. A
// final '$' anchors an alternative to the end of a clause: "差不多$" matches "带宽差不多。"
// but not "差不多是 HBM 的 10 倍". "{ratio>=50}", "{ratio<2}" (also >, <=) match a magnitude
// the sentence states (find_magnitudes); make_claim refuses one it cannot read.
struct claim {
  std::vector<std::vector<std::string>> groups;  // normalised
  // A sentence holding any of these does not make the claim, whatever it matches: the
  // condition that turns a misconception into a truth ("the same only after rescaling").
  std::vector<std::string> unless;  // normalised
};

// A claim from the key's groups, normalised like the text. Throws std::invalid_argument
// on an empty group, or an alternative that is blank (it would match every answer).
claim make_claim(const std::vector<std::vector<std::string>>& groups);

// The key's "claims": [claim, ...], each claim either [[alt, ...], ...] (its groups) or
// {"all": [[alt, ...], ...], "unless": [alt, ...]}. Throws nlohmann::json::exception on a
// wrong type, std::invalid_argument as make_claim does, or on an empty list.
std::vector<claim> claims_from_json(const nlohmann::json& j);

enum class claim_status { absent, stated, denied };

struct claim_match {
  claim_status status = claim_status::absent;
  std::string sentence;  // the first sentence that states it (or, if none, denies it), trimmed
  std::string denial;    // find: the first sentence that denies one; find_point: see there
};

namespace reader {
struct text_index;  // the text normalised and split (src/sentences.hpp)
}

// A text split into sentences once, to test many claims against it. Never throws on
// content (any bytes, invalid UTF-8 included); time is linear in the text's length (times
// the number of alternatives).
class claim_text {
 public:
  explicit claim_text(std::string_view text);
  // Stated: some sentence states one of `any`. A question ("Does FA reduce FLOPs?") states
  // and denies nothing.
  claim_match find(const std::vector<claim>& any) const;
  claim_match find(const claim& c) const { return find(std::vector<claim>{c}); }
  // For an explanation's key point: stated when some sentence states one of the claims,
  // whatever else it denies ("torch.compile is easy but gives no low-level control").
  // `denial`: a sentence that states none and denies a claim that no sentence states ("It
  // is not memory-bound."; not "FA never writes S to HBM" beside "S is written to HBM").
  claim_match find_point(const std::vector<claim>& any) const;

 private:
  std::shared_ptr<const reader::text_index> text_;  // immutable: copies share it
};

// At most `max_bytes` bytes of s, cut at a UTF-8 character boundary, "…" when cut; on one
// line, safe for a terminal (base's one_line).
inline std::string quote_excerpt(std::string_view s, size_t max_bytes = 120) {
  if (s.size() <= max_bytes) return one_line(s);
  size_t cut = max_bytes;
  while (cut > 0 && (static_cast<unsigned char>(s[cut]) & 0xC0) == 0x80) --cut;
  return one_line(s.substr(0, cut)) + "…";
}

// ---- quantities

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
// no-break spaces; any other comma between digits is a decimal comma (3,35). Linear time;
// never throws.
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

// ---- messages for the grader's feedback, in `l`

// `"3350 GB/s" = 3.35 TB/s`, `"32 MiB"`, `"19" (read as 19 TB/s)`: what the student wrote
// and what it is in the key's unit.
std::string describe_reading(const quantity_result& q, std::string_view key_unit, lang l);
// Why an answer could not be read: `"32 GB/s" is a rate, the question asks for bytes (MiB)`.
std::string describe_error(const quantity_result& q, std::string_view key_unit, lang l);
// A number for a message: up to 6 significant digits (3.35, 0.0035, 3.35e+12).
std::string format_number(double x);

}  // namespace grader
