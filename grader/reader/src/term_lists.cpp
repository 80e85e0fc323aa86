// Lists that state nothing (sentences.hpp): keywords ("bandwidth, quadratic, SRAM, tiling,
// N^2") and terms ("FLOPs, running max, concatenation", "- HBM 带宽瓶颈").
#include <algorithm>
#include <array>

#include "sentences.hpp"

namespace grader::reader {
namespace {

// Words that make a list item a statement rather than a term: verbs, comparisons,
// negations, relations ("in SRAM"). A term is a name: "running max", "HBM 带宽瓶颈".
constexpr std::array predicate_words{
    "is",         "are",      "was",      "were",        "be",           "been",
    "being",      "am",       "has",      "have",        "had",          "do",
    "does",       "did",      "can",      "cannot",      "could",        "will",
    "would",      "shall",    "should",   "may",         "might",        "must",
    "need",       "needs",    "needed",   "it's",        "that's",       "there's",
    "not",        "no",       "never",    "only",        "just",         "also",
    "even",       "still",    "already",  "simply",      "directly",     "stay",
    "stays",      "stayed",   "remain",   "remains",     "remained",     "become",
    "becomes",    "became",   "get",      "gets",        "got",          "go",
    "goes",       "went",     "make",     "makes",       "made",         "keep",
    "keeps",      "kept",     "read",     "reads",       "write",        "writes",
    "wrote",      "written",  "store",    "stores",      "stored",       "load",
    "loads",      "loaded",   "fit",      "fits",        "drop",         "drops",
    "dropped",    "reduce",   "reduces",  "reduced",     "lower",        "lowers",
    "lowered",    "cut",      "cuts",     "save",        "saves",        "saved",
    "grow",       "grows",    "grew",     "grown",       "scale",        "scales",
    "scaled",     "avoid",    "avoids",   "avoided",     "use",          "uses",
    "used",       "take",     "takes",    "took",        "mean",         "means",
    "wait",       "waits",    "limit",    "limits",      "limited",      "bound",
    "spend",      "spends",   "spent",    "dominate",    "dominates",    "dominated",
    "move",       "moves",    "moved",    "hit",         "hits",         "merge",
    "merges",     "merged",   "combine",  "combines",    "combined",     "match",
    "matches",    "equal",    "equals",   "give",        "gives",        "gave",
    "rescale",    "rescales", "rescaled", "concatenate", "concatenates", "concatenated",
    "stitched",   "joined",   "appended", "reuse",       "reuses",       "reused",
    "stall",      "stalls",   "stalled",  "than",        "more",         "less",
    "fewer",      "faster",   "slower",   "higher",      "larger",       "bigger",
    "smaller",    "greater",  "same",     "unchanged",   "different",    "similar",
    "comparable", "easy",     "easier",   "easiest",     "hard",         "harder",
    "hardest",    "simple",   "simpler",  "difficult",   "fast",         "fastest",
    "slow",       "slowest",  "high",     "highest",     "low",          "lowest",
    "best",       "worst",    "better",   "worse",       "most",         "least",
    "medium",     "moderate", "flexible", "inflexible",  "full",         "fully",
    "very",       "quite",    "too",      "good",        "poor",         "great",
    "in",         "into",     "inside",   "on",          "from",         "to",
    "through",    "via",      "per",      "by",          "with",         "without",
    "instead",    "because",  "so",       "since",       "thus",         "therefore",
    "apart",      "except",   "up",       "down",        "out",          "off"};
// Chinese: characters that make a statement (是, 在, 不, 写, 快 ...), except inside the
// names that hold them (显存, 最大值, 拼接, 高带宽内存 ...).
constexpr std::string_view predicate_zh =
    "是为有在要会能可把被让使将写读存放搬装留等降减增省变受占比随用算不没无未很更最太都也就才"
    "了着过到成少多快慢高低大小远需缩避防保超给做从向经并已得而但却所因于由对错直只仅还再又必该";
constexpr std::array term_words_zh{"显存", "内存",   "缓存",   "存储", "寄存器", "访存",   "最大值",
                                   "大小", "多头",   "合并",   "拼接", "缩放",   "高带宽", "共享",
                                   "算子", "计算量", "运算量", "浮点", "数值",   "归一化", "对齐",
                                   "并行", "分块",   "块大小", "融合", "易用"};
// A label that introduces a list of terms ("关键词：..."); any other colon makes a statement.
constexpr std::array term_labels{"关键词",    "关键字",   "要点",       "关键点",
                                 "术语",      "keywords", "keyword",    "key words",
                                 "key terms", "terms",    "key points", "tags"};

// "bandwidth, quadratic, SRAM, tiling, N^2": five or more items, split by , ; 、 | or a
// spaced " / ", after an optional "关键词：", each of at most four words (eight Chinese
// characters) and two on average. Such a list claims nothing; a sentence that lists
// things has a clause of more words somewhere ("Q, K, V and O stay in SRAM").
bool keyword_list(const text_index& t, size_t b, size_t e) {
  const std::string& s = t.norm;
  size_t items = 0, item = b;
  uint32_t total = 0;
  for (size_t i = b; i <= e; ++i) {
    const bool spaced_slash =
        i < e && s[i] == '/' && i > b && s[i - 1] == ' ' && i + 1 < e && s[i + 1] == ' ';
    const bool cut = i == e || s[i] == ',' || s[i] == '.' || s[i] == ';' || s[i] == '|' ||
                     spaced_slash || starts(s, i, "、") || starts(s, i, "。");
    if (s[i] == ':' && items == 0) item = i + 1;       // "关键词：" labels the list
    if (!cut || (s[i] == '.' && i + 1 < e)) continue;  // torch.compile is one item
    const uint32_t size = t.units2[i] - t.units2[item];
    if (size > 8) return false;
    items += size > 0;
    total += size;
    item = i + (i < e && static_cast<unsigned char>(s[i]) >= 0x80 ? 3 : 1);
  }
  return items >= 5 && total <= 4 * items;
}
// A list of terms states nothing either: "FLOPs, running max, concatenation", "SRAM；HBM；
// 带宽", a bullet "- HBM 带宽瓶颈". Every item (cut at , ; 、 a line break or " / ", after a
// bullet and an optional "关键词：") has at most four words (eight Chinese characters) and
// none of the words that make a statement: a verb, a comparison, a negation, a relation
// ("in SRAM"), a magnitude, = → <, or a colon other than the list's label.
bool predicate_in(const text_index& t, size_t b, size_t e) {
  const std::string& s = t.norm;
  for (size_t i = b; i < e; ++i) {
    const char c = s[i];
    if (c == '=' || c == '<' || c == '>' || c == '~' || c == ':' || c == '!' || c == '?')
      return true;
    for (std::string_view sym : {"→", "⇒", "≈", "≤", "≥", "≪", "≫", "≠", "∝"})
      if (starts(s, i, sym)) return true;
  }
  const auto m = std::lower_bound(t.magnitudes.begin(), t.magnitudes.end(), b,
                                  [](const magnitude& x, size_t v) { return x.begin < v; });
  if (m != t.magnitudes.end() && m->end <= e) return true;
  for (size_t i = b; i < e;) {
    if (!word_char(static_cast<unsigned char>(s[i]))) {
      ++i;
      continue;
    }
    size_t j = i;
    while (j < e &&
           (word_char(static_cast<unsigned char>(s[j])) ||
            (s[j] == '\'' && j + 1 < e && word_char(static_cast<unsigned char>(s[j + 1])))))
      ++j;
    const std::string_view w(s.data() + i, j - i);
    if (w.ends_with("n't") ||
        std::find(predicate_words.begin(), predicate_words.end(), w) != predicate_words.end())
      return true;
    i = j;
  }
  for (size_t i = b; i + 3 <= e; ++i) {
    const auto c = static_cast<unsigned char>(s[i]);
    if (c < 0xE0 || c > 0xEF) continue;
    const std::string_view ch(s.data() + i, 3);
    const size_t at = predicate_zh.find(ch);
    if (at == std::string_view::npos || at % 3 != 0) continue;
    bool in_term = false;
    for (std::string_view term : term_words_zh)
      for (size_t k = 0; !in_term && k + 3 <= term.size(); k += 3)
        in_term = term.substr(k, 3) == ch && i >= b + k && i - k + term.size() <= e &&
                  starts(s, i - k, term);
    if (!in_term) return true;
  }
  return false;
}

bool term_list(const text_index& t, size_t b, size_t e) {
  const std::string& s = t.norm;
  size_t i = b;
  for (bool more = true; more && i < e;) {  // bullets and numbering: "- ", "* ", "1. ", "•"
    more = false;
    const char c = s[i];
    if (c == ' ' || c == '-' || c == '*' || c == '+' || c == '#' || c == '`') {
      ++i;
      more = true;
    } else if (starts(s, i, "•") || starts(s, i, "·")) {
      i += starts(s, i, "•") ? 3 : 2;
      more = true;
    } else if (c >= '0' && c <= '9') {
      size_t d = i;
      while (d < e && s[d] >= '0' && s[d] <= '9') ++d;
      if (d < e && (s[d] == '.' || s[d] == ')') && (d + 1 == e || s[d + 1] == ' ')) {
        i = d + 1;
        more = true;
      }
    }
  }
  const size_t colon = s.find(':', i);
  if (colon < e) {
    std::string_view label(s.data() + i, colon - i);
    while (!label.empty() && (label.back() == ' ' || label.back() == '*')) label.remove_suffix(1);
    if (std::find(term_labels.begin(), term_labels.end(), label) == term_labels.end()) return false;
    i = colon + 1;
  }
  size_t item = i, items = 0;
  for (size_t k = i; k <= e; ++k) {
    const bool spaced_slash =
        k < e && s[k] == '/' && k > i && s[k - 1] == ' ' && k + 1 < e && s[k + 1] == ' ';
    // A line break inside the sentence cuts too: list items joined as wrapped English lines.
    const bool cut =
        k == e || s[k] == ',' || s[k] == ';' || s[k] == '\n' || spaced_slash || starts(s, k, "、");
    if (!cut) continue;
    const uint32_t size = t.units2[k] - t.units2[item];
    if (size > 8 || predicate_in(t, item, k)) return false;
    items += size > 0;
    item = k + (starts(s, k, "、") ? 3 : 1);
  }
  return items > 0;
}

}  // namespace

bool states_nothing(const text_index& t, size_t b, size_t e) {
  return keyword_list(t, b, e) || term_list(t, b, e);
}

}  // namespace grader::reader
