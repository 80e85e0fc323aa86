// Claims: does a free-text answer (zh or en) make a statement, deny it, or not say it?
// The answer key's explanation key points, misconceptions and veto_lifted_by use them
// (docs/answer_key.schema.json); grader/tests/test_claims.cpp shows what they catch:
//   build/bin/grader_tests "[claims]"
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
// the sentence states, read by find_magnitudes (quantity.hpp): "thousands of times HBM's
// bandwidth", "高一个数量级" (10), "same order of magnitude", "同一数量级" (1). It is negated
// like any match ("not the same order of magnitude", "不是一个数量级").
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
#pragma once

#include <cstdint>
#include <nlohmann/json_fwd.hpp>
#include <string>
#include <string_view>
#include <vector>

#include "grader/lesson/quantity.hpp"

namespace grader {

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
  struct span {
    size_t b = 0, e = 0;
  };
  // A negation word, or a phrase that calls a statement wrong.
  struct cue {
    span at;
    enum kind_t { before, weak, unchanged_before, after, refute_before, refute_after } kind;
    size_t follower = 0;  // weak ("not only", "不仅"): negates only what starts here
  };
  struct sentence {
    span whole;
    std::vector<size_t> clauses;  // clause starts: , : ( and but so because 但 所以 而 ...
    // Starts of the parts a contrast or a colon divides (while, but, whereas, 而, 但, :):
    // each says something of its own, so a claim's words never meet across them.
    std::vector<size_t> parts;
    std::vector<cue> cues;
  };
  enum class verdict { absent, stated, denied };
  // one_part: the claim's words must meet within one part (misconceptions and lifts).
  verdict judge(const sentence& s, const claim& c, bool one_part = false) const;
  std::string quote(const sentence& s) const;

  std::string original_;
  std::string norm_;              // lower-cased ASCII, folded full-width forms and spaces
  std::vector<uint32_t> origin_;  // byte of norm_ -> byte of original_ (one more at the end)
  std::vector<uint32_t> units2_;  // words before each byte of norm_, times 2 (汉字 = 1)
  std::vector<sentence> sentences_;
  std::vector<magnitude> magnitudes_;  // in norm_, in order
};

// At most `max_bytes` bytes of s, cut at a UTF-8 character boundary, "…" when cut.
std::string quote_excerpt(std::string_view s, size_t max_bytes = 120);

}  // namespace grader
