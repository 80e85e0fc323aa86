// Negation cues in a sentence (sentences.hpp): the words that negate what follows or what
// precedes them, and the phrases that call a statement wrong.
#include <algorithm>
#include <array>

#include "sentences.hpp"

namespace grader::reader {
namespace {

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

}  // namespace

std::vector<cue> find_cues(const std::string& s, size_t b, size_t e) {
  std::vector<cue> cues;
  auto add = [&](span at, cue::kind_t kind, size_t follower = 0) {
    cues.push_back({at, kind, follower});
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
  std::sort(cues.begin(), cues.end(), [](const cue& x, const cue& y) { return x.at.b < y.at.b; });
  return cues;
}

}  // namespace grader::reader
