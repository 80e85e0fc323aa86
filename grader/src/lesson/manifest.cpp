// Loads and validates lessons/<lesson>/manifest.json (see manifest.hpp).
#include "grader/lesson/manifest.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cstdint>
#include <fstream>
#include <nlohmann/json.hpp>
#include <set>

#include "grader/base/error.hpp"
#include "grader/base/files.hpp"

namespace fs = std::filesystem;
using nlohmann::json;

namespace grader {
namespace {

[[noreturn]] void bad(const fs::path& file, const std::string& what) {
  throw input_error(fmt::format("{}: {}", file.string(), what));
}

const json& field(const json& j, const char* name, const fs::path& file, const std::string& where) {
  if (!j.is_object() || !j.contains(name)) bad(file, fmt::format("{} has no \"{}\"", where, name));
  return j.at(name);
}

std::string get_string(const json& j, const char* name, const fs::path& file,
                       const std::string& where) {
  const json& v = field(j, name, file, where);
  if (!v.is_string() || v.get<std::string>().empty())
    bad(file, fmt::format("{}.{} must be a non-empty string", where, name));
  return v.get<std::string>();
}

double get_number(const json& j, const char* name, const fs::path& file, const std::string& where) {
  const json& v = field(j, name, file, where);
  if (!v.is_number()) bad(file, fmt::format("{}.{} must be a number", where, name));
  return v.get<double>();
}

text get_text(const json& j, const char* name, const fs::path& file, const std::string& where) {
  const json& v = field(j, name, file, where);
  auto is_text = [&](const char* l) { return v.contains(l) && v[l].is_string(); };
  if (!v.is_object() || !is_text("zh") || !is_text("en") || v.size() != 2)
    bad(file,
        fmt::format("{}.{} must have \"zh\" and \"en\" strings and nothing else", where, name));
  return text{v.at("zh").get<std::string>(), v.at("en").get<std::string>()};
}

std::vector<std::string> get_strings(const json& j, const char* name, const fs::path& file,
                                     const std::string& where) {
  if (!j.contains(name)) return {};
  const json& v = j.at(name);
  if (!v.is_array()) bad(file, fmt::format("{}.{} must be a list of strings", where, name));
  std::vector<std::string> out;
  for (const json& x : v) {
    if (!x.is_string()) bad(file, fmt::format("{}.{} must be a list of strings", where, name));
    out.push_back(x.get<std::string>());
  }
  return out;
}

// Every key of `j` must be one of `known`: a misspelt key is an error, not ignored.
void only_keys(const json& j, std::initializer_list<const char*> known, const fs::path& file,
               const std::string& where) {
  if (!j.is_object()) bad(file, fmt::format("{} must be an object", where));
  for (const auto& [key, value] : j.items()) {
    bool ok = false;
    for (const char* k : known) ok |= key == k;
    if (!ok) {
      std::string list;
      for (const char* k : known) list += (list.empty() ? "" : ", ") + std::string(k);
      bad(file, fmt::format("{} has an unknown key \"{}\" (known: {})", where, key, list));
    }
  }
}

text optional_text(const json& j, const char* name, const fs::path& file,
                   const std::string& where) {
  if (!j.contains(name)) return {};
  return get_text(j, name, file, where);
}

course find_course_root(const fs::path& hint, const fs::path& start);

}  // namespace

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

manifest load_manifest(const course& c, const std::string& lesson) {
  const fs::path file = c.manifest_path(lesson);
  std::ifstream in(file);
  if (!in) {
    const auto known = c.lessons();
    std::string list;
    for (const auto& l : known) list += (list.empty() ? "" : ", ") + l;
    throw cannot_grade(
        fmt::format("no lesson '{}' (known: {})", lesson, list.empty() ? "none" : list));
  }
  json j;
  try {
    j = json::parse(in);
  } catch (const json::parse_error& e) {
    bad(file, fmt::format("not valid JSON: {}", e.what()));
  }

  only_keys(j, {"schema", "lesson", "title", "notes", "exercises", "units"}, file, "manifest");
  if (!j.contains("schema") || !j["schema"].is_number_integer() ||
      j["schema"].get<int>() != manifest_schema_version)
    bad(file,
        fmt::format(
            "manifest schema {} is not the {} this grader reads (docs/manifest.schema.json)",
            j.contains("schema") ? j["schema"].dump() : "(missing)", manifest_schema_version));
  manifest m;
  m.lesson = get_string(j, "lesson", file, "manifest");
  if (m.lesson != lesson)
    bad(file, fmt::format("\"lesson\" is \"{}\" but the folder is {}", m.lesson, lesson));
  m.title = get_text(j, "title", file, "manifest");

  for (const json& e : field(j, "exercises", file, "manifest")) {
    exercise ex;
    ex.id = get_string(e, "id", file, "exercise");
    const std::string where = "exercise " + ex.id;
    only_keys(e, {"id", "file", "kind", "key", "title", "hints"}, file, where);
    ex.file = get_string(e, "file", file, where);
    ex.kind = get_string(e, "kind", file, where);
    if (ex.kind != "cpp" && ex.kind != "cu" && ex.kind != "answers")
      bad(file, fmt::format("{}: kind \"{}\" is not cpp, cu or answers", where, ex.kind));
    if (ex.kind == "answers") ex.key = get_string(e, "key", file, where);
    ex.title = get_text(e, "title", file, where);
    if (e.contains("hints")) {
      if (!e["hints"].is_object()) bad(file, where + ".hints must have zh and en lists");
      only_keys(e["hints"], {"zh", "en"}, file, where + ".hints");
      ex.hints_zh = get_strings(e["hints"], "zh", file, where + ".hints");
      ex.hints_en = get_strings(e["hints"], "en", file, where + ".hints");
    }
    if (m.find_exercise(ex.id)) bad(file, fmt::format("exercise id {} appears twice", ex.id));
    m.exercises.push_back(std::move(ex));
  }

  for (const json& u : field(j, "units", file, "manifest")) {
    unit un;
    un.id = get_string(u, "id", file, "unit");
    const std::string where = "unit " + un.id;
    only_keys(u, {"id", "title", "max_score", "pass_line", "items", "vetoes"}, file, where);
    un.title = get_text(u, "title", file, where);
    un.max_score = get_number(u, "max_score", file, where);
    un.pass_line = get_number(u, "pass_line", file, where);
    std::set<std::string> ids;
    double total = 0;
    for (const json& i : field(u, "items", file, where)) {
      item it;
      it.id = get_string(i, "id", file, where + " item");
      const std::string iw = where + " item " + it.id;
      only_keys(i, {"id", "exercise", "points", "title", "feedback"}, file, iw);
      it.exercise = get_string(i, "exercise", file, iw);
      if (!m.find_exercise(it.exercise))
        bad(file, fmt::format("{}: no exercise \"{}\"", iw, it.exercise));
      it.points = get_number(i, "points", file, iw);
      it.title = get_text(i, "title", file, iw);
      if (i.contains("feedback")) {
        only_keys(i["feedback"], {"pass", "fail"}, file, iw + ".feedback");
        it.pass_feedback = optional_text(i["feedback"], "pass", file, iw + ".feedback");
        it.fail_feedback = optional_text(i["feedback"], "fail", file, iw + ".feedback");
      }
      if (!ids.insert(it.id).second)
        bad(file, fmt::format("{}: item id {} appears twice", where, it.id));
      total += it.points;
      un.items.push_back(std::move(it));
    }
    if (std::abs(total - un.max_score) > 1e-9)
      bad(file, fmt::format("{}: items add up to {} points, max_score is {}", where, total,
                            un.max_score));
    if (u.contains("vetoes")) {
      for (const json& v : u["vetoes"]) {
        veto ve;
        ve.id = get_string(v, "id", file, where + " veto");
        only_keys(v, {"id", "title", "explain"}, file, where + " veto " + ve.id);
        ve.title = get_text(v, "title", file, where + " veto " + ve.id);
        ve.explain = optional_text(v, "explain", file, where + " veto " + ve.id);
        un.vetoes.push_back(std::move(ve));
      }
    }
    m.units.push_back(std::move(un));
  }
  if (m.units.empty()) bad(file, "no units");
  return m;
}

}  // namespace grader
