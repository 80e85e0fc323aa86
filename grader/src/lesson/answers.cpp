// Parsing the answers file and grading it against the key (see answers.hpp).
#include "grader/lesson/answers.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <fstream>
#include <nlohmann/json.hpp>
#include <regex>

#include "grader/base/error.hpp"
#include "grader/base/i18n.hpp"
#include "grader/base/files.hpp"

namespace fs = std::filesystem;
using nlohmann::json;

namespace grader {
namespace {

std::string trim(std::string_view s) {
  const auto b = s.find_first_not_of(" \t\r\n");
  if (b == std::string_view::npos) return {};
  const auto e = s.find_last_not_of(" \t\r\n");
  return std::string(s.substr(b, e - b + 1));
}

std::string lower_ascii(std::string_view s) {
  std::string out(s);
  for (char& c : out)
    if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
  return out;
}

void replace_all(std::string& s, std::string_view from, std::string_view to) {
  std::string out;
  out.reserve(s.size());
  for (size_t i = 0; i < s.size();) {
    if (!from.empty() && s.compare(i, from.size(), from) == 0) {
      out += to;
      i += from.size();
    } else {
      out += s[i++];
    }
  }
  s = std::move(out);
}

// The first number in an answer ("~3.35 TB/s" -> 3.35), skipping digits inside a word
// ("H100: 3.35" -> 3.35). A comma before exactly three digits separates thousands;
// any other comma between digits is a decimal comma ("3,35" -> 3.35).
bool first_number(const std::string& whole, double* out) {
  // std::regex recurses per character: a number is looked for in the first 512 only.
  const std::string s = whole.substr(0, 512);
  static const std::regex thousands(R"((\d),(\d{3})(?!\d))");
  static const std::regex decimal_comma(R"((\d),(\d))");
  static const std::regex number(R"((^|[^A-Za-z0-9_.])([-+]?(\d+(\.\d*)?|\.\d+)([eE][-+]?\d+)?))");
  std::string plain = s, previous;
  while (plain != previous) {  // 33,554,432 needs two passes
    previous = plain;
    plain = std::regex_replace(plain, thousands, "$1$2");
  }
  plain = std::regex_replace(plain, decimal_comma, "$1.$2");
  std::smatch m;
  if (!std::regex_search(plain, m, number)) return false;
  // strtod, not stod: a number too large for a double (1e999) is no number, not a crash.
  errno = 0;
  *out = std::strtod(m[2].str().c_str(), nullptr);
  return errno != ERANGE && std::isfinite(*out);
}

// True when s is "(...)" and that first parenthesis closes only at the end.
bool wraps(std::string_view s) {
  if (s.size() < 2 || s.front() != '(' || s.back() != ')') return false;
  int depth = 0;
  for (size_t i = 0; i < s.size(); ++i) {
    depth += s[i] == '(' ? 1 : s[i] == ')' ? -1 : 0;
    if (depth == 0 && i + 1 < s.size()) return false;
  }
  return true;
}

// Length of a leading "answer:" (any case, ASCII or full-width colon), else 0.
std::string letters(const std::set<std::string>& s) {
  std::string out;
  for (const auto& x : s) out += (out.empty() ? "(" : ", (") + x + ")";
  return out.empty() ? "-" : out;
}

}  // namespace

size_t answer_prefix(std::string_view t) {
  if (t.size() < 7 || lower_ascii(t.substr(0, 6)) != "answer") return 0;
  if (t.substr(6).starts_with(":")) return 7;
  if (t.substr(6).starts_with("：")) return 6 + std::string_view("：").size();
  return 0;
}

std::string normalise_term(std::string_view s) {
  std::string t = lower_ascii(trim(s));
  // LaTeX: \Theta(N^{2} d^{2}/M) reads like Θ(N^2 d^2/M).
  for (std::string_view cmd : {"\\left", "\\right", "\\big", "\\theta", "\\mathcal", "\\,"})
    replace_all(t, cmd, "");
  for (std::string_view cmd : {"\\cdot", "\\times"}) replace_all(t, cmd, "*");
  for (auto [from, to] : {std::pair{"²", "^2"},
                          {"³", "^3"},
                          {"⁻¹", "^-1"},
                          {"{", ""},
                          {"}", ""},
                          {"Θ", ""},
                          {"θ", ""},
                          {"theta", ""},
                          {"×", "*"},
                          {"·", "*"},
                          {"（", "("},
                          {"）", ")"},
                          {"／", "/"},
                          {"`", ""},
                          {"$", ""}})
    replace_all(t, from, to);
  std::string compact;
  for (char c : t)
    if (c != ' ' && c != '*' && c != '\t') compact.push_back(c);
  // Drop a wrapping O(...) and any parentheses that enclose everything.
  if (compact.starts_with("o(") && wraps(std::string_view(compact).substr(1)))
    compact = compact.substr(2, compact.size() - 3);
  while (wraps(compact)) compact = compact.substr(1, compact.size() - 2);
  return compact;
}

namespace {
answers_doc parse_answers_lines(std::string_view text, std::string_view file_name) {
  static const std::regex part_heading(R"(^\s*#{1,6}\s*\[([A-Za-z0-9_.-]+)\])");
  static const std::regex checkbox(R"(^\s*[-*]\s*\[([^\]]*)\]\s*(.*)$)");
  static const std::regex label(R"(^\(([a-z])\))");
  answers_doc doc;
  answer_part* current = nullptr;
  bool in_answer = false, in_comment = false;
  int n = 0;
  for (std::string_view raw : split_lines(text)) {
    ++n;
    std::string line(raw);
    // HTML comments are notes to the reader, never answers.
    if (in_comment) {
      if (line.find("-->") == std::string::npos) continue;
      line = line.substr(line.find("-->") + 3);
      in_comment = false;
    }
    for (size_t b; (b = line.find("<!--")) != std::string::npos;) {
      const size_t e = line.find("-->", b + 4);
      if (e == std::string::npos) {
        line = line.substr(0, b);
        in_comment = true;
        break;
      }
      line.erase(b, e + 3 - b);
    }
    const std::string t = trim(line);
    std::smatch m;
    if (t.starts_with("#")) {
      in_answer = false;
      current = nullptr;
      if (std::regex_search(line, m, part_heading)) {
        const std::string id = m[1].str();
        if (doc.parts.count(id))
          throw input_error(fmt::format("{}:{}: part [{}] appears twice (first at line {})",
                                        file_name, n, id, doc.parts[id].line));
        current = &doc.parts[id];
        current->id = id;
        current->line = n;
      }
      continue;
    }
    if (!current) continue;
    if (in_answer) {
      if (!current->answer.empty() || !t.empty())
        current->answer += (current->answer.empty() ? "" : "\n") + t;
      continue;
    }
    if (const size_t skip = answer_prefix(t)) {
      current->answer = trim(t.substr(skip));
      in_answer = true;
      continue;
    }
    if (std::regex_match(line, m, checkbox)) {
      const std::string mark = m[1].str(), rest = m[2].str();
      std::smatch lm;
      if (!std::regex_search(rest, lm, label))
        throw input_error(fmt::format("{}:{}: a checkbox in [{}] lost its (a)-style label",
                                      file_name, n, current->id));
      const std::string option = lm[1].str();
      current->options.insert(option);
      if (mark == "x" || mark == "X")
        current->ticked.insert(option);
      else if (mark != " " && !mark.empty())  // [✓], [ x ]: say so rather than read it as blank
        throw input_error(
            fmt::format("{}:{}: checkbox mark '[{}]' in [{}]: use [x] to tick or [ ] to leave",
                        file_name, n, mark, current->id));
    }
  }
  for (auto& [id, part] : doc.parts) part.answer = trim(part.answer);
  return doc;
}
}  // namespace

// Stand-in until the CommonMark parser lands: a problem stops the whole file.
answers_doc parse_answers(std::string_view text) {
  try {
    return parse_answers_lines(text, "");
  } catch (const input_error& e) {
    answers_doc doc;
    doc.problems.push_back({0, e.what()});
    return doc;
  }
}

double answer_key::points_of(const std::string& item) const {
  double total = 0;
  for (const auto& p : parts)
    if (p.item == item) total += p.points;
  return total;
}

answer_key load_answer_key(const fs::path& file) {
  std::ifstream in(file);
  if (!in) throw cannot_grade(fmt::format("answer key not found: {}", file.string()));
  answer_key key;
  try {
    const json j = json::parse(in);
    // Unknown keys are errors, as in docs/answer_key.schema.json: a misspelt veto
    // rule must not be dropped silently.
    auto only_keys = [&](const json& obj, std::initializer_list<std::string_view> known,
                         const std::string& where) {
      for (const auto& [name, value] : obj.items())
        if (std::find(known.begin(), known.end(), name) == known.end())
          throw input_error(
              fmt::format("{}: {} has an unknown key \"{}\"", file.string(), where, name));
    };
    if (!j.is_object())
      throw input_error(fmt::format("{}: an answer key is a JSON object", file.string()));
    only_keys(j, {"schema", "comment", "parts"}, "the key");
    for (const json& p : j.at("parts")) {
      key_part k;
      k.id = p.at("id");
      const std::string type = p.at("type");
      const std::string where = "part " + k.id;
      if (type == "choice")
        only_keys(p,
                  {"id", "item", "type", "points", "veto_if_blank", "options", "correct",
                   "veto_if_selected", "veto_if_wrong"},
                  where);
      else if (type == "multi")
        only_keys(p,
                  {"id", "item", "type", "points", "veto_if_blank", "options", "correct",
                   "veto_if_selected"},
                  where);
      else if (type == "number")
        only_keys(p,
                  {"id", "item", "type", "points", "veto_if_blank", "value", "tolerance", "unit",
                   "veto_if_outside"},
                  where);
      else if (type == "term")
        only_keys(p, {"id", "item", "type", "points", "veto_if_blank", "accept"}, where);
      else if (type == "explanation")
        only_keys(p, {"id", "item", "type", "points", "veto_if_blank", "key_points"}, where);
      k.item = p.at("item");
      k.type = p.at("type");
      k.points = p.at("points");
      if (k.type == "choice" || k.type == "multi") {
        k.options = p.at("options").get<std::set<std::string>>();
        k.correct = p.at("correct").get<std::set<std::string>>();
      } else if (k.type == "number") {
        k.value = p.at("value");
        k.tolerance = p.at("tolerance");
        k.unit = p.value("unit", "");
      } else if (k.type == "term") {
        for (const auto& a : p.at("accept"))
          k.accept.push_back(normalise_term(a.get<std::string>()));
      } else if (k.type == "explanation") {
        for (const json& kp : p.at("key_points")) {
          key_point point{{kp.at("label").at("zh"), kp.at("label").at("en")}, {}};
          for (const auto& s : kp.at("any")) point.any.push_back(lower_ascii(s.get<std::string>()));
          k.key_points.push_back(std::move(point));
        }
      } else {
        throw input_error(
            fmt::format("{}: part {} has unknown type \"{}\"", file.string(), k.id, k.type));
      }
      k.veto_if_selected = p.value("veto_if_selected", std::map<std::string, std::string>{});
      k.veto_if_wrong = p.value("veto_if_wrong", "");
      k.veto_if_blank = p.value("veto_if_blank", "");
      if (p.contains("veto_if_outside")) {
        k.outside_lo = p["veto_if_outside"].at("range").at(0);
        k.outside_hi = p["veto_if_outside"].at("range").at(1);
        k.veto_if_outside = p["veto_if_outside"].at("veto");
      }
      auto bad = [&](const std::string& what) {
        throw input_error(fmt::format("{}: part {} {}", file.string(), k.id, what));
      };
      if (k.points < 0) bad("has negative points");
      for (const auto& other : key.parts)
        if (other.id == k.id) bad("appears twice");
      if ((k.type == "choice" || k.type == "multi") && k.correct.empty())
        bad("has no correct option");
      for (const auto& c : k.correct)
        if (!k.options.count(c)) bad("marks (" + c + ") correct but it is not an option");
      for (const auto& [option, veto] : k.veto_if_selected)
        if (!k.options.count(option)) bad("vetoes option (" + option + "), which does not exist");
      if (k.type == "explanation" && k.key_points.empty()) bad("has no key points");
      if (k.type == "term" && k.accept.empty()) bad("accepts no term");
      key.parts.push_back(std::move(k));
    }
  } catch (const json::exception& e) {
    throw input_error(fmt::format("{}: malformed answer key: {}", file.string(), e.what()));
  }
  return key;
}

std::vector<part_grade> grade_answers(const answers_doc& doc, const answer_key& key, lang l) {
  std::vector<part_grade> out;
  for (const key_part& k : key.parts) {
    part_grade g{k.id, k.item, 0, k.points, {}, k.type == "explanation", false, {}, {}};
    const auto found = doc.parts.find(k.id);
    if (found == doc.parts.end()) {
      g.blank = true;
      g.feedback =
          trf(l, "{}：答案文件里没有这一部分（从 exercises 恢复该标题）",
              "{}: missing from the answers file (restore its heading from exercises/)", k.id);
      if (!k.veto_if_blank.empty()) g.vetoes.push_back({k.veto_if_blank, g.feedback});
      out.push_back(std::move(g));
      continue;
    }
    const answer_part& a = found->second;
    const bool blank =
        (k.type == "choice" || k.type == "multi") ? a.ticked.empty() : a.answer.empty();
    if (blank) {
      g.blank = true;
      g.feedback = trf(l, "{}：未作答", "{}: not answered", k.id);
      if (!k.veto_if_blank.empty()) g.vetoes.push_back({k.veto_if_blank, g.feedback});
      out.push_back(std::move(g));
      continue;
    }

    if (k.type == "choice" || k.type == "multi") {
      for (const auto& t : a.ticked) {
        const auto v = k.veto_if_selected.find(t);
        if (v != k.veto_if_selected.end())
          g.vetoes.push_back({v->second, trf(l, "{}：勾选了 ({})", "{}: ticked ({})", k.id, t)});
      }
      if (k.type == "choice") {
        if (a.ticked.size() > 1) {
          g.feedback = trf(l, "{}：单选题只能勾一个，勾了 {}", "{}: tick one box only; ticked {}",
                           k.id, letters(a.ticked));
        } else if (a.ticked == k.correct) {
          g.points = k.points;
        } else {
          g.feedback = trf(l, "{}：选择不对", "{}: wrong choice", k.id);
        }
        if (g.points == 0 && !k.veto_if_wrong.empty())
          g.vetoes.push_back(
              {k.veto_if_wrong, trf(l, "{}：选了 {}", "{}: chose {}", k.id, letters(a.ticked))});
      } else {
        int right = 0, wrong = 0;
        for (const auto& t : a.ticked) (k.correct.count(t) ? right : wrong)++;
        g.points = k.points * std::max(0, right - wrong) / static_cast<double>(k.correct.size());
        if (g.points < k.points)
          g.feedback = trf(l, "{}：多选不完全对（对 {} 个，错 {} 个）",
                           "{}: partly right ({} right, {} wrong ticks)", k.id, right, wrong);
      }
    } else if (k.type == "number") {
      double x = 0;
      if (!first_number(a.answer, &x)) {
        g.feedback = trf(l, "{}：需要一个数字，写的是“{}”", "{}: needs a number, got \"{}\"", k.id,
                         a.answer);
      } else {
        if (std::abs(x - k.value) <= k.tolerance + 1e-9 * std::abs(k.value))
          g.points = k.points;
        else
          g.feedback = trf(l, "{}：数值不对（{}）", "{}: wrong value ({})", k.id, x);
        if (!k.veto_if_outside.empty() && (x < k.outside_lo || x > k.outside_hi))
          g.vetoes.push_back({k.veto_if_outside,
                              trf(l, "{}：{} {} 的量级不对",
                                  "{}: {} {} is off by an order of magnitude", k.id, x, k.unit)});
      }
    } else if (k.type == "term") {
      const std::string got = normalise_term(a.answer);
      if (std::find(k.accept.begin(), k.accept.end(), got) != k.accept.end())
        g.points = k.points;
      else
        g.feedback = trf(l, "{}：“{}” 不对", "{}: \"{}\" is not right", k.id, a.answer);
    } else if (k.type == "explanation") {
      const std::string text = lower_ascii(a.answer);
      std::string missing;
      int hits = 0;
      for (const key_point& p : k.key_points) {
        const bool hit = std::any_of(p.any.begin(), p.any.end(), [&](const std::string& s) {
          return text.find(s) != std::string::npos;
        });
        if (hit)
          ++hits;
        else
          missing += (missing.empty() ? "" : tr(l, "、", "; ")) + p.label.in(l);
      }
      g.points = k.points * hits / static_cast<double>(k.key_points.size());
      if (!missing.empty())
        g.feedback = trf(l, "{}：没有提到：{}", "{}: does not mention: {}", k.id, missing);
    }
    out.push_back(std::move(g));
  }
  return out;
}

answers_result grade_answers_file(const fs::path& file, const answer_key& key, lang l) {
  answers_result out;
  try {
    const answers_doc doc = parse_answers(read_text(file));
    if (!doc.problems.empty())
      throw input_error(display_path(file) + doc.problems.front().message);
    out.parts = grade_answers(doc, key, l);
  } catch (const input_error& e) {
    out.error = e.what();
  } catch (const std::exception& e) {
    // Whatever an answers file does to the parser, the code is still graded.
    out.error =
        fmt::format("{}: the grader could not read this file ({})", display_path(file), e.what());
  }
  return out;
}

}  // namespace grader
