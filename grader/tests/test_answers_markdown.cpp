// Unit tests for the CommonMark reader of answers files (answers_markdown.cpp): boxes,
// answers, prose, problems, encodings, and bytes that must never crash it.
//   build/bin/grader_tests "[answers]"
#include <iconv.h>

#include <catch2/catch.hpp>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <random>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "grader/lesson/answers.hpp"
#include "temp_dir.hpp"

namespace fs = std::filesystem;
using Catch::Matchers::Contains;
using Catch::Matchers::StartsWith;
using grader::answer_part;
using grader::answers_doc;
using grader::grade_answers;
using grader::grade_answers_file;
using grader::lang;
using grader::parse_answers;

namespace {

const fs::path source_dir{COURSE_SOURCE_DIR};

std::string read_file(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  REQUIRE(in);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

void write_file(const fs::path& p, const std::string& content) {
  std::ofstream(p, std::ios::binary) << content;
}

// UTF-8 text in another encoding, made with glibc's iconv as an editor would save it.
std::string encode(const std::string& utf8, const char* to) {
  iconv_t cd = iconv_open(to, "UTF-8");
  REQUIRE(cd != reinterpret_cast<iconv_t>(-1));
  std::string out(utf8.size() * 4 + 16, '\0');
  char* in = const_cast<char*>(utf8.data());
  char* o = out.data();
  size_t in_left = utf8.size(), out_left = out.size();
  const size_t r = iconv(cd, &in, &in_left, &o, &out_left);
  iconv_close(cd);
  REQUIRE(r != static_cast<size_t>(-1));
  out.resize(out.size() - out_left);
  return out;
}

// The one part of a document that must have exactly one (a copy: the doc is a temporary).
answer_part only_part(const answers_doc& doc) {
  REQUIRE(doc.parts.size() == 1);
  return doc.parts.begin()->second;
}

std::vector<int> problem_lines(const answer_part& p) {
  std::vector<int> lines;
  for (const auto& x : p.problems) lines.push_back(x.line);
  return lines;
}

grader::answer_key lesson13_key() {
  return grader::load_answer_key(source_dir / "solutions/lesson13/answer_key.json");
}

grader::answer_key key_from_json(const std::string& json) {
  temp_dir dir;
  write_file(dir.path / "key.json", json);
  return grader::load_answer_key(dir.path / "key.json");
}

// Every part of the lesson13 solution right: the total is 6.
double total_points(const answers_doc& doc) {
  double total = 0;
  for (const auto& g : grade_answers(doc, lesson13_key(), lang::en)) {
    INFO(g.id << ": " << g.feedback);
    CHECK(g.points == Approx(g.max_points));
    total += g.points;
  }
  return total;
}

}  // namespace

// ==== boxes
// ===========================================================================================

TEST_CASE("parse_answers reads ticks and option labels", "[answers]") {
  const auto doc = parse_answers(
      "# Title\n"
      "### [q1.a] Where do S and P live?\n"
      "- [x] (a) registers\n"
      "- [X] (b) shared memory\n"
      "* [ ] (c) HBM\n"
      "- [] (d) L2\n"
      "  - [ ]   (e) indented\n");
  const auto& p = only_part(doc);
  CHECK(p.id == "q1.a");
  CHECK(p.line == 2);
  CHECK(p.options == std::set<std::string>{"a", "b", "c", "d", "e"});
  CHECK(p.ticked == std::set<std::string>{"a", "b"});
  CHECK(p.answer.empty());
  CHECK(p.problems.empty());
}

TEST_CASE("parse_answers: every way of ticking a box is a tick, every blank box is blank",
          "[answers]") {
  for (const std::string mark : {"[x]", "[X]", "[ x ]", "[ X ]", "[  x]", "[√]", "[✓]", "[✔]",
                                 "[☑]", "[✅]", "[ ✓ ]", "[ｘ]", "［x］", "☑", "✅"}) {
    INFO(mark);
    const auto& p = only_part(parse_answers("### [q] Pick\n- " + mark + " (a) one\n- [ ] (b)\n"));
    CHECK(p.ticked == std::set<std::string>{"a"});
    CHECK(p.options == std::set<std::string>{"a", "b"});
    CHECK(p.problems.empty());
  }
  for (const std::string mark : {"[ ]", "[]", "[  ]", "[\t]", "[　]", "☐"}) {
    INFO(mark);
    const auto& p = only_part(parse_answers("### [q] Pick\n- " + mark + " (a) one\n"));
    CHECK(p.ticked.empty());
    CHECK(p.options == std::set<std::string>{"a"});
    CHECK(p.problems.empty());
  }
}

TEST_CASE("parse_answers reads (a) a) a. (A) and full-width labels as lower-case letters",
          "[answers]") {
  const auto& p = only_part(
      parse_answers("### [q] Pick\n- [x] (a) one\n- [x] b) two\n- [ ] c. three\n- [x] (D) four\n"
                    "- [ ] （e） five\n- [x](f) no space\n"));
  CHECK(p.options == std::set<std::string>{"a", "b", "c", "d", "e", "f"});
  CHECK(p.ticked == std::set<std::string>{"a", "b", "d", "f"});
  CHECK(p.problems.empty());
}

TEST_CASE("parse_answers reads boxes without a list marker, in ordered and nested lists",
          "[answers]") {
  // Without a blank line, cmark joins "[x] (b)" to the item above as a lazy continuation;
  // each line is still read on its own.
  const auto& p =
      only_part(parse_answers("### [q] Pick\n"
                              "- [ ] (a) one\n"
                              "[x] (b) no marker, joined to the item above\n"
                              "\n"
                              "[ ] (c) a paragraph of its own\n"
                              "-[x] (d) a marker without its space\n"
                              "1. [x] (e) ordered\n"
                              "2) [ ] (f) ordered with a parenthesis\n"
                              "   - [x] (g) nested\n"
                              "     * [X] (h) nested twice\n"
                              "> - [x] (i) quoted\n"));
  CHECK(p.options == std::set<std::string>{"a", "b", "c", "d", "e", "f", "g", "h", "i"});
  CHECK(p.ticked == std::set<std::string>{"b", "d", "e", "g", "h", "i"});
  CHECK(p.problems.empty());
}

TEST_CASE("parse_answers: prose under a choice is the part's prose, not a box or the answer",
          "[answers]") {
  const auto& p =
      only_part(parse_answers("### [q1.g] Same softmax?\n"
                              "- [ ] (a) yes\n"
                              "- [x] (b) no\n"
                              "\n"
                              "Because each block used its own max.\n"
                              "[1] see the paper; [note] not boxes either\n"));
  CHECK(p.ticked == std::set<std::string>{"b"});
  CHECK(p.options == std::set<std::string>{"a", "b"});
  CHECK(p.prose ==
        "Because each block used its own max.\n[1] see the paper; [note] not boxes either");
  CHECK(p.answer.empty());
  CHECK(p.answer_line == 0);
  CHECK(p.problems.empty());
}

// ==== problems
// =========================================================================================

TEST_CASE("parse_answers lists every unreadable box of a part, each with its line", "[answers]") {
  const auto doc = parse_answers(
      "### [q1.a] Pick\n"        // 1
      "- [ ] (a) one\n"          // 2
      "- [y] (b) two\n"          // 3
      "- [x] (c) three\n"        // 4
      "- [v] (d) four\n"         // 5
      "- [x] HBM\n"              // 6
      "- [ ] HBM (e)\n"          // 7
      "- [×] (f) a cross\n"      // 8
      "- ☒ (g) a crossed box\n"  // 9
      "### [q1.b] Fine\n"        // 10
      "- [ x ] (a) padded\n");
  REQUIRE(doc.parts.size() == 2);
  CHECK(doc.problems.empty());
  const auto& a = doc.parts.at("q1.a");
  CHECK(problem_lines(a) == std::vector<int>{3, 5, 6, 7, 8, 9});
  REQUIRE(a.problems.size() == 6);
  CHECK(a.problems[0].message == "checkbox mark '[y]': use [x] to tick or [ ] to leave");
  CHECK(a.problems[1].message == "checkbox mark '[v]': use [x] to tick or [ ] to leave");
  CHECK_THAT(a.problems[2].message, Contains("lost its (a)-style label"));
  CHECK_THAT(a.problems[3].message, Contains("[ ]") && Contains("lost its (a)-style label"));
  CHECK(a.ticked == std::set<std::string>{"c"});
  // The other part is unaffected.
  const auto& b = doc.parts.at("q1.b");
  CHECK(b.problems.empty());
  CHECK(b.ticked == std::set<std::string>{"a"});
}

TEST_CASE("parse_answers: a part id given twice is a problem of the first, with both lines",
          "[answers]") {
  const auto doc = parse_answers(
      "### [q1.a] one\n- [x] (a) x\n\n### [q1.b]\n### [q1.a] again\n"
      "- [x] (b) not read\n");
  REQUIRE(doc.parts.size() == 2);
  const auto& a = doc.parts.at("q1.a");
  REQUIRE(a.problems.size() == 1);
  CHECK(a.problems[0].line == 5);
  CHECK(a.problems[0].message == "part [q1.a] appears twice (first at line 1)");
  CHECK(a.ticked == std::set<std::string>{"a"});
  CHECK(doc.parts.at("q1.b").problems.empty());
}

TEST_CASE("grade_answers: a malformed part scores 0 with its lines, the others are graded",
          "[answers]") {
  const auto key = key_from_json(R"({"parts": [
    {"id": "q.a", "item": "q", "type": "choice", "points": 0.5, "options": ["a", "b"], "correct": ["b"]},
    {"id": "q.f", "item": "q", "type": "choice", "points": 0.2, "options": ["a", "b"], "correct": ["a"],
     "veto_if_blank": "no-running-max", "veto_if_selected": {"b": "flops-reduced"}},
    {"id": "q.n", "item": "q", "type": "number", "points": 0.25, "value": 32, "tolerance": 0.5}]})");
  const auto doc = parse_answers(
      "### [q.a] Pick\n- [ ] (a) one\n- [ x ] (b) two\n"
      "### [q.f] Pick\n- [y] (a) one\n- [x] (b) two\n- [x] three\n"
      "### [q.n] N\nanswer: 32\n");
  const auto grades = grade_answers(doc, key, lang::en);
  REQUIRE(grades.size() == 3);
  CHECK(grades[0].points == Approx(0.5));
  CHECK(grades[2].points == Approx(0.25));
  CHECK(grades[1].points == 0);
  CHECK_FALSE(grades[1].blank);
  CHECK(grades[1].feedback ==
        "q.f: line 5: checkbox mark '[y]': use [x] to tick or [ ] to leave; line 7: checkbox [x] "
        "lost its (a)-style label: write - [x] (a) ...");
  // Unreadable counts as blank for its veto; a legible tick keeps its own.
  std::set<std::string> vetoes;
  for (const auto& v : grades[1].vetoes) vetoes.insert(v.id);
  CHECK(vetoes == std::set<std::string>{"no-running-max", "flops-reduced"});
  CHECK_THAT(grade_answers(doc, key, lang::zh)[1].feedback, StartsWith("q.f：第 5 行："));
}

// ==== answers and prose
// ================================================================================

TEST_CASE("parse_answers reads answer: on one line and the blocks below it up to the next heading",
          "[answers]") {
  const auto doc = parse_answers(
      "### [q1.b] A number\n"
      "answer:   32 MiB  \n"
      "\n"
      "#### [q1.h] Explain\n"
      "answer:\n"
      "\n"
      "   first line\n"
      "\n"
      "second line\n"
      "- [x] (a) not a checkbox here, just text\n"
      "\n"
      "> quoted\n"
      "## Q2 (a heading without a part id ends the answer too)\n"
      "more text outside any part\n"
      "### [q2.a] Empty\n"
      "answer:\n");
  REQUIRE(doc.parts.size() == 3);
  CHECK(doc.parts.at("q1.b").answer == "32 MiB");
  CHECK(doc.parts.at("q1.b").answer_line == 2);
  CHECK(doc.parts.at("q1.b").line == 1);
  const auto& h = doc.parts.at("q1.h");
  CHECK(h.answer == "first line\nsecond line\n[x] (a) not a checkbox here, just text\nquoted");
  CHECK(h.answer_line == 5);
  CHECK(h.ticked.empty());
  CHECK(h.options.empty());
  CHECK(h.line == 4);
  CHECK(doc.parts.at("q2.a").answer.empty());
  CHECK(doc.parts.at("q2.a").answer_line == 16);
}

TEST_CASE("parse_answers reads answer: in any case, with a full-width colon or in bold",
          "[answers]") {
  for (const std::string line : {"answer: 32", "Answer：32", "ANSWER : 32", "**answer:** 32",
                                 "*Answer*: 32", "- answer: 32", "answer:\nanswer: 32"}) {
    INFO(line);
    const auto& p = only_part(parse_answers("### [q] N\n" + line + "\n"));
    CHECK(p.answer == "32");
    CHECK(p.answer_line == 2);
  }
  CHECK(grader::answer_prefix("answer: 1") == 7);
  CHECK(grader::answer_prefix("Answer：1") == 9);
  CHECK(grader::answer_prefix("answer : 1") == 8);
  CHECK(grader::answer_prefix("answers: 1") == 0);
  CHECK(grader::answer_prefix("the answer: 1") == 0);
}

TEST_CASE("parse_answers ignores lines outside parts and after a heading without an id",
          "[answers]") {
  const auto doc = parse_answers(
      "- [x] (a) before any part\n"
      "answer: 1\n"
      "### [q1.a] Pick\n"
      "- [ ] (a) one\n"
      "## Notes\n"
      "- [x] (b) after the part ended\n"
      "answer: 2\n");
  const auto& p = only_part(doc);
  CHECK(p.options == std::set<std::string>{"a"});
  CHECK(p.ticked.empty());
  CHECK(p.answer.empty());
  CHECK(p.prose.empty());
}

TEST_CASE("parse_answers: setext headings start parts; one without an id is text in the part",
          "[answers]") {
  const auto doc = parse_answers(
      "[q1.a] Pick\n"
      "-----------\n"
      "- [x] (a) one\n"
      "\n"
      "[q1.b] A number\n"
      "===============\n"
      "answer: 32\n"
      "---\n"
      "more\n");
  REQUIRE(doc.parts.size() == 2);
  CHECK(doc.parts.at("q1.a").line == 1);
  CHECK(doc.parts.at("q1.a").ticked == std::set<std::string>{"a"});
  CHECK(doc.parts.at("q1.b").line == 5);
  // "answer: 32" over "---" is a setext heading in CommonMark; it was meant as a rule.
  CHECK(doc.parts.at("q1.b").answer == "32\nmore");
}

TEST_CASE("parse_answers: code blocks are the explanation's text, never headings or boxes",
          "[answers]") {
  const auto doc = parse_answers(
      "### [q2.h] Explain\n"
      "answer:\n"
      "The loop is unrolled:\n"
      "```cpp\n"
      "#pragma unroll\n"
      "### [q9.z] not a part\n"
      "- [x] (a) not a box\n"
      "```\n"
      "~~~\n"
      "# also not a heading\n"
      "~~~\n"
      "\n"
      "    # indented code\n"
      "so loads coalesce.\n"
      "### [q3.a] Pick\n"
      "```\n"
      "- [x] (a) code before the boxes\n"
      "```\n"
      "- [ ] (b) real\n");
  REQUIRE(doc.parts.size() == 2);
  CHECK(doc.parts.at("q2.h").answer ==
        "The loop is unrolled:\n#pragma unroll\n### [q9.z] not a part\n- [x] (a) not a box\n"
        "# also not a heading\n# indented code\nso loads coalesce.");
  const auto& q3 = doc.parts.at("q3.a");
  CHECK(q3.options == std::set<std::string>{"b"});
  CHECK(q3.ticked.empty());
  CHECK(q3.prose == "- [x] (a) code before the boxes");
}

TEST_CASE("parse_answers ignores HTML comments, inline and across lines", "[answers]") {
  const auto doc = parse_answers(
      "<!-- Answer in this file. ### [q0.z] is not a part -->\n"
      "### [q1.a] Pick <!-- the heading keeps its id -->\n"
      "- [ ] (a) one\n"
      "<!-- - [x] (a) a ticked box inside a comment -->\n"
      "- [ ] (b) two <!-- [x] -->\n"
      "<!--\n"
      "### [q9.z] a heading inside a multi-line comment\n"
      "answer: 5\n"
      "- [x] (c) neither is this box\n"
      "-->\n"
      "### [q1.b] A number\n"
      "answer: 32 <!-- MiB, not GiB -->\n"
      "<!-- a note\n"
      "answer: 99\n"
      "that ends here --> tail text\n"
      "### [q1.c] Explain\n"
      "answer: one <!-- a comment\n"
      "across lines --> two\n");
  REQUIRE(doc.parts.size() == 3);
  CHECK(doc.parts.count("q0.z") == 0);
  CHECK(doc.parts.count("q9.z") == 0);
  const auto& a = doc.parts.at("q1.a");
  CHECK(a.options == std::set<std::string>{"a", "b"});
  CHECK(a.ticked.empty());
  CHECK(a.answer.empty());
  CHECK(a.prose.empty());
  // The text after a comment closes is still read.
  CHECK(doc.parts.at("q1.b").answer == "32\ntail text");
  CHECK(doc.parts.at("q1.c").answer == "one  two");
}

// ==== line endings and encodings
// =======================================================================

TEST_CASE("parse_answers reads CRLF and lone CR line endings", "[answers]") {
  for (const std::string eol : {"\r\n", "\r"}) {
    INFO((eol == "\r" ? "CR" : "CRLF"));
    auto lines = [&](std::initializer_list<const char*> ls) {
      std::string out;
      for (const char* l : ls) out += l + eol;
      return out;
    };
    const auto doc =
        parse_answers(lines({"### [q1.b] N", "answer: 32", "### [q1.h] Explain", "answer:", "one",
                             "two", "### [q1.a] Pick", "- [x] (a) one", "- [ ] (b) two",
                             "- [y] (c) three", "```", "#pragma unroll", "```"}));
    REQUIRE(doc.parts.size() == 3);
    CHECK(doc.parts.at("q1.b").answer == "32");
    CHECK(doc.parts.at("q1.h").answer == "one\ntwo");
    const auto& a = doc.parts.at("q1.a");
    CHECK(a.line == 7);
    CHECK(a.ticked == std::set<std::string>{"a"});
    CHECK(a.options == std::set<std::string>{"a", "b", "c"});
    CHECK(problem_lines(a) == std::vector<int>{10});
    CHECK(a.prose == "#pragma unroll");
  }
}

TEST_CASE("parse_answers skips a UTF-8 byte-order mark", "[answers]") {
  const auto doc = parse_answers("\xEF\xBB\xBF### [q1.a] Pick\n- [x] (a) one\n");
  const auto& p = only_part(doc);
  CHECK(p.line == 1);
  CHECK(p.ticked == std::set<std::string>{"a"});
  CHECK(doc.encoding.empty());
}

TEST_CASE("parse_answers reads a GB18030 file, says so, and grades it like the UTF-8 one",
          "[answers]") {
  const std::string utf8 = read_file(source_dir / "solutions/lesson13/answers.md");
  const std::string gb = encode(utf8, "GB18030");
  REQUIRE(gb != utf8);
  const auto doc = parse_answers(gb);
  CHECK(doc.encoding == "GB18030");
  CHECK(doc.problems.empty());
  const auto want = parse_answers(utf8);
  REQUIRE(doc.parts.size() == want.parts.size());
  for (const auto& [id, p] : want.parts) {
    INFO(id);
    CHECK(doc.parts.at(id).answer == p.answer);
    CHECK(doc.parts.at(id).ticked == p.ticked);
  }
  CHECK(total_points(doc) == Approx(6));

  temp_dir dir;
  write_file(dir.path / "answers.md", gb);
  const auto r = grade_answers_file(dir.path / "answers.md", lesson13_key(), lang::en);
  CHECK(r.error.empty());
  CHECK_THAT(r.note, Contains("is not UTF-8: it was read as GB18030"));
  CHECK(r.parts.size() == want.parts.size());
}

TEST_CASE("parse_answers decodes UTF-16 with a byte-order mark", "[answers]") {
  const std::string text = "### [q1.a] 选择\r\n- [x] (a) 寄存器\r\n### [q1.b] N\r\nanswer: 32\r\n";
  for (const char* enc : {"UTF-16LE", "UTF-16BE"}) {
    INFO(enc);
    const std::string bom = enc == std::string("UTF-16LE") ? "\xFF\xFE" : "\xFE\xFF";
    const auto doc = parse_answers(bom + encode(text, enc));
    CHECK(doc.encoding == enc);
    REQUIRE(doc.parts.size() == 2);
    CHECK(doc.parts.at("q1.a").ticked == std::set<std::string>{"a"});
    CHECK(doc.parts.at("q1.b").answer == "32");
    CHECK(doc.parts.at("q1.b").line == 3);
  }
  // Without the mark too (an ASCII first character has a zero byte).
  CHECK(parse_answers(encode(text, "UTF-16LE")).parts.size() == 2);
  // Half a code unit is not UTF-16.
  const auto bad = parse_answers(std::string("\xFF\xFE#\x00#\x00#", 7));
  CHECK(bad.parts.empty());
  REQUIRE(bad.problems.size() == 1);
  CHECK_THAT(bad.problems[0].message, Contains("save the file as UTF-8"));
}

TEST_CASE("parse_answers: bytes neither UTF-8 nor GB18030 are one problem at the first bad line",
          "[answers]") {
  // Latin-1 "café" at the end of a line: E9 before a newline is no GB18030 either.
  const auto doc = parse_answers("### [q1.a] Pick\n- [x] (a) one\n\ncaf\xE9\n### [q1.b] N\n");
  CHECK(doc.parts.empty());
  REQUIRE(doc.problems.size() == 1);
  CHECK(doc.problems[0].line == 4);
  CHECK(doc.problems[0].message == "not UTF-8 (and not GB18030): save the file as UTF-8");
  // UTF-8 cut inside a character ("寄" without its last byte), with CRLF line endings: more
  // good UTF-8 than bad makes it damaged UTF-8, though E5 AF alone is a GB18030 character.
  const auto cut = parse_answers("### [q1.a] 选择\r\n\r\n\xE5\xAF");
  CHECK(cut.parts.empty());
  REQUIRE(cut.problems.size() == 1);
  CHECK(cut.problems[0].line == 3);
  // grade_answers_file: the file's error, with its name and line; no part is graded.
  temp_dir dir;
  write_file(dir.path / "answers.md", "### [q1.a] Pick\n\xFF\xFF\n");
  const auto r = grade_answers_file(dir.path / "answers.md", lesson13_key(), lang::en);
  CHECK_THAT(r.error, Contains("answers.md:2: not UTF-8 (and not GB18030)"));
  CHECK(r.parts.empty());
  CHECK(r.note.empty());
}

// ==== the real files
// ==================================================================================

TEST_CASE("the lesson13 answers files have every part of the key, and the solution full marks",
          "[answers]") {
  const auto key = lesson13_key();
  for (const char* dir : {"exercises", "solutions"}) {
    INFO(dir);
    const auto doc = parse_answers(read_file(source_dir / dir / "lesson13/answers.md"));
    CHECK(doc.problems.empty());
    CHECK(doc.encoding.empty());
    CHECK(doc.parts.size() == key.parts.size());
    for (const auto& k : key.parts) {
      INFO(k.id);
      REQUIRE(doc.parts.count(k.id) == 1);
      const auto& p = doc.parts.at(k.id);
      CHECK(p.problems.empty());
      CHECK(p.prose.empty());
      if (k.type == "choice" || k.type == "multi") CHECK(p.options == k.options);
    }
  }
  const auto r = grade_answers_file(source_dir / "solutions/lesson13/answers.md", key, lang::en);
  CHECK(r.error.empty());
  CHECK(r.note.empty());
  double total = 0;
  for (const auto& g : r.parts) total += g.points;
  CHECK(total == Approx(6));
}

// ==== bytes that must not crash it
// =====================================================================

TEST_CASE("parse_answers never throws or crashes on random, truncated or deep input", "[answers]") {
  std::mt19937 rng(13);
  // Random bytes, and random picks from the characters that matter to it.
  const std::string alphabet = "[]()xX -*+>#`~<!-\n\r\t:aAnswer1.\\|_=";
  for (int i = 0; i < 300; ++i) {
    std::string s(rng() % 2000, '\0');
    for (char& c : s) c = i % 2 ? static_cast<char>(rng()) : alphabet[rng() % alphabet.size()];
    CHECK_NOTHROW(parse_answers(s));
  }
  // The solution cut at every 7th byte, often inside a UTF-8 character.
  const std::string solution = read_file(source_dir / "solutions/lesson13/answers.md");
  for (size_t n = 0; n < solution.size(); n += 7)
    CHECK_NOTHROW(parse_answers(solution.substr(0, n)));
  // Deep nesting, each 10000 deep.
  for (const std::string unit : {">", "[", "- ", "*", "<!--", "![", "`", "1. ", "(", "\\"}) {
    std::string deep;
    for (int i = 0; i < 10000; ++i) deep += unit;
    INFO(unit);
    CHECK_NOTHROW(parse_answers("### [q] Deep\nanswer: " + deep));
    CHECK_NOTHROW(parse_answers("### [q] Deep\n" + deep + "\n- [x] (a)\n"));
  }
}

TEST_CASE("parse_answers reads a 5 MB file in linear time", "[answers]") {
  const std::string solution = read_file(source_dir / "solutions/lesson13/answers.md");
  auto seconds = [](const std::string& s) {
    const auto t0 = std::chrono::steady_clock::now();
    const auto doc = parse_answers(s);
    CHECK(doc.parts.size() == 21);
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  };
  // The parts, then one long explanation under the last of them.
  std::string big = solution;
  while (big.size() < 5'000'000) big += "S and P are N*N [x] (a) <b> `#pragma` [link](u)\n";
  std::string half = solution;
  while (half.size() < 2'500'000) half += "S and P are N*N [x] (a) <b> `#pragma` [link](u)\n";
  const double t_half = seconds(half), t_big = seconds(big);
  INFO(t_half << " s for 2.5 MB, " << t_big << " s for 5 MB");
  CHECK(t_big < 10);
  CHECK(t_big < 4 * t_half + 0.5);  // linear, with room for a busy machine
}
