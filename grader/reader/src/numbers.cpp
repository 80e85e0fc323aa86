// Numbers as students write them (numbers.hpp): digits with separators, decimal commas,
// e-notation, powers, Chinese multipliers, and the operators and ranges between them.
#include <algorithm>
#include <charconv>
#include <cmath>
#include <string>
#include <utility>

#include "numbers.hpp"

namespace grader::reader {

int superscript_digit(char32_t c) {
  switch (c) {
    case 0x2070:
      return 0;
    case 0xB9:
      return 1;
    case 0xB2:
      return 2;
    case 0xB3:
      return 3;
    default:
      return c >= 0x2074 && c <= 0x2079 ? static_cast<int>(c - 0x2070) : -1;
  }
}

bool starts_number(const std::vector<cp>& cps, size_t i) {
  if (i >= cps.size()) return false;
  if (is_digit(cps[i].c)) return true;
  return cps[i].c == '.' && i + 1 < cps.size() && is_digit(cps[i + 1].c);
}

namespace {

// Exactly three digits at i, then no fourth.
bool three_digits(const std::vector<cp>& cps, size_t i) {
  return i + 3 <= cps.size() && is_digit(cps[i].c) && is_digit(cps[i + 1].c) &&
         is_digit(cps[i + 2].c) && (i + 3 == cps.size() || !is_digit(cps[i + 3].c));
}

// Saturating decimal digits at i; `end` moves past them.
long long read_int(const std::vector<cp>& cps, size_t& i) {
  long long v = 0;
  for (; i < cps.size() && is_digit(cps[i].c); ++i)
    v = std::min<long long>(v * 10 + (cps[i].c - '0'), 1'000'000'000);
  return v;
}

// The digits of the number at cps[i] (its sign already in `text`) as C text: "33554432"
// for 33,554,432, "3.35" for 3,35, "3.35e12"; i moves past them.
void read_digits(const std::vector<cp>& cps, size_t& i, std::string& text) {
  // Integer part; separators group digits only after a first group of 1-3 digits
  // that is not a lone 0 (0,125 is a decimal comma).
  const size_t int_begin = i;
  while (i < cps.size() && is_digit(cps[i].c)) text += static_cast<char>(cps[i++].c);
  const size_t first_group = i - int_begin;
  const bool can_group =
      first_group >= 1 && first_group <= 3 && !(first_group == 1 && cps[int_begin].c == '0');
  bool grouped_comma = false;
  if (first_group > 0) {
    // 33.554.432: two or more dot groups are thousands; one is a decimal point.
    size_t dots = 0;
    for (size_t j = i; j < cps.size() && cps[j].c == '.' && three_digits(cps, j + 1); j += 4)
      ++dots;
    const bool dot_groups = can_group && dots >= 2 &&
                            !(i + dots * 4 < cps.size() && cps[i + dots * 4].c == '.' &&
                              i + dots * 4 + 1 < cps.size() && is_digit(cps[i + dots * 4 + 1].c));
    for (bool more = true; more && i < cps.size();) {
      const char32_t c = cps[i].c;
      more = false;
      if (c == '_' && i + 1 < cps.size() && is_digit(cps[i + 1].c)) {
        for (++i; i < cps.size() && is_digit(cps[i].c); ++i) text += static_cast<char>(cps[i].c);
        more = true;
      } else if (can_group &&
                 (c == ',' || c == '\'' || is_group_space(c) || (c == '.' && dot_groups)) &&
                 three_digits(cps, i + 1)) {
        grouped_comma = grouped_comma || c == ',';
        for (size_t k = 1; k <= 3; ++k) text += static_cast<char>(cps[i + k].c);
        i += 4;
        more = true;
      }
    }
  }
  // Fraction: a decimal point, or a decimal comma when no comma grouped thousands.
  if (i + 1 < cps.size() && is_digit(cps[i + 1].c) &&
      (cps[i].c == '.' || (cps[i].c == ',' && !grouped_comma && first_group > 0))) {
    text += '.';
    for (++i; i < cps.size() && is_digit(cps[i].c); ++i) text += static_cast<char>(cps[i].c);
  }
  // e-notation, attached: 3.35e12, 1E-3.
  if (i + 1 < cps.size() && (cps[i].c == 'e' || cps[i].c == 'E')) {
    size_t j = i + 1;
    std::string exp = "e";
    if (cps[j].c == '-' || cps[j].c == '+') exp += static_cast<char>(cps[j++].c);
    if (j < cps.size() && is_digit(cps[j].c)) {
      const long long e = read_int(cps, j);
      text += exp + std::to_string(e);
      i = j;
    }
  }
}

// The value of that text; false when it is none. Out of range: infinite, or 0.
bool to_double(std::string text, double* v) {
  if (text.empty() || text == "-") text.insert(text.size(), "0");
  if (text[text.size() - 1] == '.') text += '0';
  if (text.starts_with('.') || text.starts_with("-."))
    text.insert(text.starts_with('-') ? 1 : 0, "0");
  const auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), *v);
  if (ec == std::errc::result_out_of_range) {
    // Too large, or so small it is 0: which one, from the digits before the point.
    const size_t point = text.find('.');
    const std::string whole = text.substr(0, std::min(point, text.find('e')));
    const bool large =
        whole.find_first_not_of("-0") != std::string::npos && text.find("e-") == std::string::npos;
    *v = large ? HUGE_VAL : 0.0;
  } else if (ec != std::errc()) {
    return false;
  }
  return true;
}

// A power after the number: 2^25, 10^{12}, 2**25, 10¹², 10⁻³; i moves past it.
void read_power(const std::vector<cp>& cps, size_t& i, double& v) {
  size_t j = i;
  while (j < cps.size() && is_inline_space(cps[j].c)) ++j;
  const bool caret = j < cps.size() && cps[j].c == '^';
  const bool stars = j + 1 < cps.size() && cps[j].c == '*' && cps[j + 1].c == '*';
  if (caret || stars) {
    size_t k = j + (caret ? 1 : 2);
    while (k < cps.size() && is_inline_space(cps[k].c)) ++k;
    const bool brace = k < cps.size() && cps[k].c == '{';
    if (brace) ++k;
    const bool negative = k < cps.size() && cps[k].c == '-';
    if (k < cps.size() && (cps[k].c == '-' || cps[k].c == '+')) ++k;
    if (k < cps.size() && is_digit(cps[k].c)) {
      const long long e = read_int(cps, k);
      if (brace && k < cps.size() && cps[k].c == '}') ++k;
      v = std::pow(v, static_cast<double>(negative ? -e : e));
      i = k;
    }
  } else if (i < cps.size() && (superscript_digit(cps[i].c) >= 0 || cps[i].c == 0x207B)) {
    const bool negative = cps[i].c == 0x207B;
    size_t k = i + (negative ? 1 : 0);
    long long e = 0;
    bool any = false;
    for (; k < cps.size() && superscript_digit(cps[k].c) >= 0; ++k, any = true)
      e = std::min<long long>(e * 10 + superscript_digit(cps[k].c), 1'000'000'000);
    if (any) {
      v = std::pow(v, static_cast<double>(negative ? -e : e));
      i = k;
    }
  }
}

// Chinese multipliers, attached or after a space: 3.2万, 1.5 亿; i moves past them.
void read_multiplier(const std::vector<cp>& cps, size_t& i, double& v) {
  size_t j = i;
  while (j < cps.size() && is_inline_space(cps[j].c)) ++j;
  static const std::vector<std::pair<std::u32string, double>> multipliers = {
      {U"万亿", 1e12}, {U"十万", 1e5}, {U"百万", 1e6}, {U"千万", 1e7}, {U"万", 1e4}, {U"亿", 1e8}};
  for (const auto& [word, f] : multipliers) {
    bool match = j + word.size() <= cps.size();
    for (size_t k = 0; match && k < word.size(); ++k) match = cps[j + k].c == word[k];
    if (match) {
      v *= f;
      i = j + word.size();
      break;
    }
  }
}

}  // namespace

term_result read_term(const std::vector<cp>& cps, size_t i) {
  term_result r;
  std::string text;
  if (i < cps.size() && (cps[i].c == '-' || cps[i].c == '+')) {
    if (cps[i].c == '-') text += '-';
    ++i;
  }
  if (!starts_number(cps, i)) return r;
  read_digits(cps, i, text);
  double v = 0;
  if (!to_double(std::move(text), &v)) return r;
  r.ok = true;
  read_power(cps, i, v);
  read_multiplier(cps, i, v);
  r.value = v;
  r.end = i;
  r.finite = std::isfinite(v);
  return r;
}

size_t skip_spaces(const std::vector<cp>& cps, size_t i) {
  while (i < cps.size() && is_inline_space(cps[i].c)) ++i;
  return i;
}

bool starts_with_ascii(const std::vector<cp>& cps, size_t i, std::string_view word) {
  if (i + word.size() > cps.size()) return false;
  for (size_t k = 0; k < word.size(); ++k)
    if (cps[i + k].c != static_cast<unsigned char>(word[k])) return false;
  return true;
}

bool read_operator(const std::vector<cp>& cps, size_t i, char* op, size_t* next) {
  i = skip_spaces(cps, i);
  if (i >= cps.size()) return false;
  const char32_t c = cps[i].c;
  size_t after = 0;
  if (c == 0xD7 || c == '*' || c == 0xB7 || c == 0x22C5 || c == 0x2219 || c == 'x' || c == 'X') {
    *op = '*';
    after = i + 1;
  } else if (c == '/' || c == 0xF7) {
    *op = '/';
    after = i + 1;
  } else if (starts_with_ascii(cps, i, "\\times") || starts_with_ascii(cps, i, "\\cdot")) {
    *op = '*';
    after = i + (cps[i + 1].c == 't' ? 6 : 5);
  } else {
    return false;
  }
  after = skip_spaces(cps, after);
  if (!starts_number(cps, after)) return false;
  *next = after;
  return true;
}

bool range_follows(const std::vector<cp>& cps, size_t i, size_t* second) {
  i = skip_spaces(cps, i);
  if (i >= cps.size()) return false;
  const char32_t c = cps[i].c;
  size_t after = 0;
  if (c == '~' || c == '-' || c == 0x2013 || c == 0x2014 || c == 0x301C || c == U'到' || c == U'至')
    after = i + 1;
  else if (starts_with_ascii(cps, i, "to") && !(i + 2 < cps.size() && is_word(cps[i + 2].c)))
    after = i + 2;
  else
    return false;
  after = skip_spaces(cps, after);
  if (!starts_number(cps, after)) return false;
  *second = after;
  return true;
}

}  // namespace grader::reader
