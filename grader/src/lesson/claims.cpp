// Claims in free text: sentences, clauses, negation (see claims.hpp). Tested by
// grader/tests/test_claims.cpp: build/bin/grader_tests "[claims]"
#include "grader/lesson/claims.hpp"

#include "grader/base/text.hpp"
#include "grader/lesson/quantity.hpp"

#include <algorithm>
#include <array>
#include <limits>
#include <optional>
#include <nlohmann/json.hpp>
#include <stdexcept>

namespace grader {
namespace {

bool word_char(unsigned char c) {
  return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_' || (c >= 'A' && c <= 'Z');
}
bool ascii(unsigned char c) {
  return c < 0x80;
}

// The code point at s[i] and its length; an invalid sequence is one byte, cp = -1.
int decode(std::string_view s, size_t i, uint32_t* cp) {
  const auto c = static_cast<unsigned char>(s[i]);
  int len = c < 0x80 ? 1 : (c >> 5) == 0x6 ? 2 : (c >> 4) == 0xE ? 3 : (c >> 3) == 0x1E ? 4 : 0;
  if (len == 0 || i + len > s.size()) {
    *cp = std::numeric_limits<uint32_t>::max();
    return 1;
  }
  uint32_t v = len == 1 ? c : len == 2 ? (c & 0x1F) : len == 3 ? (c & 0x0F) : (c & 0x07);
  for (int k = 1; k < len; ++k) {
    const auto d = static_cast<unsigned char>(s[i + k]);
    if ((d & 0xC0) != 0x80) {
      *cp = std::numeric_limits<uint32_t>::max();
      return 1;
    }
    v = (v << 6) | (d & 0x3F);
  }
  *cp = v;
  return len;
}

void encode(uint32_t cp, std::string& out) {
  if (cp < 0x80) {
    out += static_cast<char>(cp);
  } else if (cp < 0x800) {
    out += static_cast<char>(0xC0 | (cp >> 6));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  } else if (cp < 0x10000) {
    out += static_cast<char>(0xE0 | (cp >> 12));
    out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  } else {
    out += static_cast<char>(0xF0 | (cp >> 18));
    out += static_cast<char>(0x80 | ((cp >> 12) & 0x3F));
    out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  }
}

// Traditional characters folded to Simplified, pairs in code-point order of the first:
// the ones the lesson's keys use that differ, and a few common neighbours. Both the key's
// phrases and the student's text are folded, so "相鄰的執行緒" meets "相邻". Terms that
// differ by region (效能 for 性能, 執行緒 for 线程) are the key's to list.
constexpr std::string_view kTraditionalToSimplified =
    "並并乾干併并來来個个傳传僅仅價价儘尽優优儲储內内兩两別别劃划務务區区參参問问單单圍围圖图執执塊"
    "块夠够學学實实寫写寬宽專专對对導导層层屬属帶带幹干幾几廠厂廣广強强後后從从復复態态慮虑憶忆應应"
    "據据數数斂敛於于時时會会業业極极構构標标樣样機机檔档檻槛歷历歸归決决沒没減减測测湊凑準准漸渐為"
    "为無无煩烦獨独現现瑣琐環环產产異异當当發发確确碼码穩稳窮穷節节範范簡简約约級级細细結结絡络統统"
    "經经維维網网緊紧緒绪線线緩缓練练縮缩總总續续習习脹胀與与舊旧著着處处裏里裝装裡里製制複复觀观觸"
    "触計计訊讯訓训記记訪访試试該该認认誤误課课調调請请識识護护讀读變变讓让負负費费資资軟软較较載载"
    "輕轻輸输這这連连進进運运過过遠远選选還还邊边鄰邻銷销錯错鍵键鏈链長长門门開开間间關关陣阵際际隨"
    "随雙双雜杂離离難难靈灵響响頁页項项須须頭头頸颈頻频題题類类顯显餓饿餘余饑饥驗验驟骤體体點点";

uint32_t simplified(uint32_t cp) {
  static const std::vector<std::pair<uint32_t, uint32_t>> pairs = [] {
    std::vector<std::pair<uint32_t, uint32_t>> out;
    const std::string_view t = kTraditionalToSimplified;
    for (size_t i = 0; i < t.size();) {
      uint32_t a = 0, b = 0;
      i += decode(t, i, &a);
      i += decode(t, i, &b);
      out.push_back({a, b});
    }
    std::sort(out.begin(), out.end());
    return out;
  }();
  if (cp < 0x4E00 || cp > 0x9FFF) return cp;
  const auto it =
      std::lower_bound(pairs.begin(), pairs.end(), std::pair<uint32_t, uint32_t>{cp, 0});
  return it != pairs.end() && it->first == cp ? it->second : cp;
}

// Lower-cases ASCII, folds full-width forms (，：？ＡＢ) to ASCII, Traditional characters
// to Simplified, curly quotes to straight, every space to one ' ', and drops spaces next to
// non-ASCII characters or line ends, so a key's "写回 HBM" matches "写回HBM". origin[i]: the source
// byte of out[i].
void normalise(std::string_view in, std::string& out, std::vector<uint32_t>* origin) {
  out.clear();
  out.reserve(in.size());
  bool pending_space = false, last_ascii = false;
  uint32_t space_origin = 0;
  for (size_t i = 0; i < in.size();) {
    uint32_t cp = 0;
    const int len = decode(in, i, &cp);
    const auto at = static_cast<uint32_t>(i);
    i += len;
    if (cp == '\r') cp = i < in.size() && in[i] == '\n' ? 0 : '\n';
    if (cp == 0) continue;
    if (cp == std::numeric_limits<uint32_t>::max()) cp = 0x1A;  // invalid: a separator
    if (cp >= 0xFF01 && cp <= 0xFF5E) cp -= 0xFEE0;
    cp = simplified(cp);  // 繁體 -> 简体 (same UTF-8 length: origin stays byte for byte)
    if (cp >= 'A' && cp <= 'Z') cp += 'a' - 'A';
    if (cp == 0x2018 || cp == 0x2019 || cp == 0x02BC || cp == 0x2032) cp = '\'';
    if (cp == 0x201C || cp == 0x201D) cp = '"';
    const bool space = cp == ' ' || cp == '\t' || cp == 0x3000 || cp == 0xA0 ||
                       (cp >= 0x2000 && cp <= 0x200B) || cp == 0x202F || cp == 0xFEFF ||
                       (cp < 0x20 && cp != '\n' && cp != 0x1A);
    if (space) {
      if (!pending_space) space_origin = at;
      pending_space = true;
      continue;
    }
    const bool is_ascii = cp < 0x80 && cp != '\n';
    if (pending_space && is_ascii && last_ascii) {
      out += ' ';
      if (origin) origin->push_back(space_origin);
    }
    pending_space = false;
    const size_t before = out.size();
    encode(cp, out);
    if (origin) origin->insert(origin->end(), out.size() - before, at);
    last_ascii = is_ascii;
  }
  if (origin) origin->push_back(static_cast<uint32_t>(in.size()));
}

bool starts(std::string_view s, size_t i, std::string_view p) {
  return i <= s.size() && s.substr(i, p.size()) == p;
}

// ---- sentence and clause boundaries, negation cues
// -------------------------------------------------

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

// Negation before what it negates (within three words, in its clause).
constexpr std::array negation_words{
    "not",      "no",        "never",  "without",     "neither",    "nor",       "none",
    "nothing",  "cannot",    "hardly", "rather than", "instead of", "no longer", "fail to",
    "fails to", "failed to", "doesnt", "dont",        "isnt",       "arent",     "wasnt",
    "werent",   "didnt",     "cant",   "wont",        "shouldnt",   "wouldnt",   "couldnt",
    "neednt",   "lack",      "lacks",  "lacking",     "non"};
constexpr std::array negation_zh{"不", "没", "无", "非", "未"};
// Words that contain a negation character but negate nothing.
constexpr std::array not_negation_zh{"不同", "不断",     "不少", "不错", "不得不", "不停",
                                     "不久", "不过",     "不管", "不论", "不禁",   "不妨",
                                     "不足", "不可避免", "不变", "无论", "无穷",   "无限",
                                     "非常", "除非",     "未来", "没错", "非线性", "并非不"};
// "not only", "不仅": negate only a claim that starts with the "only" ("not just for speed").
constexpr std::array weak_en{"only", "just", "merely", "simply", "solely"};
constexpr std::array weak_zh{"仅", "只", "光", "单", "但", "止"};
// "same FLOPs", "相同的计算量": right before what stays the same.
constexpr std::array unchanged_before{"same",       "unchanged", "same number of", "same amount of",
                                      "相同的",     "同样的",    "一样的",         "不变的",
                                      "相同数量的", "同样多的",  "一样多的"};
// Right after what they negate: "FLOPs stay the same", "计算量不变", "减少不了".
constexpr std::array negation_after{"unchanged",
                                    "stay the same",
                                    "stays the same",
                                    "remain the same",
                                    "remains the same",
                                    "remain unchanged",
                                    "remains unchanged",
                                    "stay constant",
                                    "stays constant",
                                    "remain constant",
                                    "remains constant",
                                    "is the same",
                                    "are the same",
                                    "is unchanged",
                                    "are unchanged",
                                    "is constant",
                                    "are constant",
                                    "do not change",
                                    "does not change",
                                    "don't change",
                                    "doesn't change",
                                    "did not change",
                                    "didn't change",
                                    "not changed",
                                    "never change",
                                    "stay at",
                                    "stays at",
                                    "remain at",
                                    "remains at",
                                    "stay about",
                                    "stays about",
                                    "stay around",
                                    "stays around",
                                    "stay roughly",
                                    "stays roughly",
                                    "stay approximately",
                                    "stays approximately",
                                    "stay ~",
                                    "stays ~",
                                    "stay ≈",
                                    "stays ≈",
                                    "stay $\\approx",
                                    "stays $\\approx",
                                    "stay \\approx",
                                    "stays \\approx",
                                    "不了",
                                    "不下来",
                                    "不掉",
                                    "不变",
                                    "没变",
                                    "没有变",
                                    "未变",
                                    "相同",
                                    "一样",
                                    "差不多",
                                    "持平",
                                    "保持不变",
                                    "基本不变",
                                    "没有变化",
                                    "不会变"};
// The sentence calls what it says wrong: before the claim ("a common misconception is
// that ...") or after it ("..., but it doesn't", "……，这是错的").
constexpr std::array refute_before{
    "misconception",     "myth",       "mistakenly",  "wrongly",    "incorrectly",
    "it is wrong",       "it's wrong", "it is false", "it's false", "not true that",
    "not the case that", "误以为",     "误认为",      "错以为",     "错误地认为",
    "错误认为",          "误解",       "并不是说",    "不是说"};
constexpr std::array refute_after{"is wrong",
                                  "is false",
                                  "is incorrect",
                                  "not true",
                                  "a myth",
                                  "misconception",
                                  "not correct",
                                  "that's wrong",
                                  "but it doesn't",
                                  "but it does not",
                                  "but it isn't",
                                  "but it is not",
                                  "but they don't",
                                  "but they do not",
                                  "but that is not",
                                  "but that's not",
                                  "是错的",
                                  "是错误的",
                                  "误解",
                                  "误区",
                                  "不对",
                                  "不正确",
                                  "不成立",
                                  "其实不然",
                                  "并非如此",
                                  "其实没有",
                                  "实际上没有",
                                  "并不是这样",
                                  "其实并没有",
                                  "实际上并没有",
                                  "其实不是",
                                  "实际上不是"};

constexpr std::array abbreviations{"e.g", "i.e", "etc",  "vs",  "cf",   "al", "approx",
                                   "fig", "eq",  "resp", "esp", "incl", "ca", "w.r.t"};

bool has_cjk(std::string_view line) {
  for (const char ch : line) {
    const auto c = static_cast<unsigned char>(ch);
    if (c >= 0xE3 && c <= 0xE9) return true;
  }
  return false;
}

// "{ratio>=50}", "{ratio<2}": an alternative that a magnitude meets (quantity.hpp's
// find_magnitudes: "thousands of times", "10×", "同一数量级"). The whole of the magnitude's
// [low, high] must meet it: "几十倍" ([20, 90]) is not "{ratio>=50}".
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

std::optional<ratio_condition> parse_ratio(std::string_view alt) {
  if (!alt.starts_with(ratio_prefix) || !alt.ends_with("}")) return std::nullopt;
  std::string_view rest = alt.substr(ratio_prefix.size(), alt.size() - ratio_prefix.size() - 1);
  ratio_condition c;
  if (rest.starts_with(">="))
    c.op = ratio_condition::ge, rest.remove_prefix(2);
  else if (rest.starts_with("<="))
    c.op = ratio_condition::le, rest.remove_prefix(2);
  else if (rest.starts_with(">"))
    c.op = ratio_condition::gt, rest.remove_prefix(1);
  else if (rest.starts_with("<"))
    c.op = ratio_condition::lt, rest.remove_prefix(1);
  else
    return std::nullopt;
  const std::string number(rest);
  char* end = nullptr;
  c.bound = std::strtod(number.c_str(), &end);
  if (number.empty() || end != number.c_str() + number.size() || !(c.bound >= 1) || c.bound > 1e300)
    return std::nullopt;
  return c;
}

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

}  // namespace

// ---- claims
// -------------------------------------------------------------------------------------

claim make_claim(const std::vector<std::vector<std::string>>& groups) {
  if (groups.empty()) throw std::invalid_argument("a claim has no pattern groups");
  claim c;
  for (const auto& g : groups) {
    if (g.empty()) throw std::invalid_argument("a claim has an empty pattern group");
    std::vector<std::string> alts;
    for (const auto& a : g) {
      std::string n;
      normalise(a, n, nullptr);
      if (n.find_first_not_of(" \n$") == std::string::npos)
        throw std::invalid_argument("a claim has a blank pattern \"" + a + "\"");
      if (n.starts_with(ratio_prefix) && !parse_ratio(n))
        throw std::invalid_argument("a claim has a magnitude pattern it cannot read \"" + a +
                                    "\" (write {ratio>=50}, {ratio<2})");
      alts.push_back(std::move(n));
    }
    c.groups.push_back(std::move(alts));
  }
  return c;
}

std::vector<claim> claims_from_json(const nlohmann::json& j) {
  if (!j.is_array() || j.empty()) throw std::invalid_argument("a list of claims is empty");
  std::vector<claim> out;
  for (const auto& entry : j) {
    if (!entry.is_object()) {
      out.push_back(make_claim(entry.get<std::vector<std::vector<std::string>>>()));
      continue;
    }
    for (const auto& [key, value] : entry.items())
      if (key != "all" && key != "unless")
        throw std::invalid_argument("a claim has an unknown key \"" + key + "\"");
    claim c = make_claim(entry.at("all").get<std::vector<std::vector<std::string>>>());
    for (const auto& a : entry.value("unless", std::vector<std::string>{})) {
      std::string n;
      normalise(a, n, nullptr);
      if (n.find_first_not_of(" \n$") == std::string::npos)
        throw std::invalid_argument("a claim has a blank \"unless\" pattern");
      c.unless.push_back(std::move(n));
    }
    out.push_back(std::move(c));
  }
  return out;
}

// ---- the text
// -----------------------------------------------------------------------------------

namespace {

// Every occurrence of p in s[lo, hi), word-bounded for ASCII words (see claims.hpp).
template <class F>
void each_match(const std::string& s, size_t lo, size_t hi, std::string_view p, F&& f) {
  if (p.empty() || hi - lo < p.size()) return;
  const auto first = static_cast<unsigned char>(p.front());
  const auto last = static_cast<unsigned char>(p.back());
  const bool left = word_char(first) && !p.starts_with("n't");
  const bool right = word_char(last) && p.size() <= 4;
  const std::string_view view(s.data(), hi);
  for (size_t at = view.find(p, lo); at != std::string_view::npos; at = view.find(p, at + 1)) {
    const size_t end = at + p.size();
    if (left && at > lo && word_char(static_cast<unsigned char>(s[at - 1]))) continue;
    if (right && end < hi && word_char(static_cast<unsigned char>(s[end]))) continue;
    f(at, end);
  }
}

// Cue words are whole words (both sides), except "n't".
template <class F>
void each_word(const std::string& s, size_t lo, size_t hi, std::string_view p, F&& f) {
  const std::string_view view(s.data(), hi);
  const bool ascii_word = word_char(static_cast<unsigned char>(p.front()));
  for (size_t at = view.find(p, lo); at != std::string_view::npos; at = view.find(p, at + 1)) {
    const size_t end = at + p.size();
    if (ascii_word && at > lo && word_char(static_cast<unsigned char>(s[at - 1]))) continue;
    if (word_char(static_cast<unsigned char>(p.back())) && end < hi &&
        word_char(static_cast<unsigned char>(s[end])))
      continue;
    f(at, end);
  }
}

}  // namespace

claim_text::claim_text(std::string_view text) {
  if (text.size() >= std::numeric_limits<uint32_t>::max()) text = text.substr(0, 1u << 31);
  original_ = std::string(text);
  normalise(original_, norm_, &origin_);
  const std::string& s = norm_;
  const size_t n = s.size();
  magnitudes_ = find_magnitudes(norm_);

  units2_.resize(n + 1);
  uint32_t u = 0;
  for (size_t i = 0; i < n; ++i) {
    units2_[i] = u;
    const auto c = static_cast<unsigned char>(s[i]);
    if (word_char(c) && (i == 0 || !word_char(static_cast<unsigned char>(s[i - 1])))) u += 2;
    if (c >= 0xC0) u += 1;
  }
  units2_[n] = u;

  // Sentences: . ! ? ; 。 … and line breaks, except a line break inside English prose
  // wrapped over lines; a '.' ends one only before a space, a line end or non-ASCII, and not
  // after an abbreviation (3.35, torch.compile and e.g. do not end a sentence).
  auto full_stop = [&](size_t i) {
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
  };
  size_t line_start = 0;
  auto soft_wrap = [&](size_t i) {  // s[i] == '\n'
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
  };
  // "bandwidth, quadratic, SRAM, tiling, N^2": five or more items, split by , ; 、 | or a
  // spaced " / ", after an optional "关键词：", each of at most four words (eight Chinese
  // characters) and two on average. Such a list claims nothing; a sentence that lists
  // things has a clause of more words somewhere ("Q, K, V and O stay in SRAM").
  auto keyword_list = [&](size_t b, size_t e) {
    size_t items = 0, item = b;
    uint32_t total = 0;
    for (size_t i = b; i <= e; ++i) {
      const bool spaced_slash =
          i < e && s[i] == '/' && i > b && s[i - 1] == ' ' && i + 1 < e && s[i + 1] == ' ';
      const bool cut = i == e || s[i] == ',' || s[i] == '.' || s[i] == ';' || s[i] == '|' ||
                       spaced_slash || starts(s, i, "、") || starts(s, i, "。");
      if (s[i] == ':' && items == 0) item = i + 1;       // "关键词：" labels the list
      if (!cut || (s[i] == '.' && i + 1 < e)) continue;  // torch.compile is one item
      const uint32_t size = units2_[i] - units2_[item];
      if (size > 8) return false;
      items += size > 0;
      total += size;
      item = i + (i < e && static_cast<unsigned char>(s[i]) >= 0x80 ? 3 : 1);
    }
    return items >= 5 && total <= 4 * items;
  };
  // A list of terms states nothing either: "FLOPs, running max, concatenation", "SRAM；HBM；
  // 带宽", a bullet "- HBM 带宽瓶颈". Every item (cut at , ; 、 a line break or " / ", after a
  // bullet and an optional "关键词：") has at most four words (eight Chinese characters) and
  // none of the words that make a statement: a verb, a comparison, a negation, a relation
  // ("in SRAM"), a magnitude, = → <, or a colon other than the list's label.
  auto predicate_in = [&](size_t b, size_t e) {
    for (size_t i = b; i < e; ++i) {
      const char c = s[i];
      if (c == '=' || c == '<' || c == '>' || c == '~' || c == ':' || c == '!' || c == '?')
        return true;
      for (std::string_view sym : {"→", "⇒", "≈", "≤", "≥", "≪", "≫", "≠", "∝"})
        if (starts(s, i, sym)) return true;
    }
    const auto m = std::lower_bound(magnitudes_.begin(), magnitudes_.end(), b,
                                    [](const magnitude& x, size_t v) { return x.begin < v; });
    if (m != magnitudes_.end() && m->end <= e) return true;
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
      for (std::string_view t : term_words_zh)
        for (size_t k = 0; !in_term && k + 3 <= t.size(); k += 3)
          in_term =
              t.substr(k, 3) == ch && i >= b + k && i - k + t.size() <= e && starts(s, i - k, t);
      if (!in_term) return true;
    }
    return false;
  };
  auto term_list = [&](size_t b, size_t e) {
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
      if (std::find(term_labels.begin(), term_labels.end(), label) == term_labels.end())
        return false;
      i = colon + 1;
    }
    size_t item = i, items = 0;
    for (size_t k = i; k <= e; ++k) {
      const bool spaced_slash =
          k < e && s[k] == '/' && k > i && s[k - 1] == ' ' && k + 1 < e && s[k + 1] == ' ';
      // A line break inside the sentence cuts too: list items joined as wrapped English lines.
      const bool cut = k == e || s[k] == ',' || s[k] == ';' || s[k] == '\n' || spaced_slash ||
                       starts(s, k, "、");
      if (!cut) continue;
      const uint32_t size = units2_[k] - units2_[item];
      if (size > 8 || predicate_in(item, k)) return false;
      items += size > 0;
      item = k + (starts(s, k, "、") ? 3 : 1);
    }
    return items > 0;
  };
  std::vector<std::pair<span, bool>> found;  // sentence, is a question
  size_t start = 0;
  for (size_t i = 0; i < n; ++i) {
    const char c = s[i];
    size_t end = std::string::npos, next = 0;
    if (c == '!' || c == ';' || c == '?' || (c == '.' && full_stop(i))) {
      end = next = i + 1;
    } else if (starts(s, i, "。") || starts(s, i, "…")) {
      end = next = i + 3;
    } else if (c == '\n') {
      const bool wrap = soft_wrap(i);
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

  for (const auto& [whole, question] : found) {
    size_t b = whole.b, e = whole.e;
    while (b < e && (s[b] == ' ' || s[b] == '\n')) ++b;
    // A question, a list of keywords or of terms states nothing.
    if (b >= e || question || keyword_list(b, e) || term_list(b, e)) continue;
    sentence out;
    out.whole = {b, e};
    std::vector<size_t> clause_cuts{b};
    for (std::string_view w : clause_words)
      each_word(s, b, e, w, [&](size_t at, size_t) { clause_cuts.push_back(at); });
    for (std::string_view w : clause_zh)
      each_word(s, b, e, w, [&](size_t at, size_t) { clause_cuts.push_back(at); });
    for (std::string_view w : clause_marks)
      each_word(s, b, e, w, [&](size_t at, size_t) { clause_cuts.push_back(at); });
    std::sort(clause_cuts.begin(), clause_cuts.end());
    clause_cuts.erase(std::unique(clause_cuts.begin(), clause_cuts.end()), clause_cuts.end());
    out.clauses = std::move(clause_cuts);
    std::vector<size_t> part_cuts{b};
    for (std::string_view w : part_words)
      each_word(s, b, e, w, [&](size_t at, size_t end) {
        size_t next = end;
        while (next < e && s[next] == ' ') ++next;
        if (w == "but" && starts(s, next, "also")) return;  // "not only ... but also"
        part_cuts.push_back(at);
      });
    for (std::string_view w : part_zh)
      each_word(s, b, e, w, [&](size_t at, size_t) {
        if (w == "而" && (starts(s, at, "而且") ||
                          (at >= b + 3 && (starts(s, at - 3, "从而") || starts(s, at - 3, "因而") ||
                                           starts(s, at - 3, "然而")))))
          return;  // "and also", "thereby", "therefore": one statement goes on
        if (w == "但" && at >= b + 3 && starts(s, at - 3, "不但")) return;
        part_cuts.push_back(at);
      });
    std::sort(part_cuts.begin(), part_cuts.end());
    part_cuts.erase(std::unique(part_cuts.begin(), part_cuts.end()), part_cuts.end());
    out.parts = std::move(part_cuts);

    auto add = [&](span at, cue::kind_t kind, size_t follower = 0) {
      out.cues.push_back({at, kind, follower});
    };
    auto next_word = [&](size_t at) {  // the start of the word after position at
      while (at < e && s[at] == ' ') ++at;
      return at;
    };
    auto weak_after = [&](size_t end) {
      const size_t w = next_word(end);
      for (std::string_view x : weak_en)
        if (starts(s, w, x) && (w + x.size() >= e || !word_char(s[w + x.size()]))) return w;
      return std::string::npos;
    };
    for (std::string_view w : negation_words)
      each_word(s, b, e, w, [&](size_t at, size_t end) {
        if (w == "no" && starts(s, next_word(end), "matter")) return;
        const size_t f = w == "not" || w == "no" ? weak_after(end) : std::string::npos;
        add({at, end}, f == std::string::npos ? cue::before : cue::weak, f);
      });
    each_match(s, b, e, "n't", [&](size_t at, size_t end) {
      if (end < e && word_char(static_cast<unsigned char>(s[end]))) return;
      const size_t f = weak_after(end);
      add({at, end}, f == std::string::npos ? cue::before : cue::weak, f);
    });
    for (std::string_view w : negation_zh)
      each_match(s, b, e, w, [&](size_t at, size_t end) {
        for (std::string_view x : not_negation_zh) {
          const size_t k = x.find(w);
          if (k != std::string_view::npos && at >= b + k && starts(s, at - k, x)) return;
        }
        for (std::string_view x : weak_zh)
          if (w == "不" && starts(s, end, x)) return add({at, end}, cue::weak, end);
        add({at, end}, cue::before);
      });
    for (std::string_view w : unchanged_before)
      each_word(s, b, e, w, [&](size_t at, size_t end) { add({at, end}, cue::unchanged_before); });
    for (std::string_view w : negation_after)
      each_word(s, b, e, w, [&](size_t at, size_t end) { add({at, end}, cue::after); });
    for (std::string_view w : refute_before)
      each_word(s, b, e, w, [&](size_t at, size_t end) { add({at, end}, cue::refute_before); });
    for (std::string_view w : refute_after)
      each_word(s, b, e, w, [&](size_t at, size_t end) { add({at, end}, cue::refute_after); });
    std::sort(out.cues.begin(), out.cues.end(),
              [](const cue& x, const cue& y) { return x.at.b < y.at.b; });
    sentences_.push_back(std::move(out));
  }
}

claim_text::verdict claim_text::judge(const sentence& st, const claim& c, bool one_part) const {
  const std::string& s = norm_;
  const size_t b = st.whole.b, e = st.whole.e;
  for (std::string_view alt : c.unless) {
    bool found = false;
    each_match(s, b, e, alt, [&](size_t, size_t) { found = true; });
    if (found) return verdict::absent;
  }
  std::vector<std::vector<span>> occ(c.groups.size());
  std::vector<span> own;
  for (size_t g = 0; g < c.groups.size(); ++g) {
    for (std::string_view alt : c.groups[g]) {
      if (alt.starts_with(ratio_prefix)) {  // "{ratio>=50}": a magnitude in the sentence
        const std::optional<ratio_condition> cond = parse_ratio(alt);
        auto m = std::lower_bound(magnitudes_.begin(), magnitudes_.end(), b,
                                  [](const magnitude& x, size_t v) { return x.begin < v; });
        for (; cond && m != magnitudes_.end() && m->end <= e; ++m)
          if (cond->holds(*m)) occ[g].push_back({m->begin, m->end});
        continue;
      }
      // "差不多$": only at the end of a clause, not in "差不多是 HBM 的 10 倍".
      const bool anchored = alt.size() > 1 && alt.back() == '$';
      if (anchored) alt.remove_suffix(1);
      each_match(s, b, e, alt, [&](size_t at, size_t end) {
        size_t next = end;
        while (next < e && s[next] == ' ') ++next;
        if (!anchored || next == e ||
            std::string_view(".!?;").find(s[next]) != std::string_view::npos ||
            starts(s, next, "。") || std::binary_search(st.clauses.begin(), st.clauses.end(), next))
          occ[g].push_back({at, end});
      });
    }
    if (occ[g].empty()) return verdict::absent;
    // Longest matches only: "just for speed" hides the "for speed" inside it, so "not just
    // for speed" negates both.
    auto& v = occ[g];
    std::sort(v.begin(), v.end(),
              [](span x, span y) { return x.b < y.b || (x.b == y.b && x.e > y.e); });
    size_t kept = 0, reach = 0;
    for (const span& o : v)
      if (kept == 0 || o.e > reach) {
        v[kept++] = o;
        reach = o.e;
      }
    v.resize(kept);
    own.insert(own.end(), occ[g].begin(), occ[g].end());
  }
  // A cue inside the claim's own words ("not reduce", "不变") is part of what it says.
  std::sort(own.begin(), own.end(), [](span x, span y) { return x.b < y.b; });
  std::vector<size_t> max_end(own.size());
  for (size_t i = 0; i < own.size(); ++i)
    max_end[i] = std::max(own[i].e, i ? max_end[i - 1] : size_t{0});
  auto is_own = [&](span q) {
    const auto it =
        std::lower_bound(own.begin(), own.end(), q.e, [](span x, size_t v) { return x.b < v; });
    const size_t k = static_cast<size_t>(it - own.begin());
    return k > 0 && max_end[k - 1] > q.b;
  };
  auto in_own = [&](span q) {  // inside one of the claim's words
    const auto it =
        std::upper_bound(own.begin(), own.end(), q.b, [](size_t v, span x) { return v < x.b; });
    const size_t k = static_cast<size_t>(it - own.begin());
    return k > 0 && max_end[k - 1] >= q.e;
  };
  // A phrase that calls the claim wrong counts unless it is inside the claim's words ("but
  // it doesn't" still refutes a claim whose subject is "it").
  std::vector<const cue*> cues;
  for (const cue& q : st.cues) {
    const bool refute = q.kind == cue::refute_before || q.kind == cue::refute_after;
    if (refute ? !in_own(q.at) : !is_own(q.at)) cues.push_back(&q);
  }

  auto clause_of = [&](size_t at) {  // [start, end) of the clause holding at
    const auto it = std::upper_bound(st.clauses.begin(), st.clauses.end(), at);
    const size_t cb = it == st.clauses.begin() ? b : *(it - 1);
    return span{cb, it == st.clauses.end() ? e : *it};
  };
  auto negated = [&](span o) {
    const span cl = clause_of(o.b);
    // Cues are sorted by start; look back from o, at most a few words.
    auto it = std::lower_bound(cues.begin(), cues.end(), o.b,
                               [](const cue* q, size_t v) { return q->at.b < v; });
    for (auto k = it; k != cues.begin();) {
      const cue& q = **--k;
      if (units2_[o.b] - units2_[q.at.b] > 16) break;
      if (q.at.e > o.b || q.at.b < cl.b) continue;
      const uint32_t gap = units2_[o.b] - units2_[q.at.e];
      if ((q.kind == cue::before && gap <= 6) || (q.kind == cue::weak && q.follower == o.b) ||
          (q.kind == cue::unchanged_before && gap <= 2))
        return true;
    }
    for (auto k = it; k != cues.end(); ++k) {
      const cue& q = **k;
      if (q.at.b < o.e) continue;  // a refutation around o
      if (q.at.b >= cl.e || units2_[q.at.b] - units2_[o.e] > 2) break;
      if (q.kind == cue::after) return true;
    }
    return false;
  };

  // Refuted: a refuting phrase before all of the claim's words or after all of them (words
  // inside the phrase aside: "but it doesn't").
  std::vector<size_t> suffix_max_end(own.size() + 1, 0);
  for (size_t i = own.size(); i-- > 0;)
    suffix_max_end[i] = std::max(own[i].e, suffix_max_end[i + 1]);
  auto starting_before = [&](size_t at) {  // how many own spans start before at
    return static_cast<size_t>(
        std::lower_bound(own.begin(), own.end(), at, [](span x, size_t v) { return x.b < v; }) -
        own.begin());
  };
  bool refuted = false;
  for (const cue* q : cues) {
    const size_t k = starting_before(q->at.b), k2 = starting_before(q->at.e);
    if (q->kind == cue::refute_before)
      refuted |= k == 0 && (k2 == 0 || max_end[k2 - 1] <= q->at.e) && k2 < own.size();
    else if (q->kind == cue::refute_after)
      refuted |= (k == 0 || max_end[k - 1] <= q->at.b) && suffix_max_end[k] <= q->at.e && k > 0;
  }

  auto clause_index = [&](size_t at) {
    return static_cast<size_t>(std::upper_bound(st.clauses.begin(), st.clauses.end(), at) -
                               st.clauses.begin());
  };
  // The groups meet: one match of each, none overlapping another ("adjacent threads" is not
  // also the "adjacent" of "adjacent addresses"), in the claim's order across clauses
  // ("FLOPs stay O(N²d), memory drops to O(N)" does not say FLOPs drop), in any order within
  // one ("计算量减少了"). Stated when they meet without negated matches; denied when they
  // meet only with them.
  auto part_index = [&](size_t at) {
    return static_cast<size_t>(std::upper_bound(st.parts.begin(), st.parts.end(), at) -
                               st.parts.begin());
  };
  auto meet = [&](const std::vector<std::vector<span>>& matches) {
    std::vector<std::pair<span, size_t>> chosen;  // match, clause
    for (const auto& group : matches) {
      const size_t before = chosen.size();
      for (const span& o : group) {
        const size_t cl = clause_index(o.b);
        bool ok = true;
        for (const auto& [at, other] : chosen)
          ok &=
              (other == cl || (at.b < o.b && (!one_part || part_index(at.b) == part_index(o.b)))) &&
              (o.e <= at.b || at.e <= o.b);
        if (ok) {
          chosen.push_back({o, cl});
          break;
        }
      }
      if (chosen.size() == before) return false;
    }
    return true;
  };
  if (!meet(occ)) return verdict::absent;
  if (refuted) return verdict::denied;
  std::vector<std::vector<span>> free(occ.size());
  for (size_t g = 0; g < occ.size(); ++g)
    for (const span& o : occ[g])
      if (!negated(o)) free[g].push_back(o);
  return meet(free) ? verdict::stated : verdict::denied;
}

std::string claim_text::quote(const sentence& st) const {
  const size_t b = origin_[st.whole.b], e = origin_[st.whole.e];
  std::string q = original_.substr(b, e - b);
  for (char& c : q)
    if (c == '\n' || c == '\r' || c == '\t') c = ' ';
  const size_t lo = q.find_first_not_of(" -*+>#");
  if (lo == std::string::npos) return {};
  const size_t hi = q.find_last_not_of(' ');
  return q.substr(lo, hi - lo + 1);
}

claim_match claim_text::find(const std::vector<claim>& any) const {
  claim_match m;
  for (const sentence& st : sentences_) {
    bool stated = false, denied = false;
    for (const claim& c : any) {
      const verdict v = judge(st, c, true);
      stated |= v == verdict::stated;
      denied |= v == verdict::denied;
    }
    if (denied && m.denial.empty()) m.denial = quote(st);
    if (stated && m.status != claim_status::stated) {
      m.status = claim_status::stated;
      m.sentence = quote(st);
    }
  }
  if (m.status == claim_status::absent && !m.denial.empty()) {
    m.status = claim_status::denied;
    m.sentence = m.denial;
  }
  return m;
}

claim_match claim_text::find_point(const std::vector<claim>& any) const {
  std::vector<std::vector<verdict>> v(sentences_.size());
  std::vector<bool> stated_somewhere(any.size(), false);
  for (size_t i = 0; i < sentences_.size(); ++i)
    for (size_t c = 0; c < any.size(); ++c) {
      v[i].push_back(judge(sentences_[i], any[c]));
      if (v[i][c] == verdict::stated) stated_somewhere[c] = true;
    }
  claim_match m;
  for (size_t i = 0; i < sentences_.size(); ++i) {
    const bool stated = std::find(v[i].begin(), v[i].end(), verdict::stated) != v[i].end();
    if (stated && m.status != claim_status::stated) {
      m.status = claim_status::stated;
      m.sentence = quote(sentences_[i]);
    }
    bool denies = false;
    for (size_t c = 0; c < any.size(); ++c)
      denies |= v[i][c] == verdict::denied && !stated_somewhere[c];
    if (!stated && denies && m.denial.empty()) m.denial = quote(sentences_[i]);
  }
  if (m.status == claim_status::absent && !m.denial.empty()) {
    m.status = claim_status::denied;
    m.sentence = m.denial;
  }
  return m;
}

std::string quote_excerpt(std::string_view s, size_t max_bytes) {
  if (s.size() <= max_bytes) return one_line(s);
  size_t cut = max_bytes;
  while (cut > 0 && (static_cast<unsigned char>(s[cut]) & 0xC0) == 0x80) --cut;
  return one_line(s.substr(0, cut)) + "…";
}

}  // namespace grader
