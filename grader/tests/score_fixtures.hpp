// What the score stage's unit tests share (test_score.cpp, test_score_blanks.cpp): a tiny
// manifest of two code exercises and an answers file, and hand-made test records.
#pragma once

#include <stdexcept>
#include <string>
#include <vector>

#include "course/protocol.hpp"
#include "grader/pipeline/score.hpp"

namespace score_fixtures {

using grader::score_inputs;
using grader::tag_run;
using grader::test_failure;
using grader::test_record;
namespace protocol = course::protocol;

// Two code exercises and an answers file; unit "exam" uses the first and the
// answers, unit "lab" the second. Both units have a veto.
inline grader::manifest tiny_manifest() {
  grader::manifest m;
  m.lesson = "tiny";
  m.exercises = {{"code", "code.cpp", "cpp", "", {"代码", "Code"}, {}},
                 {"kernel", "kernel.cu", "cu", "", {"核", "Kernel"}, {}},
                 {"questions", "answers.md", "answers", "key.json", {"问答", "Questions"}, {}}};
  grader::unit exam{"exam", {"考核", "Exam"}, 4, 3, {}, {}};
  exam.items = {{"code.a", "code", 2, {"甲", "A"}, {"好", "Good."}, {"检查 m", "Check m."}},
                {"q1", "questions", 2, {"问一", "Q1"}, {}, {}}};
  exam.vetoes = {{"flops", {"计算量", "FLOPs"}, {}}};
  grader::unit lab{"lab", {"实验", "Lab"}, 2, 1, {}, {}};
  lab.items = {{"lab.a", "kernel", 2, {"乙", "B"}, {"对", "Right."}, {"错", "Wrong."}}};
  lab.vetoes = {{"race", {"竞争", "Race"}, {}}};
  m.units = {exam, lab};
  return m;
}

inline tag_run run_of(std::string exercise, std::string tag, std::vector<test_record> records,
                      int exit_code = 0) {
  tag_run t;
  t.exercise = std::move(exercise);
  t.tag = std::move(tag);
  t.records = std::move(records);
  t.process.exit_code = exit_code;
  return t;
}

inline test_record passing(std::string name) {
  test_record r;
  r.name = std::move(name);
  r.passed = true;
  return r;
}

inline test_record failing(std::string name, std::string kind, std::string what,
                           std::vector<std::string> info = {}) {
  test_record r;
  r.name = std::move(name);
  test_failure f;
  f.kind = std::move(kind);
  f.expression = what;
  f.message = what;
  f.info = std::move(info);
  r.failures.push_back(f);
  return r;
}

// Everything right: both code items pass, the answers earn full marks.
inline score_inputs all_right() {
  score_inputs in;
  in.runs = {run_of("code", protocol::item_tag("code.a"), {passing("a")}),
             run_of("kernel", protocol::item_tag("lab.a"), {passing("b")}),
             run_of("code", protocol::veto_tag("exam", "flops"), {passing("no flops claim")}),
             run_of("kernel", protocol::veto_tag("lab", "race"), {passing("no race")})};
  grader::part_grade q1;
  q1.id = "q1.a";
  q1.item = "q1";
  q1.points = q1.max_points = 2;
  in.answers["questions"].parts = {q1};
  return in;
}

inline const grader::unit& unit_named(const grader::manifest& m, const std::string& id) {
  for (const auto& u : m.units)
    if (u.id == id) return u;
  throw std::logic_error("no unit " + id);
}

}  // namespace score_fixtures
