// Magnitudes in free text (reader.hpp's find_magnitudes): "10×", "an order of magnitude",
// "几千倍", "the same order of magnitude"; what claims' "{ratio>=50}" alternatives meet.
#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <limits>
#include <string>
#include <utility>
#include <vector>

#include "numbers.hpp"

namespace grader::reader {

namespace {

constexpr size_t kNone = static_cast<size_t>(-1);
constexpr double kInf = std::numeric_limits<double>::infinity();

// A number (or a factor) read at some code point: where it ends and its [lo, hi].
struct reading {
  size_t end = kNone;
  double lo = 0, hi = 0;
  bool ok() const { return end != kNone; }
};

class magnitude_scanner {
 public:
  explicit magnitude_scanner(std::string_view text) : c_(code_points(text)) {}

  std::vector<magnitude> scan() {
    std::vector<magnitude> out;
    for (size_t i = 0; i < c_.size();) {
      reading r = at_phrase(i);
      if (!r.ok()) r = at_number(i);
      if (r.ok() && r.end > i) {
        out.push_back({c_[i].begin, c_[r.end - 1].end, std::max(1.0, r.lo),
                       std::max(1.0, std::max(r.lo, r.hi))});
        i = r.end;
        continue;
      }
      // Past a whole number or word, so that its tail is not read again ("4096" of 14096).
      size_t j = i + 1;
      if (is_word(ch(i)))
        while (j < c_.size() && is_word(ch(j))) ++j;
      i = j;
    }
    return out;
  }

 private:
  const std::vector<cp> c_;

  char32_t ch(size_t i) const {
    if (i >= c_.size()) return 0;
    const char32_t x = c_[i].c;
    if (x >= 'A' && x <= 'Z') return x + 32;
    return x == 0x2019 ? U'\'' : x;
  }
  size_t lit(size_t i, std::u32string_view p) const {
    for (size_t k = 0; k < p.size(); ++k)
      if (ch(i + k) != p[k]) return kNone;
    return i + p.size();
  }
  // A whole word at i (ASCII words end where letters and digits do).
  size_t word(size_t i, std::u32string_view p) const {
    if (i > 0 && is_word(ch(i - 1)) && is_word(p.front())) return kNone;
    const size_t e = lit(i, p);
    return e == kNone || (is_word(p.back()) && is_word(ch(e))) ? kNone : e;
  }
  size_t spaces(size_t i) const {
    while (i < c_.size() && is_inline_space(ch(i))) ++i;
    return i;
  }
  size_t back(size_t i) const {  // the last non-space code point before i, or kNone
    while (i > 0 && is_inline_space(ch(i - 1))) --i;
    return i == 0 ? kNone : i - 1;
  }
  std::u32string word_at(size_t i) const {  // the ASCII word at i, with a trailing 's
    std::u32string w;
    while (i < c_.size() && (is_word(ch(i)) || (ch(i) == '\'' && is_word(ch(i + 1))))) w += ch(i++);
    return w;
  }
  std::u32string word_before(size_t i) const {
    size_t e = back(i);
    if (e == kNone || !is_word(ch(e))) return {};
    size_t b = e;
    while (b > 0 && is_word(ch(b - 1))) --b;
    return word_at(b);
  }
  static bool zh_digit(char32_t x) {
    return std::u32string_view(U"零一二两三四五六七八九十百千万几数").find(x) !=
           std::u32string_view::npos;
  }

  // "times", "twice" compare only with a comparison after them ("ten times faster", "1000
  // times HBM's bandwidth", "twice as fast") or "by" before; "read 4096 times" is a count.
  bool compares(size_t number_start, size_t after) const {
    if (word_before(number_start) == U"by") return true;
    const std::u32string w = word_at(spaces(after));
    static constexpr std::u32string_view next[] = {
        U"as",   U"the",  U"that",   U"those",     U"what",      U"its",  U"their",
        U"more", U"less", U"over",   U"than",      U"hbm",       U"dram", U"global",
        U"sram", U"smem", U"shared", U"bandwidth", U"throughput"};
    for (std::u32string_view x : next)
      if (w == x) return true;
    if (w.size() >= 5 && w.ends_with(U"er") && w != U"other" && w != U"after") return true;
    return w.size() > 2 && w.ends_with(U"'s");
  }

  // Phrases that are magnitudes without a leading number.
  reading at_phrase(size_t i) const {
    const char32_t x = ch(i);
    if (x == 's' || x == U'同') {  // sameness: "same order of magnitude", "同一数量级"
      size_t e = word(i, U"same");
      if (e != kNone) {
        const size_t o = spaces(e);
        size_t f = word(o, U"order");
        if (f == kNone) f = word(o, U"magnitude");
        if (f != kNone) {
          const size_t m = of_magnitude(f);
          return {m == kNone ? f : m, 1, 1};
        }
      }
      for (std::u32string_view p :
           {U"同一个数量级", U"同一数量级", U"同数量级", U"同一个量级", U"同一量级", U"同量级"})
        if ((e = lit(i, p)) != kNone) return {e, 1, 1};
    }
    if (x == 'w') {  // "within an order of magnitude": less than ten times
      const size_t e = word(i, U"within");
      if (e != kNone) {
        const size_t a = spaces(e);
        size_t n = word(a, U"an");
        if (n == kNone) n = word(a, U"one");
        if (n == kNone) n = word(a, U"a");
        const size_t o = n == kNone ? kNone : word(spaces(n), U"order");
        const size_t m = o == kNone ? kNone : of_magnitude(o);
        if (m != kNone) return {m, 1, 9.99};
      }
    }
    // "orders of magnitude" without a number: students use it loosely for "much faster",
    // so it is read as at least one order and states no definite figure (q2.g's key
    // takes it as a right reason; "two orders of magnitude" is a figure, 100).
    if (x == 'o') {
      const size_t e = word(i, U"orders");
      const size_t m = e == kNone ? kNone : of_magnitude(e);
      if (m != kNone) return {m, 10, kInf};
    }
    for (const auto& [w, v] : {std::pair<std::u32string_view, double>{U"twofold", 2},
                               {U"threefold", 3},
                               {U"fourfold", 4},
                               {U"fivefold", 5},
                               {U"tenfold", 10},
                               {U"hundredfold", 100},
                               {U"thousandfold", 1000}})
      if (const size_t e = word(i, w); e != kNone) return {e, v, v};
    if (x == 't') {
      const size_t e = word(i, U"twice");
      if (e != kNone && compares(i, e)) return {e, 2, 2};
    }
    if (x == 'f') {  // "a factor of 10"
      size_t e = word(i, U"factor");
      e = e == kNone ? kNone : word(spaces(e), U"of");
      if (e != kNone) {
        size_t n = spaces(e);
        for (std::u32string_view hedge : {U"about", U"roughly", U"around", U"~", U"≈", U"almost"})
          if (const size_t h = word(n, hedge); h != kNone) n = spaces(h);
        const reading r = number(n);
        if (r.ok()) return r;
      }
    }
    if (x == 0xD7) {  // "×10": a factor, unless a product ("n × 10", "4096 × 4096")
      const size_t p = back(i);
      const char32_t before = p == kNone ? 0 : ch(p);
      if (!is_word(before) && before != ')' && superscript_digit(before) < 0 && before != '*') {
        const reading r = number(spaces(i + 1));
        if (r.ok() && !is_word(ch(r.end)) && !is_digit(ch(spaces(r.end)))) return r;
      }
    }
    if (x == '1' && ch(i + 1) == '/' && (i == 0 || (!is_word(ch(i - 1)) && ch(i - 1) != '.'))) {
      size_t e = i + 2;  // "1/10 of the bandwidth"
      double v = 0;
      while (is_digit(ch(e)) && v < 1e9) v = v * 10 + (ch(e++) - '0');
      if (e > i + 2 && v >= 2 && !is_word(ch(e)) && ch(e) != '.' && ch(e) != '/') return {e, v, v};
    }
    return {};
  }

  // " of magnitude" after "order(s)", or kNone.
  size_t of_magnitude(size_t i) const {
    const size_t o = word(spaces(i), U"of");
    return o == kNone ? kNone : word(spaces(o), U"magnitude");
  }

  // A number at i: digits, English number words, Chinese numerals.
  reading number(size_t i) const {
    if (is_digit(ch(i))) return arabic(i);
    if (zh_digit(ch(i)) || ch(i) == U'上' || ch(i) == U'好') return chinese(i);
    return english(i);
  }

  reading arabic(size_t i) const {
    if (i > 0 && (is_word(ch(i - 1)) || ch(i - 1) == '.' || ch(i - 1) == '^' || ch(i - 1) == '/' ||
                  (ch(i - 1) == ',' && is_digit(ch(i > 1 ? i - 2 : 0)))))
      return {};
    std::string digits;
    size_t e = i;
    while (is_digit(ch(e))) digits += static_cast<char>(ch(e++));
    while (ch(e) == ',' && is_digit(ch(e + 1)) && is_digit(ch(e + 2)) && is_digit(ch(e + 3)) &&
           !is_digit(ch(e + 4))) {
      for (size_t k = 1; k <= 3; ++k) digits += static_cast<char>(ch(e + k));
      e += 4;
    }
    if (ch(e) == '.' && is_digit(ch(e + 1))) {
      digits += '.';
      for (++e; is_digit(ch(e)); ++e) digits += static_cast<char>(ch(e));
    }
    if (digits.size() > 30) return {};
    double v = std::strtod(digits.c_str(), nullptr);
    if (ch(e) == '^' && is_digit(ch(e + 1))) {  // 10^3
      int p = 0;
      for (++e; is_digit(ch(e)) && p < 400; ++e) p = p * 10 + static_cast<int>(ch(e) - '0');
      v = std::pow(v, p);
    } else if (superscript_digit(ch(e)) >= 0) {  // 10³
      int p = 0;
      for (; superscript_digit(ch(e)) >= 0 && p < 400; ++e) p = p * 10 + superscript_digit(ch(e));
      v = std::pow(v, p);
    } else if (ch(e) == 'e' && is_digit(ch(e + 1))) {  // 1e3
      int p = 0;
      for (++e; is_digit(ch(e)) && p < 400; ++e) p = p * 10 + static_cast<int>(ch(e) - '0');
      v *= std::pow(10.0, p);
    }
    if (!std::isfinite(v)) return {};
    return {e, v, v};
  }

  // 十, 一千, 两, 几, 几十, 十几, 数百, 上千, 好几: "几" is any digit from 2 to 9.
  reading chinese(size_t i) const {
    if (i > 0 && (zh_digit(ch(i - 1)) || ch(i - 1) == U'上')) return {};
    size_t e = i;
    if (ch(e) == U'好' && ch(e + 1) == U'几') ++e;
    const size_t digits_start = e;
    auto value = [&](int some) {  // some: what 几/数 (and 上) stand for
      double total = 0, section = 0, digit = 0;
      size_t k = digits_start;
      if (ch(k) == U'上') {
        const char32_t u = ch(k + 1);
        if (u != U'百' && u != U'千' && u != U'万') return std::pair<double, size_t>{0, kNone};
        digit = some == 2 ? 1 : 9;
        ++k;
      }
      for (; zh_digit(ch(k)); ++k) {
        const char32_t d = ch(k);
        const size_t at = std::u32string_view(U"零一二三四五六七八九").find(d);
        if (at != std::u32string_view::npos)
          digit = static_cast<double>(at);
        else if (d == U'两')
          digit = 2;
        else if (d == U'几' || d == U'数')
          digit = some;
        else if (d == U'十')
          section += (digit == 0 ? 1 : digit) * 10, digit = 0;
        else if (d == U'百')
          section += digit * 100, digit = 0;
        else if (d == U'千')
          section += digit * 1000, digit = 0;
        else if (d == U'万')
          total = (total + section + digit) * 1e4, section = digit = 0;
      }
      return std::pair<double, size_t>{total + section + digit, k};
    };
    const auto [lo, end] = value(2);
    const double hi = value(9).first;
    if (end == kNone || end == digits_start || lo <= 0) return {};
    return {end, lo, hi};
  }

  // one ... fifty, a hundred, several, a few, hundreds of, thousands of; "a"/"an" count one.
  reading english(size_t i) const {
    if (i > 0 && is_word(ch(i - 1))) return {};
    struct entry {
      std::u32string_view w;
      double lo, hi;
    };
    static constexpr entry words[] = {{U"a couple of", 2, 2},
                                      {U"a few", 2, 5},
                                      {U"several", 2, 9},
                                      {U"tens of", 10, 99},
                                      {U"dozens of", 24, 99},
                                      {U"hundreds of", 100, 999},
                                      {U"thousands of", 1000, 9999},
                                      {U"millions of", 1e6, 9.99e6},
                                      {U"a", 1, 1},
                                      {U"an", 1, 1},
                                      {U"one", 1, 1},
                                      {U"two", 2, 2},
                                      {U"three", 3, 3},
                                      {U"four", 4, 4},
                                      {U"five", 5, 5},
                                      {U"six", 6, 6},
                                      {U"seven", 7, 7},
                                      {U"eight", 8, 8},
                                      {U"nine", 9, 9},
                                      {U"ten", 10, 10},
                                      {U"eleven", 11, 11},
                                      {U"twelve", 12, 12},
                                      {U"fifteen", 15, 15},
                                      {U"twenty", 20, 20},
                                      {U"thirty", 30, 30},
                                      {U"forty", 40, 40},
                                      {U"fifty", 50, 50},
                                      {U"hundred", 100, 100},
                                      {U"thousand", 1000, 1000}};
    for (const entry& en : words) {
      const size_t e = word(i, en.w);
      if (e == kNone) continue;
      reading r{e, en.lo, en.hi};
      const size_t m = spaces(e);
      for (const entry& mul : {entry{U"hundred", 100, 100}, entry{U"thousand", 1000, 1000},
                               entry{U"million", 1e6, 1e6}}) {
        const size_t f = en.w.ends_with(U"of") ? kNone : word(m, mul.w);
        if (f != kNone) r = {f, r.lo * mul.lo, r.hi * mul.hi};
      }
      return r;
    }
    return {};
  }

  // A number at i and what follows it: 倍, ×, x, times, fold, orders of magnitude, 个数量级,
  // % faster, 分之一, a tenth.
  reading at_number(size_t i) const {
    reading n = number(i);
    if (!n.ok()) return {};
    // A range: "2~4倍", "2-4×", "2 到 4 倍".
    size_t k = spaces(n.end);
    if (ch(k) == '~' || ch(k) == U'到' || ch(k) == U'至' || ch(k) == 0x2013 ||
        (ch(k) == '-' && is_digit(ch(k + 1)))) {
      const reading m = number(spaces(k + 1));
      if (m.ok() && m.lo >= n.lo) n = {m.end, n.lo, std::max(n.hi, m.hi)};
    }
    const size_t j = spaces(n.end);
    const char32_t x = ch(j);
    // 倍, 多倍, 倍以上
    if (x == U'倍' || ((x == U'多' || x == U'余' || x == U'来') && ch(j + 1) == U'倍')) {
      size_t e = j + (x == U'倍' ? 1 : 2);
      double hi = x == U'倍' ? n.hi : n.hi * 2;
      if (const size_t u = lit(spaces(e), U"以上"); u != kNone) e = u, hi = kInf;
      return {e, n.lo, hi};
    }
    // 10×, 10x: not a product (4096 × 4096, 2×N, 32 x n_heads), nor after one (2 × 10)
    if (x == 0xD7 || (x == 'x' && !is_word(ch(j + 1)))) {
      const size_t p = back(i);
      if (p != kNone &&
          (ch(p) == 0xD7 || ch(p) == '*' || (ch(p) == 'x' && p > 0 && !is_word(ch(p - 1)))))
        return {};
      const size_t after = spaces(j + 1);
      const char32_t a = ch(after);
      if (is_digit(a) || a == '(' || a == '\\' || superscript_digit(a) >= 0) return {};
      if (is_alpha(a)) {
        const std::u32string w = word_at(after);
        const bool variable = w.size() == 1 ||
                              w.find_first_of(U"_0123456789") != std::u32string::npos ||
                              w == U"bs" || w == U"seq" || w == U"heads" || w == U"layers";
        if (variable) return {};
      }
      return {j + 1, n.lo, n.hi};
    }
    // 10-fold, tenfold
    if (size_t e = word(j, U"fold"); e != kNone) return {e, n.lo, n.hi};
    if (x == '-')
      if (size_t e = word(j + 1, U"fold"); e != kNone) return {e, n.lo, n.hi};
    if (size_t e = word(j, U"times"); e != kNone) {
      if (compares(i, e)) return {e, n.lo, n.hi};
      return {};
    }
    // an order of magnitude, two orders of magnitude
    for (std::u32string_view o : {U"orders", U"order"}) {
      const size_t e = word(j, o);
      if (e == kNone) continue;
      const size_t m = of_magnitude(e);
      if (m == kNone) return {};
      return {m, std::pow(10.0, n.lo), std::pow(10.0, n.hi)};
    }
    // 一个数量级, 两个量级
    {
      size_t e = x == U'个' ? j + 1 : j;
      size_t m = lit(e, U"数量级");
      if (m == kNone) m = lit(e, U"量级");
      if (m != kNone) return zh_orders(i, m, n);
    }
    // 10% faster: 1.1
    if (x == '%') {
      const std::u32string w = word_at(spaces(j + 1));
      if (w == U"faster" || w == U"higher" || w == U"more" || w == U"greater" || w == U"larger" ||
          w == U"quicker" || w == U"better" || w == U"bigger")
        return {j + 1, 1 + n.lo / 100, 1 + n.hi / 100};
      const size_t p = back(i);  // 快 10%, 高 10%
      if (p != kNone && std::u32string_view(U"快高多大").find(ch(p)) != std::u32string_view::npos)
        return {j + 1, 1 + n.lo / 100, 1 + n.hi / 100};
    }
    // 十分之一, a tenth
    if (size_t e = lit(j, U"分之一"); e != kNone && n.lo >= 2) return {e, n.lo, n.hi};
    if (n.lo == 1 && n.hi == 1 && !is_digit(ch(i))) {
      const size_t t = x == '-' ? j + 1 : j;
      if (size_t e = word(t, U"tenth"); e != kNone) return {e, 10, 10};
      if (size_t e = word(t, U"hundredth"); e != kNone) return {e, 100, 100};
      if (size_t e = word(t, U"thousandth"); e != kNone) return {e, 1000, 1000};
    }
    return {};
  }

  // N 个数量级 after the number at i, ending at m. One order right after 在, 于, 同, or 是
  // with no comparison before it ("带宽是一个数量级", not "差距是一个数量级") says "the same";
  // followed by 以内, 之内, 内: less than ten times.
  reading zh_orders(size_t i, size_t m, const reading& n) const {
    if (n.lo == 1 && n.hi == 1) {
      if (lit(m, U"以内") != kNone || lit(m, U"之内") != kNone) return {m + 2, 1, 9.99};
      if (lit(m, U"内") != kNone) return {m + 1, 1, 9.99};
      const size_t p = back(i);
      const char32_t before = p == kNone ? 0 : ch(p);
      if (before == U'在' || before == U'于' || before == U'同') return {m, 1, 1};
      if (before == U'是') {
        bool compared = false;
        for (size_t k = p, steps = 0; k > 0 && steps < 4; ++steps)
          compared |=
              std::u32string_view(U"差高快大多强倍出").find(ch(--k)) != std::u32string_view::npos;
        if (!compared) return {m, 1, 1};
      }
    }
    return {m, std::pow(10.0, n.lo), std::pow(10.0, n.hi)};
  }
};

}  // namespace
}  // namespace grader::reader

namespace grader {

std::vector<magnitude> find_magnitudes(std::string_view text) {
  return reader::magnitude_scanner(text).scan();
}

}  // namespace grader
