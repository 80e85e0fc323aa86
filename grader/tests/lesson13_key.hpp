// What the tests of the lesson13 key's claims share: the key, one part graded, the
// solution's answers (test_claims.cpp, test_misconceptions.cpp).
#pragma once

#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <iterator>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "grader/lesson/answers.hpp"
#include "grader/reader/reader.hpp"

using grader::answer_key;
using grader::answers_doc;
using grader::claim;
using grader::claim_status;
using grader::claim_text;
using grader::lang;
using grader::make_claim;
using grader::part_grade;

inline const std::filesystem::path source_dir{COURSE_SOURCE_DIR};

inline const answer_key& real_key() {
  static const answer_key key =
      grader::load_answer_key(source_dir / "solutions/lesson13/answer_key.json");
  return key;
}

inline claim_status status(std::string_view text, const claim& c) {
  return claim_text(text).find(c).status;
}

// "FlashAttention lowers the FLOPs", as the examples below use it.
inline const claim flops = make_claim({{"reduc", "lower", "fewer", "减少", "降低", "少"},
                                       {"flops", "计算量", "floating-point operations"}});

// One part of the lesson13 key, answered: `answer` below answer:, `prose` elsewhere in the
// part (a reason under the boxes), `ticks` for a choice.
inline part_grade grade_part(const std::string& id, const std::string& answer,
                             const std::string& prose = "", const std::set<std::string>& ticks = {},
                             lang l = lang::en) {
  answers_doc doc;
  auto& p = doc.parts[id];
  p.id = id;
  p.answer = answer;
  p.prose = prose;
  p.ticked = ticks;
  for (const auto& k : real_key().parts)
    if (k.id == id) p.options = k.options;
  for (const part_grade& g : grader::grade_answers(doc, real_key(), l))
    if (g.id == id) return g;
  FAIL("no part " << id);
  return {};
}

inline std::set<std::string> ids(const std::vector<grader::veto_hit>& v) {
  std::set<std::string> out;
  for (const auto& h : v) out.insert(h.id);
  return out;
}

// The text under a part's answer: in solutions/lesson13/answers.md, up to the next heading.
inline std::string solution_answer(const std::string& id) {
  std::ifstream in(source_dir / "solutions/lesson13/answers.md");
  const std::string md((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  const size_t part = md.find("### [" + id + "]");
  REQUIRE(part != std::string::npos);
  const size_t b = md.find("answer:", part) + 7;
  const size_t e = md.find("\n#", b);
  return md.substr(b, e == std::string::npos ? std::string::npos : e - b);
}
