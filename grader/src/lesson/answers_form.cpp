// The answers file without its key (see answers.hpp): what a student release checks
// before the questions are graded at submission. Tests: grader_tests "[release]".
#include <fmt/format.h>

#include "grader/base/error.hpp"
#include "grader/base/files.hpp"
#include "grader/lesson/answers.hpp"
#include "grader/reader/reader.hpp"

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
  if (!a.problems.empty()) {
    std::string list;
    for (const answers_problem& p : a.problems)
      list += (list.empty() ? "" : "; ") + trf(l, "第 {} 行：{}", "line {}: {}", p.line, p.message);
    return list;
  }
  if (f.type == "choice" && a.ticked.size() > 1)
    return trf(l, "单选题只能勾一个，勾了 {} 个", "tick one box only; ticked {}", a.ticked.size());
  if (f.type == "number") {
    const quantity_result q = read_quantity(a.answer, f.unit);
    if (!q.ok()) return describe_error(q, f.unit, l);
  }
  return {};
}

}  // namespace

answers_result check_answers_form(const fs::path& file, const std::vector<part_form>& form,
                                  lang l) {
  answers_result out;
  out.at_submission = true;
  try {
    const answers_doc doc = parse_answers(read_text(file));
    for (const answers_problem& p : doc.problems)
      out.error += (out.error.empty() ? "" : "\n") +
                   (p.line > 0 ? fmt::format("{}:{}: {}", display_path(file), p.line, p.message)
                               : fmt::format("{}: {}", display_path(file), p.message));
    if (!doc.encoding.empty())
      out.note = trf(l, "{} 不是 UTF-8，已按 {} 读取；请另存为 UTF-8",
                     "{} is not UTF-8: it was read as {}; save it as UTF-8", display_path(file),
                     doc.encoding);
    if (!out.error.empty()) return out;
    for (const part_form& f : form) {
      part_grade g{f.id, f.item, 0, 0, {}, false, false, {}, {}};
      const auto found = doc.parts.find(f.id);
      if (found == doc.parts.end()) {
        g.blank = true;
        g.feedback =
            trf(l, "{}：答案文件里没有这一部分（从 exercises 恢复该标题）",
                "{}: missing from the answers file (restore its heading from exercises/)", f.id);
      } else if (const answer_part& a = found->second;
                 a.problems.empty() &&
                 ((f.type == "choice" || f.type == "multi") ? a.ticked.empty()
                                                            : a.answer.empty())) {
        g.blank = true;
      } else if (const std::string why = form_problem(f, a, l); !why.empty()) {
        g.feedback = trf(l, "{}：{}", "{}: {}", f.id, why);
      }
      out.parts.push_back(std::move(g));
    }
  } catch (const input_error& e) {
    out.error = e.what();
  } catch (const std::exception& e) {
    out.error =
        fmt::format("{}: the grader could not read this file ({})", display_path(file), e.what());
  }
  return out;
}

}  // namespace grader
