// Sentences, clauses and parts of a normalised text (sentences.hpp): where a statement
// ends, and where a contrast starts a new one.
#include "sentences.hpp"

#include "normalise.hpp"

#include <algorithm>
#include <array>
#include <limits>
#include <utility>

namespace grader::reader {
namespace {

constexpr std::array clause_words{
    "and",   "so",   "because", "since",   "therefore", "thus",     "hence",  "which",
    "while", "then", "but",     "however", "whereas",   "although", "though", "nevertheless"};
constexpr std::array clause_zh{"而",   "所以", "因此", "因为", "由于", "并且", "而且",
                               "同时", "然后", "于是", "从而", "虽然", "尽管", "以便",
                               "使得", "但",   "然而", "不过", "可是", "却"};
constexpr std::array clause_marks{",", ":", "(",   ")", "[",  "]", "\"",
                                  "—", "–", " - ", "→", "->", "=>"};
// Of those, the words after which a new statement starts: "SRAM ... HBM ..., while the
// FLOPs stay the same" says nothing about SRAM being the same as HBM. A misconception's
// words must meet within one such part; a key point's may cross (find_point is lenient).
constexpr std::array part_words{"while",    "whereas", "but",         "however",
                                "although", "though",  "nevertheless"};
constexpr std::array part_zh{"而", "但", "然而", "不过", "可是", "却", "虽然", "尽管"};

constexpr std::array abbreviations{"e.g", "i.e", "etc",  "vs",  "cf",   "al", "approx",
                                   "fig", "eq",  "resp", "esp", "incl", "ca", "w.r.t"};

bool ascii(unsigned char c) {
  return c < 0x80;
}

bool has_cjk(std::string_view line) {
  for (const char ch : line) {
    const auto c = static_cast<unsigned char>(ch);
    if (c >= 0xE3 && c <= 0xE9) return true;
  }
  return false;
}

// Words before each byte, times 2; a Chinese character counts half a word.
std::vector<uint32_t> word_units(const std::string& s) {
  const size_t n = s.size();
  std::vector<uint32_t> units2(n + 1);
  uint32_t u = 0;
  for (size_t i = 0; i < n; ++i) {
    units2[i] = u;
    const auto c = static_cast<unsigned char>(s[i]);
    if (word_char(c) && (i == 0 || !word_char(static_cast<unsigned char>(s[i - 1])))) u += 2;
    if (c >= 0xC0) u += 1;
  }
  units2[n] = u;
  return units2;
}

// A '.' ends a sentence only before a space, a line end or non-ASCII, and not after an
// abbreviation (3.35, torch.compile and e.g. do not end a sentence).
bool full_stop(const std::string& s, size_t i) {
  const size_t n = s.size();
  if (i + 1 < n) {
    const auto next = static_cast<unsigned char>(s[i + 1]);
    if (ascii(next) && next != ' ' && next != '\n' && next != ')' && next != '"' && next != '*' &&
        next != '\'')
      return false;
  }
  size_t b = i;
  while (b > 0 && (word_char(static_cast<unsigned char>(s[b - 1])) || s[b - 1] == '.')) --b;
  const std::string_view token(s.data() + b, i - b);
  return std::find(abbreviations.begin(), abbreviations.end(), token) == abbreviations.end();
}

// s[i] == '\n' inside English prose wrapped over lines (the line from line_start): no end.
bool soft_wrap(const std::string& s, size_t i, size_t line_start) {
  const size_t n = s.size();
  if (i == 0 || i + 1 >= n) return false;
  const auto prev = static_cast<unsigned char>(s[i - 1]);
  const auto next = static_cast<unsigned char>(s[i + 1]);
  if (!ascii(prev) || !ascii(next) || next == '\n') return false;
  if (!word_char(prev) &&
      std::string_view(",'\")*`-/").find(static_cast<char>(prev)) == std::string_view::npos)
    return false;
  if (!word_char(next) &&
      std::string_view("(`'\"*").find(static_cast<char>(next)) == std::string_view::npos)
    return false;
  if ((next == '*' || next == '-' || next == '+') && i + 2 < n && s[i + 2] == ' ') return false;
  size_t d = i + 1;
  while (d < n && s[d] >= '0' && s[d] <= '9') ++d;
  if (d > i + 1 && d < n && (s[d] == '.' || s[d] == ')')) return false;  // "2. ..."
  size_t next_end = s.find('\n', i + 1);
  if (next_end == std::string::npos) next_end = n;
  return !has_cjk(std::string_view(s).substr(line_start, i - line_start)) &&
         !has_cjk(std::string_view(s).substr(i + 1, next_end - i - 1));
}

// Sentences: . ! ? ; 。 … and line breaks, except a line break inside English prose
// wrapped over lines. Each with whether it is a question.
std::vector<std::pair<span, bool>> sentence_spans(const std::string& s) {
  const size_t n = s.size();
  std::vector<std::pair<span, bool>> found;
  size_t start = 0, line_start = 0;
  for (size_t i = 0; i < n; ++i) {
    const char c = s[i];
    size_t end = std::string::npos, next = 0;
    if (c == '!' || c == ';' || c == '?' || (c == '.' && full_stop(s, i))) {
      end = next = i + 1;
    } else if (starts(s, i, "。") || starts(s, i, "…")) {
      end = next = i + 3;
    } else if (c == '\n') {
      const bool wrap = soft_wrap(s, i, line_start);
      line_start = i + 1;
      if (wrap) continue;
      end = i;
      next = i + 1;
    }
    if (end == std::string::npos) continue;
    found.push_back({{start, end}, c == '?'});
    start = next;
    i = next - 1;
  }
  found.push_back({{start, n}, false});
  return found;
}

void sort_unique(std::vector<size_t>& v) {
  std::sort(v.begin(), v.end());
  v.erase(std::unique(v.begin(), v.end()), v.end());
}

std::vector<size_t> clause_starts(const std::string& s, size_t b, size_t e) {
  std::vector<size_t> cuts{b};
  for (std::string_view w : clause_words)
    each_word(s, b, e, w, [&](size_t at, size_t) { cuts.push_back(at); });
  for (std::string_view w : clause_zh)
    each_word(s, b, e, w, [&](size_t at, size_t) { cuts.push_back(at); });
  for (std::string_view w : clause_marks)
    each_word(s, b, e, w, [&](size_t at, size_t) { cuts.push_back(at); });
  sort_unique(cuts);
  return cuts;
}

std::vector<size_t> part_starts(const std::string& s, size_t b, size_t e) {
  std::vector<size_t> cuts{b};
  for (std::string_view w : part_words)
    each_word(s, b, e, w, [&](size_t at, size_t end) {
      size_t next = end;
      while (next < e && s[next] == ' ') ++next;
      if (w == "but" && starts(s, next, "also")) return;  // "not only ... but also"
      cuts.push_back(at);
    });
  for (std::string_view w : part_zh)
    each_word(s, b, e, w, [&](size_t at, size_t) {
      if (w == "而" && (starts(s, at, "而且") ||
                        (at >= b + 3 && (starts(s, at - 3, "从而") || starts(s, at - 3, "因而") ||
                                         starts(s, at - 3, "然而")))))
        return;  // "and also", "thereby", "therefore": one statement goes on
      if (w == "但" && at >= b + 3 && starts(s, at - 3, "不但")) return;
      cuts.push_back(at);
    });
  sort_unique(cuts);
  return cuts;
}

}  // namespace

text_index index_text(std::string_view text) {
  if (text.size() >= std::numeric_limits<uint32_t>::max()) text = text.substr(0, 1u << 31);
  text_index t;
  t.original = std::string(text);
  normalise(t.original, t.norm, &t.origin);
  t.magnitudes = find_magnitudes(t.norm);
  t.units2 = word_units(t.norm);
  const std::string& s = t.norm;
  for (const auto& [whole, question] : sentence_spans(s)) {
    size_t b = whole.b;
    const size_t e = whole.e;
    while (b < e && (s[b] == ' ' || s[b] == '\n')) ++b;
    // A question, a list of keywords or of terms states nothing.
    if (b >= e || question || states_nothing(t, b, e)) continue;
    sentence out;
    out.whole = {b, e};
    out.clauses = clause_starts(s, b, e);
    out.parts = part_starts(s, b, e);
    out.cues = find_cues(s, b, e);
    t.sentences.push_back(std::move(out));
  }
  return t;
}

}  // namespace grader::reader
