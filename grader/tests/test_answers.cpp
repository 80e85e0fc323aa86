// Unit tests for term normalisation and grading the parts of an answers file against a key
// (grade_answers, answers.cpp): every part type, and the vetoes. The key loader and the
// lesson13 files: test_answers_key.cpp; the parser: test_answers_markdown.cpp.
//   build/bin/grader_tests "[answers]"
#include <catch2/catch.hpp>

#include "temp_dir.hpp"
#include <filesystem>
#include <fmt/format.h>
#include <fstream>
#include <set>
#include <string>

#include "grader/lesson/answers.hpp"

namespace fs = std::filesystem;
using Catch::Matchers::Contains;
using grader::answer_key;
using grader::grade_answers;
using grader::lang;
using grader::load_answer_key;
using grader::normalise_term;
using grader::parse_answers;
using grader::part_grade;

namespace {

void write_file(const fs::path& p, const std::string& content) {
  std::ofstream(p, std::ios::binary) << content;
}

answer_key key_from_json(const std::string& json) {
  temp_dir dir;
  write_file(dir.path / "key.json", json);
  return load_answer_key(dir.path / "key.json");
}

// Grades `answers` against a key made of the single part `part_json`.
part_grade grade_one(const std::string& part_json, const std::string& answers, lang l = lang::en) {
  const answer_key key = key_from_json(R"({"parts": [)" + part_json + "]}");
  const auto grades = grade_answers(parse_answers(answers), key, l);
  REQUIRE(grades.size() == 1);
  return grades.front();
}

std::set<std::string> veto_ids(const part_grade& g) {
  std::set<std::string> ids;
  for (const auto& v : g.vetoes) ids.insert(v.id);
  return ids;
}

// ---- the parts the grading tests use
// -------------------------------------------------------------------

const std::string choice_part =
    R"({"id": "q.a", "item": "q", "type": "choice", "points": 0.5, "options": ["a", "b", "c"], "correct": ["b"]})";
const std::string choice_doc_head = "### [q.a] Pick one\n";
std::string choice_doc(const std::string& a, const std::string& b, const std::string& c) {
  return choice_doc_head + "- [" + a + "] (a) first\n- [" + b + "] (b) second\n- [" + c +
         "] (c) third\n";
}

const std::string multi_part =
    R"({"id": "q.m", "item": "q", "type": "multi", "points": 0.4, "options": ["a", "b", "c", "d"],
        "correct": ["b", "c"], "veto_if_selected": {"a": "flops-reduced", "d": "flops-reduced"}})";
std::string multi_doc(const std::string& ticks) {
  std::string out = "### [q.m] Pick several\n";
  for (char o : std::string("abcd"))
    out += fmt::format("- [{}] ({}) option\n", ticks.find(o) != std::string::npos ? "x" : " ", o);
  return out;
}

const std::string number_part =
    R"({"id": "q.n", "item": "q", "type": "number", "points": 0.25, "value": 32, "tolerance": 0.5, "unit": "MiB"})";
std::string number_doc(const std::string& answer) {
  return "### [q.n] How many MiB?\nanswer: " + answer + "\n";
}

const std::string term_part =
    R"~({"id": "q.t", "item": "q", "type": "term", "points": 0.2, "accept": ["Θ(N² d²/M)", "(nd)^2/m"]})~";
std::string term_doc(const std::string& answer) {
  return "### [q.t] Traffic?\nanswer: " + answer + "\n";
}

// Key points are claims (claims.hpp): groups of words that must meet in one sentence.
const std::string explanation_part =
    R"({"id": "q.e", "item": "q", "type": "explanation", "points": 0.6, "key_points": [
    {"label": {"zh": "带宽", "en": "bandwidth"}, "claims": [[["Memory-Bound", "受带宽限制"]]]},
    {"label": {"zh": "二次项", "en": "the quadratic term"},
     "claims": [[["二次", "平方", "quadratic", "N²"], ["memory", "显存", "cost"]]]},
    {"label": {"zh": "分块", "en": "tiling"},
     "claims": [[["分块", "tiling", "tiles"], ["SRAM", "片上"]]]}]})";
std::string explanation_doc(const std::string& body) {
  return "### [q.e] Explain\nanswer:\n" + body + "\n";
}

const std::string outside_part =
    R"({"id": "q2.f", "item": "q2", "type": "number", "points": 0.2, "value": 3.35, "tolerance": 0.35, "unit": "TB/s",
        "veto_if_outside": {"range": [1, 10], "veto": "hbm-smem-bandwidth"}})";
std::string outside_doc(const std::string& answer) {
  return "### [q2.f] HBM bandwidth?\nanswer: " + answer + "\n";
}

const std::string running_max_part =
    R"({"id": "q1.f", "item": "q1", "type": "choice", "points": 0.2, "options": ["a", "b", "c", "d"], "correct": ["a"],
        "veto_if_wrong": "no-running-max", "veto_if_blank": "no-running-max", "veto_if_selected": {"c": "flops-reduced"}})";
std::string running_max_doc(const std::string& ticks) {
  std::string out = "### [q1.f] Why a running max?\n";
  for (char o : std::string("abcd"))
    out += fmt::format("- [{}] ({}) option\n", ticks.find(o) != std::string::npos ? "x" : " ", o);
  return out;
}

}  // namespace
// ==== normalise_term
// ===================================================================================

TEST_CASE("normalise_term folds the spellings of a formula", "[answers]") {
  CHECK(normalise_term("Θ(N² d²/M)") == "n^2d^2/m");
  CHECK(normalise_term("  O(N^2 d^2 / M)  ") == "n^2d^2/m");
  CHECK(normalise_term("o(n^2d^2/m)") == "n^2d^2/m");
  CHECK(normalise_term("theta(N^2 * d^2 / M)") == "n^2d^2/m");
  CHECK(normalise_term("`Θ(N²d²/M)`") == "n^2d^2/m");
  CHECK(normalise_term("$N^2 d^2/M$") == "n^2d^2/m");
  // Full-width parentheses and slash, as typed with a Chinese input method.
  CHECK(normalise_term("Θ（N²d²／M）") == "n^2d^2/m");
  CHECK(normalise_term("（N·d）²/M") == "(nd)^2/m");
  CHECK(normalise_term("(N × d)³ / M") == "(nd)^3/m");
  CHECK(normalise_term("N^2\td^2/M") == "n^2d^2/m");
  // Only a pair of parentheses that wraps everything is dropped.
  CHECK(normalise_term("(nd)^2/(m)") == "(nd)^2/(m)");
  CHECK(normalise_term("(N d)^2/M") == "(nd)^2/m");
  CHECK(normalise_term("") == "");
}

// Θ((N d)²/M) and O((N d)²/M) are the same answer, but the outer parentheses left by
// removing Θ are only dropped when the first ')' is the last character.
TEST_CASE("normalise_term unwraps Θ((...)...) like O((...)...)", "[answers]") {
  REQUIRE(normalise_term("O((N d)²/M)") == "(nd)^2/m");
  CHECK(normalise_term("Θ((N d)²/M)") == "(nd)^2/m");
  CHECK(normalise_term("((N d)²/M)") == "(nd)^2/m");
}

TEST_CASE("normalise_term reads LaTeX and superscript spellings", "[answers]") {
  CHECK(normalise_term("$\\Theta(N^2 d^2/M)$") == "n^2d^2/m");
  CHECK(normalise_term("\\Theta\\left(N^{2} d^{2} / M\\right)") == "n^2d^2/m");
  CHECK(normalise_term("N²d²M⁻¹") == "n^2d^2m^-1");
  CHECK(normalise_term("N^2 \\cdot d^2 / M") == "n^2d^2/m");
}

// ==== grade_answers: every part type
// ==================================================================

TEST_CASE("grade_answers: choice right, wrong, two ticks, blank, missing", "[answers]") {
  SECTION("right") {
    const auto g = grade_one(choice_part, choice_doc(" ", "x", " "));
    CHECK(g.id == "q.a");
    CHECK(g.item == "q");
    CHECK(g.points == Approx(0.5));
    CHECK(g.max_points == Approx(0.5));
    CHECK(g.feedback.empty());
    CHECK_FALSE(g.needs_review);
    CHECK(g.vetoes.empty());
  }
  SECTION("wrong") {
    const auto g = grade_one(choice_part, choice_doc("x", " ", " "));
    CHECK(g.points == 0);
    CHECK(g.max_points == Approx(0.5));
    CHECK(g.feedback == "q.a: wrong choice");
    CHECK(g.vetoes.empty());
    CHECK(grade_one(choice_part, choice_doc("x", " ", " "), lang::zh).feedback == "q.a：选择不对");
  }
  SECTION("two ticks, one of them right, earn nothing") {
    const auto g = grade_one(choice_part, choice_doc("x", "x", " "));
    CHECK(g.points == 0);
    CHECK(g.feedback == "q.a: tick one box only; ticked (a), (b)");
  }
  SECTION("no tick") {
    const auto g = grade_one(choice_part, choice_doc(" ", " ", " "));
    CHECK(g.points == 0);
    CHECK(g.feedback == "q.a: not answered");
    CHECK(grade_one(choice_part, choice_doc(" ", " ", " "), lang::zh).feedback == "q.a：未作答");
  }
  SECTION("heading missing") {
    const auto g = grade_one(choice_part, "### [q.other] something else\n- [x] (b) b\n");
    CHECK(g.points == 0);
    CHECK(g.max_points == Approx(0.5));
    CHECK(g.feedback == "q.a: missing from the answers file (restore its heading from exercises/)");
  }
}

TEST_CASE("grade_answers: multi earns credit for right ticks less wrong ones", "[answers]") {
  // The key part vetoes (a) and (d); tests here tick neither unless they check it.
  struct row {
    std::string ticks;
    double points;
    std::string feedback;
  };
  const std::vector<row> rows = {
      {"bc", 0.4, ""},
      {"b", 0.2, "q.m: partly right (1 right, 0 wrong ticks)"},
      {"c", 0.2, "q.m: partly right (1 right, 0 wrong ticks)"},
      {"abc", 0.2, "q.m: partly right (2 right, 1 wrong ticks)"},
      {"ab", 0.0, "q.m: partly right (1 right, 1 wrong ticks)"},
      {"abcd", 0.0, "q.m: partly right (2 right, 2 wrong ticks)"},
      {"", 0.0, "q.m: not answered"},
  };
  for (const auto& r : rows) {
    INFO("ticked: " << r.ticks);
    const auto g = grade_one(multi_part, multi_doc(r.ticks));
    CHECK(g.points == Approx(r.points));
    CHECK(g.max_points == Approx(0.4));
    CHECK(g.feedback == r.feedback);
    CHECK_FALSE(g.needs_review);
  }
  CHECK(grade_one(multi_part, multi_doc("b"), lang::zh).feedback ==
        "q.m：多选不完全对（对 1 个，错 0 个）");
}

TEST_CASE("grade_answers: number within and outside the tolerance, and not a number", "[answers]") {
  struct row {
    std::string answer;
    double points;
  };
  for (const row& r : std::vector<row>{{"32", 0.25},
                                       {"32 MiB", 0.25},
                                       {"~32.4 MiB", 0.25},
                                       {"31.5", 0.25},
                                       {"32.5", 0.25},
                                       {"3.2e1", 0.25},
                                       {"+32", 0.25},
                                       {"32.6", 0},
                                       {"31", 0},
                                       {"-32", 0},
                                       {"64", 0}}) {
    INFO("answer: " << r.answer);
    const auto g = grade_one(number_part, number_doc(r.answer));
    CHECK(g.points == Approx(r.points));
    CHECK(g.feedback.empty() == (r.points > 0));
  }
  CHECK(grade_one(number_part, number_doc("33")).feedback ==
        "q.n: you wrote \"33\" (read as 33 MiB); wrong value");
  CHECK(grade_one(number_part, number_doc("33"), lang::zh).feedback ==
        "q.n：你写的是 “33”（按 33 MiB 读），数值不对");

  const auto words = grade_one(number_part, number_doc("thirty-two"));
  CHECK(words.points == 0);
  CHECK(words.feedback == "q.n: needs a number, got \"thirty-two\"");

  // The number may sit on the line below answer:, and thousands separators are dropped.
  CHECK(grade_one(number_part, "### [q.n] How many MiB?\nanswer:\n32\n").points == Approx(0.25));
  CHECK(
      grade_one(
          R"({"id": "q.n", "item": "q", "type": "number", "points": 1, "value": 1024, "tolerance": 0})",
          number_doc("1,024"))
          .points == Approx(1));
  // Tolerance 0 still accepts the exact value written differently.
  const std::string exact =
      R"({"id": "q.n", "item": "q", "type": "number", "points": 1, "value": 4, "tolerance": 0})";
  CHECK(grade_one(exact, number_doc("4.0")).points == Approx(1));
  CHECK(grade_one(exact, number_doc("4.01")).points == 0);
  CHECK(grade_one(number_part, number_doc("")).feedback == "q.n: not answered");
}

TEST_CASE(
    "grade_answers: a number too large for a double, or a huge answer, is graded, not a crash",
    "[answers]") {
  const auto huge = grade_one(number_part, number_doc("1e999"));
  CHECK(huge.points == 0);
  CHECK(huge.feedback == "q.n: \"1e999\" is not a finite number");
  // std::regex recurses per character: a 30,000-digit answer once crashed the grader.
  CHECK(grade_one(number_part, number_doc(std::string(30000, '7'))).points == 0);
  CHECK(grade_one(number_part, number_doc("32 " + std::string(30000, 'x'))).points == Approx(0.25));
}

TEST_CASE("grade_answers: term matches any accepted spelling after normalisation", "[answers]") {
  for (const std::string ok :
       {"Θ(N² d²/M)", "O(N^2 d^2 / M)", "n^2d^2/m", "(N·d)²/M", "（Nd）^2 / M"}) {
    INFO("answer: " << ok);
    const auto g = grade_one(term_part, term_doc(ok));
    CHECK(g.points == Approx(0.2));
    CHECK(g.feedback.empty());
  }
  const auto wrong = grade_one(term_part, term_doc("N^2 d / M"));
  CHECK(wrong.points == 0);
  CHECK(wrong.feedback == "q.t: \"N^2 d / M\" is not right");
  CHECK(grade_one(term_part, term_doc("N d")).feedback == "q.t: \"N d\" is not right");
  CHECK(grade_one(term_part, term_doc("N d"), lang::zh).feedback == "q.t：“N d” 不对");
}

TEST_CASE("grade_answers: explanation key points in zh and en, always needs review", "[answers]") {
  SECTION("every key point, in English, any case") {
    const auto g = grade_one(explanation_part,
                             explanation_doc("S takes N² memory in HBM: it is MEMORY-BOUND.\n"
                                             "FlashAttention uses Tiling in SRAM."));
    CHECK(g.points == Approx(0.6));
    CHECK(g.feedback.empty());
    CHECK(g.needs_review);
  }
  SECTION("two of three, in Chinese, with zh feedback") {
    const auto g = grade_one(
        explanation_part,
        explanation_doc("S 和 P 要写回 HBM，受带宽限制。\n显存随序列长度平方增长。"), lang::zh);
    CHECK(g.points == Approx(0.4));
    CHECK(g.feedback == "q.e：没有提到：分块");
    CHECK(g.needs_review);
  }
  SECTION("one of three, in English, with en feedback listing the missing points") {
    const auto g = grade_one(explanation_part, explanation_doc("The cost is quadratic."));
    CHECK(g.points == Approx(0.2));
    CHECK(g.feedback == "q.e: does not mention: bandwidth; tiling");
    CHECK(g.needs_review);
  }
  SECTION("none") {
    const auto g = grade_one(explanation_part, explanation_doc("It is slow."), lang::zh);
    CHECK(g.points == 0);
    CHECK(g.feedback == "q.e：没有提到：带宽、二次项、分块");
    CHECK(g.needs_review);
  }
  SECTION("blank") {
    const auto g = grade_one(explanation_part, explanation_doc(""));
    CHECK(g.points == 0);
    CHECK(g.feedback == "q.e: not answered");
  }
  SECTION("the key words, listed without a sentence that makes the claims, earn nothing") {
    const auto g = grade_one(explanation_part,
                             explanation_doc("bandwidth, quadratic, SRAM, tiling, N², memory"));
    CHECK(g.points == 0);
    CHECK(g.feedback == "q.e: does not mention: bandwidth; the quadratic term; tiling");
  }
  SECTION("words spread over sentences make no claim") {
    const auto g = grade_one(explanation_part, explanation_doc("It is quadratic. Memory is slow."));
    CHECK(g.points == 0);
  }
  SECTION("a sentence that denies a key point costs it, and the feedback quotes it") {
    const auto g = grade_one(
        explanation_part,
        explanation_doc("The cost is quadratic. It is not memory-bound.\nFA tiles in SRAM."));
    CHECK(g.points == Approx(0.4));
    CHECK(g.feedback == "q.e: contradicts: bandwidth (\"It is not memory-bound.\")");
    const auto zh = grade_one(explanation_part,
                              explanation_doc("显存随长度平方增长，但并不受带宽限制。"), lang::zh);
    CHECK(zh.points == Approx(0.2));
    CHECK(zh.feedback ==
          "q.e：没有提到：分块；q.e：与要点相反：带宽（“显存随长度平方增长，但并不受带宽限制。”）");
  }
}

// ==== grade_answers: vetoes
// ============================================================================

TEST_CASE("grade_answers: veto_if_selected fires for each vetoed tick", "[answers]") {
  const auto one = grade_one(multi_part, multi_doc("abc"));
  REQUIRE(one.vetoes.size() == 1);
  CHECK(one.vetoes[0].id == "flops-reduced");
  CHECK(one.vetoes[0].reason == "q.m: ticked (a)");
  CHECK(one.points == Approx(0.2));  // the veto does not change the part's points

  const auto two = grade_one(multi_part, multi_doc("ad"));
  REQUIRE(two.vetoes.size() == 2);
  CHECK(two.vetoes[0].id == "flops-reduced");
  CHECK(two.vetoes[1].id == "flops-reduced");
  CHECK(two.vetoes[0].reason == "q.m: ticked (a)");
  CHECK(two.vetoes[1].reason == "q.m: ticked (d)");
  CHECK(grade_one(multi_part, multi_doc("ad"), lang::zh).vetoes[0].reason == "q.m：勾选了 (a)");

  CHECK(grade_one(multi_part, multi_doc("bc")).vetoes.empty());
  CHECK(grade_one(multi_part, multi_doc("")).vetoes.empty());

  // On a single choice too, and only for the vetoed option.
  const auto c = grade_one(running_max_part, running_max_doc("c"));
  CHECK(veto_ids(c) == std::set<std::string>{"flops-reduced", "no-running-max"});
  const auto b = grade_one(running_max_part, running_max_doc("b"));
  CHECK(veto_ids(b) == std::set<std::string>{"no-running-max"});
}

TEST_CASE("grade_answers: veto_if_wrong fires on a wrong or doubled choice, not a right one",
          "[answers]") {
  const auto right = grade_one(running_max_part, running_max_doc("a"));
  CHECK(right.points == Approx(0.2));
  CHECK(right.vetoes.empty());

  const auto wrong = grade_one(running_max_part, running_max_doc("b"));
  CHECK(wrong.points == 0);
  REQUIRE(wrong.vetoes.size() == 1);
  CHECK(wrong.vetoes[0].id == "no-running-max");
  CHECK(wrong.vetoes[0].reason == "q1.f: chose (b)");

  const auto doubled = grade_one(running_max_part, running_max_doc("ab"));
  CHECK(doubled.points == 0);
  REQUIRE(doubled.vetoes.size() == 1);
  CHECK(doubled.vetoes[0].reason == "q1.f: chose (a), (b)");
  CHECK(grade_one(running_max_part, running_max_doc("ab"), lang::zh).vetoes[0].reason ==
        "q1.f：选了 (a), (b)");

  // veto_if_wrong alone does not fire on a blank.
  const std::string only_wrong =
      R"({"id": "q1.f", "item": "q1", "type": "choice", "points": 0.2, "options": ["a", "b"], "correct": ["a"],
          "veto_if_wrong": "no-running-max"})";
  CHECK(grade_one(only_wrong, running_max_doc("")).vetoes.empty());
  CHECK(grade_one(only_wrong, running_max_doc("b")).vetoes.size() == 1);
}

TEST_CASE("grade_answers: veto_if_blank fires on a blank or missing part", "[answers]") {
  const auto blank = grade_one(running_max_part, running_max_doc(""));
  REQUIRE(blank.vetoes.size() == 1);
  CHECK(blank.vetoes[0].id == "no-running-max");
  CHECK(blank.vetoes[0].reason == "q1.f: not answered");

  const auto missing = grade_one(running_max_part, "### [q1.e] another part\nanswer: x\n");
  REQUIRE(missing.vetoes.size() == 1);
  CHECK(missing.vetoes[0].id == "no-running-max");
  CHECK_THAT(missing.vetoes[0].reason, Contains("missing from the answers file"));

  // On a number part as well.
  const std::string number_blank =
      R"({"id": "q.n", "item": "q", "type": "number", "points": 1, "value": 4, "tolerance": 0, "veto_if_blank": "v"})";
  CHECK(veto_ids(grade_one(number_blank, number_doc(""))) == std::set<std::string>{"v"});
  CHECK(grade_one(number_blank, number_doc("5")).vetoes.empty());
}

TEST_CASE("grade_answers: veto_if_outside fires for a number outside its range", "[answers]") {
  struct row {
    std::string answer;
    double points;
    bool veto;
  };
  for (const row& r : std::vector<row>{{"3.35", 0.2, false},
                                       {"about 3.35 TB/s", 0.2, false},
                                       {"3", 0.2, false},
                                       {"3.7", 0.2, false},
                                       {"2", 0, false},
                                       {"1", 0, false},
                                       {"10", 0, false},
                                       {"19", 0, true},
                                       {"10.5", 0, true},
                                       {"0.5", 0, true},
                                       {"3350", 0, true}}) {
    INFO("answer: " << r.answer);
    const auto g = grade_one(outside_part, outside_doc(r.answer));
    CHECK(g.points == Approx(r.points));
    CHECK(veto_ids(g) ==
          (r.veto ? std::set<std::string>{"hbm-smem-bandwidth"} : std::set<std::string>{}));
  }
  const auto far = grade_one(outside_part, outside_doc("19"));
  REQUIRE(far.vetoes.size() == 1);
  CHECK(far.vetoes[0].reason ==
        "q2.f: \"19\" (read as 19 TB/s) is off by at least an order of magnitude");
  CHECK(far.feedback == "q2.f: you wrote \"19\" (read as 19 TB/s); wrong value");
  CHECK(grade_one(outside_part, outside_doc("19"), lang::zh).vetoes[0].reason ==
        "q2.f：“19”（按 19 TB/s 读） 的量级不对（至少差一个数量级）");
  // A blank or a word is not a magnitude.
  CHECK(grade_one(outside_part, outside_doc("")).vetoes.empty());
  CHECK(grade_one(outside_part, outside_doc("fast")).vetoes.empty());
}

// first_number takes the first digits anywhere, even inside a word: "H100: 3.35 TB/s" (the
// question itself names the H100) reads as 100, loses the points and raises the
// hbm-smem-bandwidth veto on a right answer.
TEST_CASE("grade_answers: a number inside a word such as H100 is not the answer", "[answers]") {
  const auto g = grade_one(outside_part, outside_doc("H100: 3.35 TB/s"));
  CHECK(g.points == Approx(0.2));
  CHECK(g.vetoes.empty());
}

TEST_CASE("grade_answers grades parts in key order and ignores parts the key lacks", "[answers]") {
  const answer_key key =
      key_from_json(R"({"parts": [)" + number_part + "," + choice_part + "," + term_part + "]}");
  const auto doc = parse_answers(choice_doc(" ", "x", " ") + number_doc("32") + term_doc("x") +
                                 "### [q.extra] not in the key\nanswer: 1\n");
  const auto grades = grade_answers(doc, key, lang::en);
  REQUIRE(grades.size() == 3);
  CHECK(grades[0].id == "q.n");
  CHECK(grades[1].id == "q.a");
  CHECK(grades[2].id == "q.t");
  CHECK(grades[0].points == Approx(0.25));
  CHECK(grades[1].points == Approx(0.5));
  CHECK(grades[2].points == 0);
}
