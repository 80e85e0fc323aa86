// The answers file without its key (see answers.hpp): what a student release checks
// before the questions are graded at submission. Tests: grader_tests "[release]".
#include <fmt/format.h>

#include "grader/base/error.hpp"
#include "grader/base/files.hpp"
#include "grader/lesson/answers.hpp"
#include "grader/reader/reader.hpp"
#include "answers_parts.hpp"

namespace fs = std::filesystem;
using nlohmann::json;

namespace grader {

std::vector<part_form> form_of(const answer_key& key) {
  std::vector<part_form> out;
  for (const key_part& k : key.parts) out.push_back({k.id, k.item, k.type, k.unit});
  return out;
}

json to_json(const std::vector<part_form>& form) {
  json out = json::array();
  for (const part_form& p : form) {
    json j = {{"id", p.id}, {"item", p.item}, {"type", p.type}};
    if (p.type == "number") j["unit"] = p.unit;
    out.push_back(std::move(j));
  }
  return out;
}

std::vector<part_form> form_from_json(const json& j, const std::string& where) {
  std::vector<part_form> out;
  if (!j.is_array() || j.empty())
    throw input_error(fmt::format("{}: the answer form lists no parts", where));
  try {
    for (const json& p : j) {
      part_form f{p.at("id").get<std::string>(), p.at("item").get<std::string>(),
                  p.at("type").get<std::string>(), p.value("unit", std::string())};
      if (f.type != "choice" && f.type != "multi" && f.type != "number" && f.type != "term" &&
          f.type != "explanation")
        throw input_error(fmt::format("{}: part {} has unknown type \"{}\"", where, f.id, f.type));
      out.push_back(std::move(f));
    }
  } catch (const json::exception& e) {
    throw input_error(fmt::format("{}: malformed answer form: {}", where, e.what()));
  }
  return out;
}

namespace {

// Why a part could not be graded as written, or "" when it can be.
std::string form_problem(const part_form& f, const answer_part& a, lang l) {
  if (!a.problems.empty()) return problems_list(a.problems, l);
  if (f.type == "choice" && a.ticked.size() > 1)
    return trf(l, "单选题只能勾一个，勾了 {} 个", "tick one box only; ticked {}", a.ticked.size());
  if (f.type == "number") {
    const quantity_result q = read_quantity(a.answer, f.unit);
    if (!q.ok()) return describe_error(q, f.unit, l);
  }
  return {};
}

// A part as the form sees it: blank (or missing), or feedback naming what the key could
// not grade; never points.
part_grade check_part(const part_form& f, const answers_doc& doc, lang l) {
  part_grade g{f.id, f.item, 0, 0, {}, false, false, {}, {}};
  const auto found = doc.parts.find(f.id);
  if (found == doc.parts.end()) {
    g.blank = true;
    g.feedback = missing_part_feedback(f.id, l);
  } else if (const answer_part& a = found->second; a.problems.empty() && is_unanswered(f.type, a)) {
    g.blank = true;
  } else if (const std::string why = form_problem(f, a, l); !why.empty()) {
    g.feedback = trf(l, "{}：{}", "{}: {}", f.id, why);
  }
  return g;
}

}  // namespace

answers_result check_answers_form(const fs::path& file, const std::vector<part_form>& form,
                                  lang l) {
  answers_result out = read_answers_file(file, l, [&](const answers_doc& doc, answers_result& r) {
    for (const part_form& f : form) r.parts.push_back(check_part(f, doc, l));
  });
  out.at_submission = true;
  return out;
}

}  // namespace grader
