// Loads and validates lessons/<lesson>/manifest.json (see manifest.hpp).
#include "grader/lesson/manifest.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <cstdint>
#include <fstream>
#include <nlohmann/json.hpp>
#include <set>

#include "grader/base/error.hpp"
#include "grader/base/files.hpp"

namespace fs = std::filesystem;
// Ordered, so the hints of an exercise's blanks keep the order the manifest gives them.
using ordered_json = nlohmann::ordered_json;

namespace grader {
namespace {

const ordered_json& field(const ordered_json& j, const char* name, const fs::path& file,
                          const std::string& where) {
  if (!j.is_object() || !j.contains(name))
    bad_input(file, fmt::format("{} has no \"{}\"", where, name));
  return j.at(name);
}

std::string get_string(const ordered_json& j, const char* name, const fs::path& file,
                       const std::string& where) {
  const ordered_json& v = field(j, name, file, where);
  if (!v.is_string() || v.get<std::string>().empty())
    bad_input(file, fmt::format("{}.{} must be a non-empty string", where, name));
  return v.get<std::string>();
}

double get_number(const ordered_json& j, const char* name, const fs::path& file,
                  const std::string& where) {
  const ordered_json& v = field(j, name, file, where);
  if (!v.is_number()) bad_input(file, fmt::format("{}.{} must be a number", where, name));
  return v.get<double>();
}

// `v` as a text; `where` names it ("manifest.title") in the error.
text to_text(const ordered_json& v, const fs::path& file, const std::string& where) {
  auto is_text = [&](const char* l) { return v.contains(l) && v[l].is_string(); };
  if (!v.is_object() || !is_text("zh") || !is_text("en") || v.size() != 2)
    bad_input(file, fmt::format("{} must have \"zh\" and \"en\" strings and nothing else", where));
  return text{v.at("zh").get<std::string>(), v.at("en").get<std::string>()};
}

text get_text(const ordered_json& j, const char* name, const fs::path& file,
              const std::string& where) {
  return to_text(field(j, name, file, where), file, fmt::format("{}.{}", where, name));
}

// Every key of `j` must be one of `known`: a misspelt key is an error, not ignored.
void only_keys(const ordered_json& j, std::initializer_list<const char*> known,
               const fs::path& file, const std::string& where) {
  if (!j.is_object()) bad_input(file, fmt::format("{} must be an object", where));
  for (const auto& [key, value] : j.items()) {
    bool ok = false;
    for (const char* k : known) ok |= key == k;
    if (!ok) {
      std::string list;
      for (const char* k : known) list += (list.empty() ? "" : ", ") + std::string(k);
      bad_input(file, fmt::format("{} has an unknown key \"{}\" (known: {})", where, key, list));
    }
  }
}

text optional_text(const ordered_json& j, const char* name, const fs::path& file,
                   const std::string& where) {
  if (!j.contains(name)) return {};
  return get_text(j, name, file, where);
}

// A hint level (1..3) in `j[name]`, or `fallback` when `j` has none.
template <class Json>
int hint_level(const Json& j, const char* name, int fallback, const std::string& where) {
  if (!j.is_object() || !j.contains(name)) return fallback;
  const auto& v = j.at(name);
  if (!v.is_number_integer() || v.template get<long>() < 1 ||
      v.template get<long>() > max_hint_level)
    throw input_error(fmt::format("{}.{} must be a hint level, 1 to {} (got {})", where, name,
                                  max_hint_level, v.dump()));
  return v.template get<int>();
}

int get_hint_level(const ordered_json& j, const char* name, int fallback, const fs::path& file,
                   const std::string& where) {
  try {
    return hint_level(j, name, fallback, where);
  } catch (const input_error& e) {
    bad_input(file, e.what());
  }
}

hint_ladder get_ladder(const ordered_json& j, const fs::path& file, const std::string& where) {
  only_keys(j, {"levels", "release_level"}, file, where);
  const ordered_json& levels = field(j, "levels", file, where);
  if (!levels.is_array() || levels.empty() || levels.size() > max_hint_level)
    bad_input(file, fmt::format("{}.levels must be a list of 1 to {} hints, level 1 first", where,
                                max_hint_level));
  hint_ladder h;
  for (size_t i = 0; i < levels.size(); ++i)
    h.levels.push_back(to_text(levels[i], file, fmt::format("{}.levels[{}]", where, i)));
  h.release_level = get_hint_level(j, "release_level", 0, file, where);
  return h;
}

bool is_identifier(const std::string& s) {
  if (s.empty() || std::isdigit(static_cast<unsigned char>(s[0]))) return false;
  return std::all_of(s.begin(), s.end(),
                     [](unsigned char c) { return std::isalnum(c) || c == '_'; });
}

exercise_hints get_hints(const ordered_json& h, const exercise& ex, const fs::path& file,
                         const std::string& where) {
  if (h.is_object() && (h.contains("zh") || h.contains("en")))
    bad_input(file,
              where +
                  " is a flat list per language, the old format: hints now come per blank, "
                  "in levels ({\"blanks\": {\"<blank>\": {\"levels\": [{\"zh\", \"en\"}, …]}}}, "
                  "docs/manifest.schema.json)");
  only_keys(h, {"release_level", "general", "blanks"}, file, where);
  exercise_hints out;
  out.release_level = get_hint_level(h, "release_level", 0, file, where);
  if (h.contains("general")) out.general = get_ladder(h["general"], file, where + ".general");
  if (h.contains("blanks")) {
    const ordered_json& blanks = h["blanks"];
    if (!blanks.is_object())
      bad_input(file, where + ".blanks must map each BLANK(name) of the exercise to its hints");
    if (!ex.is_code() && !blanks.empty())
      bad_input(file,
                where + ".blanks: an answers file has no BLANK(name)s; give it general hints");
    for (const auto& [name, ladder] : blanks.items()) {
      if (!is_identifier(name))
        bad_input(file, fmt::format("{}.blanks: \"{}\" is not a BLANK(name) (a C++ identifier)",
                                    where, name));
      out.blanks.emplace_back(name,
                              get_ladder(ladder, file, fmt::format("{}.blanks.{}", where, name)));
    }
  }
  return out;
}

course find_course_root(const fs::path& hint, const fs::path& start);

}  // namespace

const hint_ladder* exercise_hints::find(const std::string& blank) const {
  for (const auto& [name, ladder] : blanks)
    if (name == blank) return &ladder;
  return nullptr;
}

int manifest::release_level(const exercise& e, const hint_ladder& h) const {
  if (h.release_level) return h.release_level;
  return e.hints.release_level ? e.hints.release_level : hint_release_level;
}

std::string hint_name(const manifest& m, const exercise& e, const std::string& blank) {
  if (!e.hints.find(blank)) return {};
  for (const exercise& other : m.exercises)
    if (other.id != e.id && other.hints.find(blank)) return e.id + ":" + blank;
  return blank;
}

nlohmann::json manifest_for_release(const nlohmann::json& manifest_json) {
  nlohmann::json out = manifest_json;
  const int lesson_level =
      hint_level(out, "hint_release_level", default_hint_release_level, "manifest");
  if (!out.contains("exercises") || !out["exercises"].is_array()) return out;
  for (nlohmann::json& e : out["exercises"]) {
    if (!e.is_object() || !e.contains("hints") || !e["hints"].is_object()) continue;
    nlohmann::json& h = e["hints"];
    const std::string where = "exercise " + e.value("id", std::string("?")) + ".hints";
    const int exercise_level = hint_level(h, "release_level", lesson_level, where);
    auto cut = [&](nlohmann::json& ladder, const std::string& at) {
      const auto keep =
          static_cast<size_t>(hint_level(ladder, "release_level", exercise_level, at));
      if (!ladder.is_object() || !ladder.contains("levels")) return;
      nlohmann::json& levels = ladder["levels"];
      if (levels.is_array() && levels.size() > keep)
        levels.erase(levels.begin() + static_cast<std::ptrdiff_t>(keep), levels.end());
    };
    if (h.contains("general")) cut(h["general"], where + ".general");
    if (h.contains("blanks") && h["blanks"].is_object())
      for (auto it = h["blanks"].begin(); it != h["blanks"].end(); ++it)
        cut(it.value(), where + ".blanks." + it.key());
  }
  return out;
}

const exercise* manifest::find_exercise(const std::string& id) const {
  for (const auto& e : exercises)
    if (e.id == id) return &e;
  return nullptr;
}

const exercise& manifest::exercise_of(const item& it) const {
  return *find_exercise(it.exercise);
}

unsigned lesson_seed(const std::string& lesson) {
  std::uint32_t h = 2166136261u;  // FNV-1a: the same on every machine and compiler
  for (const unsigned char c : lesson) h = (h ^ c) * 16777619u;
  return h;
}

std::vector<std::string> course::lessons() const {
  std::vector<std::string> out;
  std::error_code ec;
  for (const auto& entry : fs::directory_iterator(root / "lessons", ec))
    if (fs::exists(entry.path() / "manifest.json")) out.push_back(entry.path().filename().string());
  std::sort(out.begin(), out.end());
  return out;
}

course find_course(const fs::path& hint, const fs::path& start, const fs::path& build_dir) {
  course c = find_course_root(hint, start);
  c.build_dir = build_dir.empty() ? executable_build_dir() : fs::absolute(build_dir);
  return c;
}

namespace {
course find_course_root(const fs::path& hint, const fs::path& start) {
  auto is_root = [](const fs::path& p) {
    return fs::is_directory(p / "lessons") && fs::is_directory(p / "grader") &&
           fs::exists(p / "CMakeLists.txt");
  };
  if (!hint.empty()) {
    if (!is_root(hint))
      throw cannot_grade(
          fmt::format("{} is not a course root (it needs lessons/, grader/ and CMakeLists.txt)",
                      hint.string()));
    return course{fs::absolute(hint).lexically_normal(), {}};
  }
  for (fs::path p = fs::absolute(start); !p.empty(); p = p.parent_path()) {
    if (is_root(p)) return course{p.lexically_normal(), {}};
    if (p == p.parent_path()) break;
  }
#ifdef COURSE_SOURCE_DIR
  if (is_root(COURSE_SOURCE_DIR)) return course{fs::path(COURSE_SOURCE_DIR), {}};
#endif
  throw cannot_grade("cannot find the course: run inside its folder or pass --root");
}
}  // namespace

namespace {

// The manifest's JSON, or why there is none: an unknown lesson names the known ones.
ordered_json read_manifest_json(const course& c, const std::string& lesson, const fs::path& file) {
  std::ifstream in(file);
  if (!in) {
    const auto known = c.lessons();
    std::string list;
    for (const auto& l : known) list += (list.empty() ? "" : ", ") + l;
    throw cannot_grade(
        fmt::format("no lesson '{}' (known: {})", lesson, list.empty() ? "none" : list));
  }
  try {
    return ordered_json::parse(in);
  } catch (const ordered_json::parse_error& e) {
    bad_input(file, fmt::format("not valid JSON: {}", e.what()));
  }
}

// The lesson's own fields: its schema, name, title and default hint level.
void read_header(const ordered_json& j, const std::string& lesson, const fs::path& file,
                 manifest& m) {
  only_keys(j, {"schema", "lesson", "title", "notes", "hint_release_level", "exercises", "units"},
            file, "manifest");
  if (!j.contains("schema") || !j["schema"].is_number_integer() ||
      j["schema"].get<int>() != manifest_schema_version)
    bad_input(
        file,
        fmt::format(
            "manifest schema {} is not the {} this grader reads (docs/manifest.schema.json)",
            j.contains("schema") ? j["schema"].dump() : "(missing)", manifest_schema_version));
  m.lesson = get_string(j, "lesson", file, "manifest");
  if (m.lesson != lesson)
    bad_input(file, fmt::format("\"lesson\" is \"{}\" but the folder is {}", m.lesson, lesson));
  m.title = get_text(j, "title", file, "manifest");
  m.hint_release_level =
      get_hint_level(j, "hint_release_level", default_hint_release_level, file, "manifest");
}

exercise read_exercise(const ordered_json& e, const fs::path& file) {
  exercise ex;
  ex.id = get_string(e, "id", file, "exercise");
  const std::string where = "exercise " + ex.id;
  only_keys(e, {"id", "file", "kind", "key", "title", "hints", "outside_blanks"}, file, where);
  ex.file = get_string(e, "file", file, where);
  ex.kind = get_string(e, "kind", file, where);
  if (ex.kind != "cpp" && ex.kind != "cu" && ex.kind != "answers")
    bad_input(file, fmt::format("{}: kind \"{}\" is not cpp, cu or answers", where, ex.kind));
  if (ex.kind == "answers") ex.key = get_string(e, "key", file, where);
  ex.title = get_text(e, "title", file, where);
  if (e.contains("hints")) ex.hints = get_hints(e["hints"], ex, file, where + ".hints");
  if (e.contains("outside_blanks")) {
    const std::string policy = get_string(e, "outside_blanks", file, where);
    if (policy != "flag" && policy != "fail")
      bad_input(file, fmt::format("{}: outside_blanks \"{}\" is not flag or fail", where, policy));
    if (!ex.is_code())
      bad_input(file, fmt::format("{}: outside_blanks is for code exercises", where));
    ex.outside_blanks_fail = policy == "fail";
  }
  return ex;
}

// A rubric item of unit `where`: it must name an exercise of `m`.
item read_item(const ordered_json& i, const manifest& m, const fs::path& file,
               const std::string& where) {
  item it;
  it.id = get_string(i, "id", file, where + " item");
  const std::string iw = where + " item " + it.id;
  only_keys(i, {"id", "exercise", "points", "title", "feedback"}, file, iw);
  it.exercise = get_string(i, "exercise", file, iw);
  if (!m.find_exercise(it.exercise))
    bad_input(file, fmt::format("{}: no exercise \"{}\"", iw, it.exercise));
  it.points = get_number(i, "points", file, iw);
  it.title = get_text(i, "title", file, iw);
  if (i.contains("feedback")) {
    only_keys(i["feedback"], {"pass", "fail"}, file, iw + ".feedback");
    it.pass_feedback = optional_text(i["feedback"], "pass", file, iw + ".feedback");
    it.fail_feedback = optional_text(i["feedback"], "fail", file, iw + ".feedback");
  }
  return it;
}

veto read_veto(const ordered_json& v, const fs::path& file, const std::string& where) {
  veto ve;
  ve.id = get_string(v, "id", file, where + " veto");
  only_keys(v, {"id", "title", "explain"}, file, where + " veto " + ve.id);
  ve.title = get_text(v, "title", file, where + " veto " + ve.id);
  ve.explain = optional_text(v, "explain", file, where + " veto " + ve.id);
  return ve;
}

// A unit: its items, unique and adding up to max_score, and the vetoes it declares.
unit read_unit(const ordered_json& u, const manifest& m, const fs::path& file) {
  unit un;
  un.id = get_string(u, "id", file, "unit");
  const std::string where = "unit " + un.id;
  only_keys(u, {"id", "title", "max_score", "pass_line", "items", "vetoes"}, file, where);
  un.title = get_text(u, "title", file, where);
  un.max_score = get_number(u, "max_score", file, where);
  un.pass_line = get_number(u, "pass_line", file, where);
  std::set<std::string> ids;
  double total = 0;
  for (const ordered_json& i : field(u, "items", file, where)) {
    item it = read_item(i, m, file, where);
    if (!ids.insert(it.id).second)
      bad_input(file, fmt::format("{}: item id {} appears twice", where, it.id));
    total += it.points;
    un.items.push_back(std::move(it));
  }
  if (std::abs(total - un.max_score) > 1e-9)
    bad_input(file, fmt::format("{}: items add up to {} points, max_score is {}", where, total,
                                un.max_score));
  if (u.contains("vetoes"))
    for (const ordered_json& v : u["vetoes"]) un.vetoes.push_back(read_veto(v, file, where));
  return un;
}

}  // namespace

manifest load_manifest(const course& c, const std::string& lesson) {
  const fs::path file = c.manifest_path(lesson);
  const ordered_json j = read_manifest_json(c, lesson, file);
  manifest m;
  read_header(j, lesson, file, m);
  for (const ordered_json& e : field(j, "exercises", file, "manifest")) {
    exercise ex = read_exercise(e, file);
    if (m.find_exercise(ex.id)) bad_input(file, fmt::format("exercise id {} appears twice", ex.id));
    m.exercises.push_back(std::move(ex));
  }
  for (const ordered_json& u : field(j, "units", file, "manifest"))
    m.units.push_back(read_unit(u, m, file));
  if (m.units.empty()) bad_input(file, "no units");
  return m;
}

}  // namespace grader
