// A text read for claims: normalised (normalise.hpp), split into sentences, clauses and
// parts, with the negation cues of each sentence. Built once per answer (claim_text).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "grader/reader/reader.hpp"
#include "utf8.hpp"

namespace grader::reader {

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

struct text_index {
  std::string original;
  std::string norm;              // normalise(original)
  std::vector<uint32_t> origin;  // byte of norm -> byte of original (one more at the end)
  std::vector<uint32_t> units2;  // words before each byte of norm, times 2 (汉字 = 1)
  std::vector<sentence> sentences;
  std::vector<magnitude> magnitudes;  // in norm, in order
};

// The text indexed: every sentence that could state something (sentences.cpp).
text_index index_text(std::string_view text);
// A list of keywords or of terms in norm[b, e): it states nothing (term_lists.cpp).
bool states_nothing(const text_index& t, size_t b, size_t e);
// The negation cues of norm[b, e), sorted by start (negation.cpp).
std::vector<cue> find_cues(const std::string& s, size_t b, size_t e);

// ---- matching in normalised text

inline bool starts(std::string_view s, size_t i, std::string_view p) {
  return i <= s.size() && s.substr(i, p.size()) == p;
}

// Every occurrence of p in s[lo, hi), word-bounded for ASCII words (see reader.hpp).
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

}  // namespace grader::reader
