// The claims' own pieces (reader.hpp): magnitude patterns and the judge of one sentence.
#pragma once

#include <optional>
#include <string_view>

#include "sentences.hpp"

namespace grader::reader {

// "{ratio>=50}", "{ratio<2}": an alternative that a magnitude meets (find_magnitudes:
// "thousands of times", "10×", "同一数量级"). The whole of the magnitude's [low, high] must
// meet it: "几十倍" ([20, 90]) is not "{ratio>=50}".
struct ratio_condition {
  enum op_t { ge, gt, le, lt } op = ge;
  double bound = 0;
  bool holds(const magnitude& m) const {
    switch (op) {
      case ge:
        return m.low >= bound;
      case gt:
        return m.low > bound;
      case le:
        return m.high <= bound;
      case lt:
        return m.high < bound;
    }
    return false;
  }
};
constexpr std::string_view ratio_prefix = "{ratio";
// The condition an alternative spells, or nullopt (claims.cpp).
std::optional<ratio_condition> parse_ratio(std::string_view alt);

enum class verdict { absent, stated, denied };
// Whether the sentence states the claim (judge.cpp). one_part: the claim's words must
// meet within one part (misconceptions and lifts).
verdict judge(const text_index& t, const sentence& st, const claim& c, bool one_part = false);

}  // namespace grader::reader
