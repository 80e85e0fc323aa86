// Unit tests for leveled hints: the manifest's hints (manifest.cpp), the release copy
// (manifest_for_release), the hints-vs-blanks check and `grader hint` (hint.cpp).
//   build/bin/grader_tests "[hints]"
#include <catch2/catch.hpp>

#include "temp_dir.hpp"
#include <filesystem>
#include <fstream>
#include <functional>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

#include "grader/base/error.hpp"
#include "grader/base/files.hpp"
#include "grader/commands/hint.hpp"
#include "grader/lesson/manifest.hpp"
#include "grader/lesson/regions.hpp"

namespace fs = std::filesystem;
using Catch::Matchers::Contains;
using Catch::Matchers::EndsWith;
using grader::course;
using grader::hint_request;
using grader::input_error;
using grader::lang;
using grader::load_manifest;
// Ordered, so the order of a manifest's blanks survives into the file the test writes.
using json = nlohmann::ordered_json;

namespace {

const fs::path source_dir{COURSE_SOURCE_DIR};

json both(const std::string& zh, const std::string& en) {
  return {{"zh", zh}, {"en", en}};
}

json ladder(int levels, const std::string& tag) {
  json l = json::array();
  for (int i = 1; i <= levels; ++i)
    l.push_back(both(fmt::format("{} 第{}级", tag, i), fmt::format("{} level {}", tag, i)));
  return {{"levels", l}};
}

// Two code exercises sharing the blank name "m_new", and an answers file with general
// hints; "m_new" of the first has 3 levels, "scale" 2, "row" 3 with its own release level.
json hinted_manifest(const std::string& lesson) {
  json code = {
      {"id", "code"}, {"file", "code.cpp"}, {"kind", "cpp"}, {"title", both("代码", "Code")}};
  code["hints"]["blanks"] = json::object();
  code["hints"]["blanks"]["scale"] = ladder(2, "code.scale");  // not in file order: "scale" first
  code["hints"]["blanks"]["m_new"] = ladder(3, "code.m_new");
  json kernel = {
      {"id", "kernel"}, {"file", "kernel.cu"}, {"kind", "cu"}, {"title", both("核", "Kernel")}};
  kernel["hints"] = {{"release_level", 1}, {"general", ladder(2, "kernel")}};
  kernel["hints"]["blanks"]["m_new"] = ladder(3, "kernel.m_new");
  kernel["hints"]["blanks"]["row"] = ladder(3, "kernel.row");
  kernel["hints"]["blanks"]["row"]["release_level"] = 3;
  json questions = {{"id", "questions"},
                    {"file", "answers.md"},
                    {"kind", "answers"},
                    {"key", "answer_key.json"},
                    {"title", both("问答", "Questions")}};
  questions["hints"]["general"] = ladder(2, "questions");
  return {{"schema", 1},
          {"lesson", lesson},
          {"title", both("测试课", "Test lesson")},
          {"exercises", json::array({code, kernel, questions})},
          {"units", json::array({{{"id", "exam"},
                                  {"title", both("考核", "Exam")},
                                  {"max_score", 1},
                                  {"pass_line", 1},
                                  {"items", json::array({{{"id", "code.a"},
                                                          {"exercise", "code"},
                                                          {"points", 1},
                                                          {"title", both("甲", "A")}}})}}})}};
}

// A course root in a temp dir with one lesson and its student files.
struct hint_course {
  temp_dir dir;
  course c;
  hint_course() : c{dir.path, dir.path / "build"} {
    fs::create_directories(dir.path / "grader");
    std::ofstream(dir.path / "CMakeLists.txt") << "# test course\n";
  }
  void write_manifest(const json& j) {
    fs::create_directories(c.lesson_dir("tiny"));
    std::ofstream(c.manifest_path("tiny")) << j.dump(2);
  }
  void write_exercise(const std::string& file, const std::string& text) {
    fs::create_directories(c.exercises_dir("tiny"));
    std::ofstream(c.exercises_dir("tiny") / file) << text;
  }
  grader::manifest load() { return load_manifest(c, "tiny"); }
};

struct hint_output {
  int rc;
  std::string out, err;
};

hint_output hint(const course& c, const grader::manifest& m, const std::string& blank,
                 int level = 0, lang l = lang::en) {
  std::ostringstream out, err;
  const int rc = grader::run_hint(c, m, hint_request{blank, level, l}, out, err);
  return {rc, out.str(), err.str()};
}

// A course whose student files hold the blanks: code.cpp has m_new (line 2) and scale
// (line 4); kernel.cu has row only, its m_new already filled in.
struct example : hint_course {
  example() {
    write_manifest(hinted_manifest("tiny"));
    write_exercise("code.cpp", "// code\nfloat m = BLANK(m_new);\n\nfloat s = BLANK(scale);\n");
    write_exercise("kernel.cu", "int row = BLANK(row);\nfloat m = 0;\n");
  }
};

}  // namespace

// ==== loading
// =========================================================================================

TEST_CASE("load_manifest reads hint levels, release levels and the blanks' order", "[hints]") {
  example ex;
  const auto m = ex.load();
  CHECK(m.hint_release_level == 2);
  const auto& code = m.exercises[0].hints;
  REQUIRE(code.blanks.size() == 2);
  CHECK(code.blanks[0].first == "scale");  // the manifest's order, not sorted
  CHECK(code.blanks[1].first == "m_new");
  REQUIRE(code.find("m_new") != nullptr);
  CHECK(code.find("m_new")->levels.size() == 3);
  CHECK(code.find("m_new")->levels[2].en == "code.m_new level 3");
  CHECK(code.find("m_new")->levels[0].zh == "code.m_new 第1级");
  CHECK(code.find("nope") == nullptr);
  CHECK(code.general.levels.empty());
  CHECK(m.exercises[2].hints.general.levels.size() == 2);
  CHECK(m.exercises[2].hints.blanks.empty());

  // Release levels: the blank's, else the exercise's, else the lesson's.
  const auto& kernel = m.exercises[1];
  CHECK(m.release_level(m.exercises[0], *code.find("m_new")) == 2);
  CHECK(m.release_level(kernel, *kernel.hints.find("m_new")) == 1);
  CHECK(m.release_level(kernel, *kernel.hints.find("row")) == 3);
  CHECK(m.release_level(kernel, kernel.hints.general) == 1);

  json j = hinted_manifest("tiny");
  j["hint_release_level"] = 3;
  ex.write_manifest(j);
  const auto m3 = ex.load();
  CHECK(m3.release_level(m3.exercises[0], *m3.exercises[0].hints.find("m_new")) == 3);
}

TEST_CASE("load_manifest: each malformed hint is an input_error naming the file and the place",
          "[hints]") {
  hint_course hc;
  struct bad {
    const char* what;
    std::function<void(json&)> change;
    std::string message;  // the part after "<file>: "
  };
  const std::vector<bad> cases = {
      {"lesson release level 4", [](json& j) { j["hint_release_level"] = 4; },
       "manifest.hint_release_level must be a hint level, 1 to 3 (got 4)"},
      {"exercise release level 0", [](json& j) { j["exercises"][1]["hints"]["release_level"] = 0; },
       "exercise kernel.hints.release_level must be a hint level, 1 to 3 (got 0)"},
      {"blank release level as a string",
       [](json& j) { j["exercises"][0]["hints"]["blanks"]["m_new"]["release_level"] = "2"; },
       "exercise code.hints.blanks.m_new.release_level must be a hint level, 1 to 3 (got \"2\")"},
      {"four levels",
       [](json& j) { j["exercises"][0]["hints"]["blanks"]["m_new"] = ladder(4, "x"); },
       "exercise code.hints.blanks.m_new.levels must be a list of 1 to 3 hints, level 1 first"},
      {"no level",
       [](json& j) { j["exercises"][0]["hints"]["blanks"]["m_new"]["levels"] = json::array(); },
       "exercise code.hints.blanks.m_new.levels must be a list of 1 to 3 hints, level 1 first"},
      {"a level without en",
       [](json& j) { j["exercises"][0]["hints"]["blanks"]["scale"]["levels"][1].erase("en"); },
       "exercise code.hints.blanks.scale.levels[1] must have \"zh\" and \"en\" strings and nothing "
       "else"},
      {"a blank without levels",
       [](json& j) { j["exercises"][0]["hints"]["blanks"]["scale"] = json::object(); },
       "exercise code.hints.blanks.scale has no \"levels\""},
      {"a misspelt ladder key",
       [](json& j) { j["exercises"][0]["hints"]["blanks"]["scale"]["level"] = 1; },
       "exercise code.hints.blanks.scale has an unknown key \"level\" (known: levels, "
       "release_level)"},
      {"a misspelt hints key",
       [](json& j) { j["exercises"][0]["hints"]["blank"] = json::object(); },
       "exercise code.hints has an unknown key \"blank\" (known: release_level, general, blanks)"},
      {"a blank name that is no identifier",
       [](json& j) { j["exercises"][0]["hints"]["blanks"]["m-new"] = ladder(1, "x"); },
       "exercise code.hints.blanks: \"m-new\" is not a BLANK(name) (a C++ identifier)"},
      {"blanks on the answers file",
       [](json& j) { j["exercises"][2]["hints"]["blanks"]["q1"] = ladder(1, "x"); },
       "exercise questions.hints.blanks: an answers file has no BLANK(name)s; give it general "
       "hints"},
      {"the old flat lists",
       [](json& j) {
         j["exercises"][0]["hints"] = {{"zh", {"提示"}}, {"en", {"a hint"}}};
       },
       "exercise code.hints is a flat list per language, the old format: hints now come per "
       "blank, in levels ({\"blanks\": {\"<blank>\": {\"levels\": [{\"zh\", \"en\"}, …]}}}, "
       "docs/manifest.schema.json)"},
  };
  for (const auto& b : cases) {
    INFO(b.what);
    json j = hinted_manifest("tiny");
    b.change(j);
    hc.write_manifest(j);
    CHECK_THROWS_AS(hc.load(), input_error);
    CHECK_THROWS_WITH(hc.load(), hc.c.manifest_path("tiny").string() + ": " + b.message);
  }
}

TEST_CASE("hint_name names a blank, with its exercise when another has the same name", "[hints]") {
  example ex;
  const auto m = ex.load();
  CHECK(grader::hint_name(m, m.exercises[0], "scale") == "scale");
  CHECK(grader::hint_name(m, m.exercises[0], "m_new") == "code:m_new");
  CHECK(grader::hint_name(m, m.exercises[1], "m_new") == "kernel:m_new");
  CHECK(grader::hint_name(m, m.exercises[0], "row").empty());  // row is the kernel's
}

// ==== the student release's copy
// ======================================================================

TEST_CASE("manifest_for_release drops the levels above each hint's release level", "[hints]") {
  const nlohmann::json full = nlohmann::json(hinted_manifest("tiny"));
  const nlohmann::json rel = grader::manifest_for_release(full);
  const auto& code = rel["exercises"][0]["hints"]["blanks"];
  CHECK(code["m_new"]["levels"].size() == 2);  // the lesson's default, 2
  const auto& levels = full["exercises"][0]["hints"]["blanks"]["m_new"]["levels"];
  CHECK(code["m_new"]["levels"] == nlohmann::json::array({levels[0], levels[1]}));
  CHECK(code["scale"]["levels"].size() == 2);
  const auto& kernel = rel["exercises"][1]["hints"];
  CHECK(kernel["release_level"] == 1);  // kept
  CHECK(kernel["general"]["levels"].size() == 1);
  CHECK(kernel["blanks"]["m_new"]["levels"].size() == 1);
  CHECK(kernel["blanks"]["row"]["levels"].size() == 3);  // allowed by the blank itself
  CHECK(kernel["blanks"]["row"]["release_level"] == 3);
  CHECK(rel["exercises"][2]["hints"]["general"]["levels"].size() == 2);
  // Everything but the hint levels is as it was.
  nlohmann::json back = rel;
  back["exercises"][0]["hints"] = full["exercises"][0]["hints"];
  back["exercises"][1]["hints"] = full["exercises"][1]["hints"];
  CHECK(back == full);

  // Nothing above the release level: unchanged, and applying it twice changes nothing.
  CHECK(grader::manifest_for_release(rel) == rel);
  nlohmann::json all3 = full;
  all3["hint_release_level"] = 3;
  all3["exercises"][1]["hints"].erase("release_level");
  CHECK(grader::manifest_for_release(all3) == all3);

  nlohmann::json broken = full;
  broken["hint_release_level"] = 0;
  CHECK_THROWS_AS(grader::manifest_for_release(broken), input_error);
  CHECK_THROWS_WITH(grader::manifest_for_release(broken),
                    Contains("manifest.hint_release_level must be a hint level"));
}

TEST_CASE("manifest_for_release of lesson13 keeps level 3 only where the manifest allows it",
          "[hints]") {
  std::ifstream in(source_dir / "lessons" / "lesson13" / "manifest.json");
  const nlohmann::json rel = grader::manifest_for_release(nlohmann::json::parse(in));
  std::vector<std::string> with_level_3;
  for (const auto& e : rel["exercises"]) {
    if (e["hints"].contains("general")) CHECK(e["hints"]["general"]["levels"].size() <= 2);
    const nlohmann::json blanks = e["hints"].value("blanks", nlohmann::json::object());
    for (const auto& [name, l] : blanks.items())
      if (l["levels"].size() == 3) with_level_3.push_back(name);
  }
  // Lab 0's barriers (warmup.cu), then lab 2's (matmul_tiled.cu).
  CHECK(with_level_3 == std::vector<std::string>{"barrier_after_load", "barrier_after_write",
                                                 "barrier_before_write", "barrier_in_loop",
                                                 "tile_barrier", "barrier_after_load",
                                                 "barrier_before_next_tile"});
}

// ==== hints and blanks agree (dev check hints:<exercise>)
// ====================================================================

TEST_CASE("hint_blank_mismatch: the hints and the file's blanks must be the same set", "[hints]") {
  grader::exercise e;
  e.file = "code.cpp";
  e.kind = "cpp";
  e.hints.blanks = {{"m_new", {}}, {"scale", {}}};
  CHECK(grader::hint_blank_mismatch(e, {{"scale", 4}, {"m_new", 2}}).empty());
  CHECK(grader::hint_blank_mismatch(e, {{"m_new", 2}, {"scale", 4}, {"m_new", 9}}).empty());
  CHECK(grader::hint_blank_mismatch(e, {{"m_new", 2}, {"scale", 4}, {"l_new", 6}}) ==
        "code.cpp: blanks without hints: l_new. ");
  CHECK(grader::hint_blank_mismatch(e, {{"m_new", 2}}) ==
        "code.cpp: hints for blanks the file does not have: scale. ");
  CHECK(grader::hint_blank_mismatch(e, {{"m_new", 2}, {"O_update", 7}}) ==
        "code.cpp: blanks without hints: O_update. code.cpp: hints for blanks the file does not "
        "have: scale. ");
  e.hints.blanks.clear();
  CHECK(grader::hint_blank_mismatch(e, {{"m_new", 2}}) ==
        "code.cpp: blanks without hints: m_new. ");
}

TEST_CASE("lesson13: every blank of every exercise has three levels of hints, in zh and en",
          "[hints]") {
  const course c{source_dir, {}};
  const auto m = load_manifest(c, "lesson13");
  for (const auto& e : m.exercises) {
    INFO(e.id);
    if (!e.is_code()) {
      CHECK(e.hints.blanks.empty());
      CHECK_FALSE(e.hints.general.levels.empty());
      continue;
    }
    const auto blanks =
        grader::find_blanks(grader::read_text(c.exercises_dir("lesson13") / e.file));
    CHECK(grader::hint_blank_mismatch(e, blanks).empty());
    for (const auto& [name, h] : e.hints.blanks) {
      INFO(name);
      CHECK(h.levels.size() == 3);
      for (const auto& t : h.levels) CHECK((!t.zh.empty() && !t.en.empty()));
    }
  }
}

// ==== grader hint
// =====================================================================================

TEST_CASE("grader hint lists each exercise's blanks in file order with their level-1 hint",
          "[hints]") {
  example ex;
  const auto m = ex.load();
  const auto r = hint(ex.c, m, "");
  CHECK(r.rc == 0);
  CHECK(r.err.empty());
  // File order (m_new before scale) and lines; a blank already filled comes last.
  const auto code = r.out.find("Code — ");
  const auto m_new = r.out.find("  m_new (line 2): code.m_new level 1\n");
  const auto scale = r.out.find("  scale (line 4): code.scale level 1\n");
  const auto kernel = r.out.find("Kernel — ");
  const auto general = r.out.find("  kernel level 1\n");
  const auto row = r.out.find("  row (line 1): kernel.row level 1\n");
  const auto filled = r.out.find("  m_new (filled in): kernel.m_new level 1\n");
  const auto questions = r.out.find("  questions level 1\n");
  for (const auto at : {code, m_new, scale, kernel, general, row, filled, questions})
    CHECK(at != std::string::npos);
  CHECK((code < m_new && m_new < scale && scale < kernel && kernel < general && general < row &&
         row < filled && filled < questions));
  CHECK_THAT(r.out, !Contains("m_new level 2") && !Contains("scale level 2"));
  CHECK_THAT(r.out, Contains("  grader hint tiny code:m_new --level 2\n"));

  const auto zh = hint(ex.c, m, "", 0, lang::zh);
  CHECK_THAT(zh.out, Contains("  m_new（第 2 行）：code.m_new 第1级\n"));
  CHECK_THAT(zh.out, Contains("代码——"));

  // --level asks about one blank.
  const auto bad = hint(ex.c, m, "", 2);
  CHECK(bad.rc == 2);
  CHECK(bad.out.empty());
  CHECK(bad.err ==
        "grader: --level goes with a blank's name: grader hint tiny <blank> --level 2\n");
}

TEST_CASE("grader hint <blank> --level N prints that level only", "[hints]") {
  example ex;
  const auto m = ex.load();
  const auto one = hint(ex.c, m, "scale", 2);
  CHECK(one.rc == 0);
  CHECK(one.out == "code.cpp: scale (line 4), level 2 of 2\n  code.scale level 2\n");

  const auto first = hint(ex.c, m, "code:m_new");
  CHECK(first.out ==
        "code.cpp: m_new (line 2), level 1 of 3\n  code.m_new level 1\n"
        "Next level: grader hint tiny code:m_new --level 2\n");
  // Above the release level: the instructor's copy says so.
  CHECK_THAT(hint(ex.c, m, "code:m_new", 3).out,
             Contains("code.m_new level 3\n  (instructor's copy: a student release keeps levels "
                      "1–2 only)\n"));

  // A name in two exercises: both, each under its file.
  const auto shared = hint(ex.c, m, "m_new", 2);
  CHECK(shared.rc == 0);
  CHECK_THAT(shared.out,
             Contains("code.cpp: m_new (line 2), level 2 of 3\n  code.m_new level 2\n"));
  CHECK_THAT(shared.out, Contains("kernel.cu: m_new, level 2 of 3\n  kernel.m_new level 2\n"));

  // An exercise id: its general hints.
  CHECK(hint(ex.c, m, "kernel", 2).out ==
        "kernel.cu: general hints, level 2 of 2\n  kernel level 2\n"
        "  (instructor's copy: a student release keeps level 1 only)\n");
  CHECK(hint(ex.c, m, "questions:").out ==
        "answers.md: general hints, level 1 of 2\n  questions level 1\n"
        "Next level: grader hint tiny questions --level 2\n");
  CHECK_THAT(hint(ex.c, m, "scale", 1, lang::zh).out,
             Contains("code.cpp: scale（第 4 行），第 1 级（共 2 级）\n  code.scale 第1级\n"));
}

TEST_CASE("grader hint: an unknown blank or a level the course lacks exits 2 with one line",
          "[hints]") {
  example ex;
  const auto m = ex.load();
  const auto unknown = hint(ex.c, m, "l_new");
  CHECK(unknown.rc == 2);
  CHECK(unknown.out.empty());
  CHECK(unknown.err ==
        "grader: no hints for 'l_new' in tiny; blanks: scale, m_new, row; exercises with general "
        "hints: kernel, questions\n");
  CHECK(hint(ex.c, m, "code:row").rc == 2);
  CHECK(hint(ex.c, m, "nope:m_new").rc == 2);

  const auto too_high = hint(ex.c, m, "scale", 3);
  CHECK(too_high.rc == 2);
  CHECK(too_high.out.empty());
  CHECK(too_high.err ==
        "grader: level 3 is not available for scale in this course; levels 1–2 are\n");
  CHECK(hint(ex.c, m, "scale", 3, lang::zh).err ==
        "grader: 本课程没有 scale 的第 3 级提示；有第 1–2 级\n");

  // A student release: level 3 was removed where the release level is 2.
  ex.write_manifest(json(grader::manifest_for_release(nlohmann::json(hinted_manifest("tiny")))));
  const auto rel = ex.load();
  CHECK(hint(ex.c, rel, "code:m_new", 2).rc == 0);
  CHECK(hint(ex.c, rel, "code:m_new", 3).err ==
        "grader: level 3 is not available for code:m_new in this course; levels 1–2 are\n");
  CHECK(hint(ex.c, rel, "kernel:m_new", 2).err ==
        "grader: level 2 is not available for kernel:m_new in this course; only level 1 is\n");
  CHECK(hint(ex.c, rel, "row", 3).rc == 0);  // the blank's own release level is 3
  CHECK_THAT(hint(ex.c, rel, "row", 3).out, EndsWith("kernel.row level 3\n"));
}
