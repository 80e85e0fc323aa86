// Numbers and units over code points (normalise.hpp's code_points), for read_quantity and
// find_magnitudes. A hand-written scanner, not std::regex: answers can be a megabyte long.
#pragma once

#include <string_view>
#include <vector>

#include "grader/reader/reader.hpp"
#include "normalise.hpp"
#include "utf8.hpp"

namespace grader::reader {

// Spaces inside one line; thin and no-break ones also group digits (33 554 432).
inline bool is_group_space(char32_t c) {
  return c == 0xA0 || c == 0x2007 || c == 0x2009 || c == 0x202F;
}
inline bool is_inline_space(char32_t c) {
  return c == ' ' || c == '\t' || is_group_space(c) || (c >= 0x2000 && c <= 0x200A);
}
// 0-9 for ⁰¹²³⁴⁵⁶⁷⁸⁹, else -1.
int superscript_digit(char32_t c);

// ---- units (units.cpp)

// The longest unit spelled at cps[i...], or none. Spaces next to '/' are skipped
// ("TB / s"); a unit ending in a letter must not run on into a letter or digit.
struct unit_match {
  unit_info info;
  size_t end = 0;  // one past its last code point
  bool found = false;
};
unit_match match_unit(const std::vector<cp>& cps, size_t i);

// ---- numbers (numbers.cpp)

struct term_result {
  double value = 0;
  size_t end = 0;
  bool ok = false;  // a term was there
  bool finite = true;
};

bool starts_number(const std::vector<cp>& cps, size_t i);
size_t skip_spaces(const std::vector<cp>& cps, size_t i);
bool starts_with_ascii(const std::vector<cp>& cps, size_t i, std::string_view word);
// One number with its separators, exponent, power and multiplier: "-33,554,432",
// "3,35", "3.35e12", "2^25", "10¹²", "1.5亿".
term_result read_term(const std::vector<cp>& cps, size_t i);
// After a term: an operator (× x * · ⋅ / ÷ \times \cdot) and the start of the next term.
// `*op` is '*' or '/'; `*next` where the next term starts.
bool read_operator(const std::vector<cp>& cps, size_t i, char* op, size_t* next);
// A range or a second reading after a number: "3~4", "3 - 4", "3 到 4", "3 to 4".
bool range_follows(const std::vector<cp>& cps, size_t i, size_t* second);

}  // namespace grader::reader
