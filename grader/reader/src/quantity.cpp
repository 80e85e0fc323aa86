// Reading numbers with units out of students' answers (reader.hpp for the rules): where
// the answer's number is, and what it is in the key's unit.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "numbers.hpp"

namespace grader {
namespace {

using reader::code_points;
using reader::cp;
using reader::is_digit;
using reader::is_word;
using reader::match_unit;
using reader::range_follows;
using reader::read_operator;
using reader::read_term;
using reader::skip_spaces;
using reader::starts_number;
using reader::starts_with_ascii;
using reader::term_result;
using reader::unit_match;

// The answer's own bytes for cps[from, to), at most 60 code points; bad UTF-8 becomes
// U+FFFD so that the report's JSON stays valid.
std::string quote(std::string_view text, const std::vector<cp>& cps, size_t from, size_t to) {
  constexpr size_t most = 60;
  const size_t last = std::min(to, from + most);
  std::string out;
  for (size_t i = from; i < last; ++i) {
    const bool bad = cps[i].c == 0xFFFD && cps[i].end - cps[i].begin == 1;
    out += bad ? std::string_view("\xEF\xBF\xBD")
               : text.substr(cps[i].begin, cps[i].end - cps[i].begin);
  }
  if (to > last) out += "…";
  return out;
}

// The first paragraph: up to the first blank line.
std::string_view first_paragraph(std::string_view s) {
  size_t line = 0;
  bool seen = false;
  while (line < s.size()) {
    size_t nl = s.find('\n', line);
    if (nl == std::string_view::npos) nl = s.size();
    const bool blank =
        s.substr(line, nl - line).find_first_not_of(" \t\r") == std::string_view::npos;
    if (blank && seen) return s.substr(0, line);
    seen = seen || !blank;
    line = nl + 1;
  }
  return s;
}

// Where each '=' (≈ → ⇒ => ->) outside brackets lets a new reading start.
std::vector<size_t> reading_starts(const std::vector<cp>& cps, bool use_depth) {
  std::vector<size_t> starts{0};
  int depth = 0;
  for (size_t i = 0; i < cps.size(); ++i) {
    const char32_t c = cps[i].c;
    if (c == '(' || c == '[' || c == '{') ++depth;
    if ((c == ')' || c == ']' || c == '}') && depth > 0) --depth;
    if (use_depth && depth > 0) continue;
    size_t after = 0;
    if (c == '=' || c == 0x2248 || c == 0x2252 || c == 0x2243 || c == 0x2192 || c == 0x21D2)
      after = i + 1;
    else if (c == '-' && i + 1 < cps.size() && cps[i + 1].c == '>')
      after = i + 2;
    if (after == 0) continue;
    if (after < cps.size() && cps[after].c == '>') ++after;  // =>
    starts.push_back(after);
  }
  return starts;
}

bool balanced(const std::vector<cp>& cps) {
  int depth = 0;
  for (const cp& x : cps) {
    if (x.c == '(' || x.c == '[' || x.c == '{') ++depth;
    if (x.c == ')' || x.c == ']' || x.c == '}') --depth;
    if (depth < 0) return false;
  }
  return depth == 0;
}

double ipow(double base, int n) {
  return std::pow(base, static_cast<double>(n));
}

const char* si_letter(int power) {
  static const char* letters[] = {"", "k", "M", "G", "T", "P"};
  return power >= 0 && power <= 5 ? letters[power] : "";
}
const char* binary_letters(int power) {
  static const char* letters[] = {"", "Ki", "Mi", "Gi", "Ti", "Pi"};
  return power >= 0 && power <= 5 ? letters[power] : "";
}

// Reads the number starting at cps[start] (its sign included) in the key's unit.

// A number with the operators after it ("4096/32", "3.35 × 10^12") and an uncertainty
// read past ("3.35 ± 0.1"): its value, whether every term was finite, and its end.
struct expression {
  double value = 0;
  bool finite = true;
  size_t end = 0;
};

expression read_expression(const std::vector<cp>& cps, const term_result& t) {
  expression x{t.value, t.finite, t.end};
  char op = 0;
  for (size_t next = 0; read_operator(cps, x.end, &op, &next);) {
    const term_result u = read_term(cps, next);
    if (!u.ok) break;
    x.value = op == '*' ? x.value * u.value : x.value / u.value;
    x.finite = x.finite && u.finite;
    x.end = u.end;
  }
  const size_t i = skip_spaces(cps, x.end);
  size_t after = 0;
  if (i < cps.size() && cps[i].c == 0xB1) after = i + 1;
  if (starts_with_ascii(cps, i, "+/-")) after = i + 3;
  if (starts_with_ascii(cps, i, "+-")) after = i + 2;
  if (after) {
    const term_result u = read_term(cps, skip_spaces(cps, after));
    if (u.ok) x.end = u.end;
  }
  return x;
}

// "32M": the key's unit with this prefix, in the key's family. False when the key cannot
// settle it (a time key; 兆 against a count key).
bool resolve_bare(unit_info& u, const unit_info& key, const std::string& written) {
  const bool rate = u.dimension == "/s";
  const std::string base = key.dimension.ends_with("/s")
                               ? key.dimension.substr(0, key.dimension.size() - 2)
                               : key.dimension;
  const bool chinese_mega = written.find("兆") != std::string::npos;
  if (base == "bytes" || base == "flop") {
    u.dimension = rate ? base + "/s" : key.dimension;  // 3.35T for TB/s is 3.35 TB/s
    u.binary = u.binary || (key.binary && base == "bytes");
    u.factor = ipow(u.binary ? 1024.0 : 1000.0, u.prefix_power);
  } else if (base.empty() && !key.percent && !rate && !chinese_mega) {
    u.dimension = "";
    u.factor = ipow(u.binary ? 1024.0 : 1000.0, u.prefix_power);
  } else {
    return false;
  }
  u.bare = false;
  return true;
}

// The value in the key's unit, read as `u` (the student's unit resolved); for a byte
// prefix, also the other family's reading.
void convert(quantity_result& q, const unit_info& u, const unit_info& key, double value,
             const unit_match& m) {
  q.read_as = u;
  if (u.plain) {
    q.unit_assumed = true;
    q.read_as = key;
    q.value = value;
  } else if (u.dimension != key.dimension) {
    q.error = quantity_error::wrong_dimension;
    return;
  } else {
    q.value = value * u.factor / key.factor;
    if (!std::isfinite(q.value)) {
      q.error = quantity_error::overflow_or_nan;
      return;
    }
    if (u.dimension.starts_with("bytes") && u.prefix_power > 0 && m.found && !m.info.bare) {
      const int p = u.prefix_power;
      const double ratio = u.binary ? ipow(1000.0 / 1024.0, p) : ipow(1024.0 / 1000.0, p);
      q.other_family_value = q.value * ratio;
      q.family_note = fmt::format("1 {}B = 10^{} B, 1 {}B = 2^{} B", si_letter(p), 3 * p,
                                  binary_letters(p), 10 * p);
    }
  }
  q.error = quantity_error::none;
}

// Reads the number starting at cps[start] (its sign included) in the key's unit.
quantity_result read_at(std::string_view text, const std::vector<cp>& cps, size_t start,
                        const unit_info& key) {
  quantity_result q;
  const term_result t = read_term(cps, start);
  if (!t.ok) return q;  // no_number; read_quantity only calls where a number starts
  const expression x = read_expression(cps, t);
  size_t end = x.end;
  size_t second = 0;
  if (range_follows(cps, end, &second)) {
    q.error = quantity_error::ambiguous;
    q.quoted = quote(text, cps, start, read_term(cps, second).end);
    return q;
  }
  const size_t unit_at = skip_spaces(cps, end);
  const unit_match m = match_unit(cps, unit_at);
  if (m.found) {
    q.unit = quote(text, cps, unit_at, m.end);
    end = m.end;
    if (range_follows(cps, end, &second)) {
      const term_result u = read_term(cps, second);
      const unit_match m2 = match_unit(cps, skip_spaces(cps, u.end));
      q.error = quantity_error::ambiguous;
      q.quoted = quote(text, cps, start, m2.found ? m2.end : u.end);
      return q;
    }
  }
  q.quoted = quote(text, cps, start, end);
  if (!x.finite || !std::isfinite(x.value)) {
    q.error = quantity_error::overflow_or_nan;
    return q;
  }
  unit_info u = m.found ? m.info : unit_info{"", 1, false, 0, true};
  if (u.bare && !resolve_bare(u, key, q.unit)) {
    q.error = quantity_error::ambiguous;
    return q;
  }
  convert(q, u, key, x.value, m);
  return q;
}

}  // namespace

quantity_result read_quantity(std::string_view answer, std::string_view key_unit) {
  quantity_result q;
  const std::optional<unit_info> key = parse_unit(key_unit);
  if (!key) {
    q.error = quantity_error::bad_key_unit;
    return q;
  }
  const std::string_view text = first_paragraph(answer);
  const std::vector<cp> cps = code_points(text);
  const std::vector<size_t> starts = reading_starts(cps, balanced(cps));
  // From the last '=' back: the first reading that holds a number.
  for (size_t s = starts.size(); s-- > 0;) {
    const size_t stop = s + 1 < starts.size() ? starts[s + 1] : cps.size();
    for (size_t i = starts[s]; i < stop;) {
      const char32_t c = cps[i].c;
      if (is_word(c)) {
        // A word: its digits are no number (H100, sm_90, v1.2); nan and inf are.
        size_t j = i;
        while (j < cps.size() && (is_word(cps[j].c) ||
                                  (cps[j].c == '.' && j + 1 < cps.size() && is_word(cps[j + 1].c))))
          ++j;
        if (is_digit(c) && (i == 0 || !(cps[i - 1].c == '.' || is_word(cps[i - 1].c)))) {
          // Digits that start a word: a number (32MiB, 3.35e12).
        } else {
          std::string w;
          for (size_t k = i; k < j && w.size() <= 8; ++k)
            w += static_cast<char>(cps[k].c >= 'A' && cps[k].c <= 'Z' ? cps[k].c + 32 : cps[k].c);
          if (w == "nan" || w == "inf" || w == "infinity") {
            q.error = quantity_error::overflow_or_nan;
            q.quoted = quote(text, cps, i, j);
            return q;
          }
          i = j;
          continue;
        }
      }
      if (c == 0x221E) {
        q.error = quantity_error::overflow_or_nan;
        q.quoted = quote(text, cps, i, i + 1);
        return q;
      }
      const bool after_word = i > 0 && (cps[i - 1].c == '.' || is_word(cps[i - 1].c));
      const bool sign = (c == '-' || c == '+') && starts_number(cps, i + 1);
      if (!after_word && (sign || starts_number(cps, i))) return read_at(text, cps, i, *key);
      ++i;
    }
  }
  // No number: quote the answer's start (60 code points take at most 240 bytes).
  q.error = quantity_error::no_number;
  const std::string_view head = answer.substr(0, 400);
  const std::vector<cp> head_cps = code_points(head);
  q.quoted = quote(head, head_cps, 0, head_cps.size());
  return q;
}

}  // namespace grader
