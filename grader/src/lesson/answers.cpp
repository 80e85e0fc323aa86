// Parsing the answers file and grading it against the key (see answers.hpp).
#include "grader/lesson/answers.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <fstream>
#include <functional>
#include <nlohmann/json.hpp>
#include <regex>

#include "grader/base/error.hpp"
#include "grader/base/i18n.hpp"
#include "grader/base/files.hpp"
#include "grader/reader/reader.hpp"
#include "answers_parts.hpp"

namespace fs = std::filesystem;
using nlohmann::json;

namespace grader {
namespace {

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

std::string letters(const std::set<std::string>& s) {
  std::string out;
  for (const auto& x : s) out += (out.empty() ? "(" : ", (") + x + ")";
  return out.empty() ? "-" : out;
}

}  // namespace

std::string normalise_term(std::string_view s) {
  std::string t = lower_ascii(trim_ascii(s));
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

double answer_key::points_of(const std::string& item) const {
  double total = 0;
  for (const auto& p : parts)
    if (p.item == item) total += p.points;
  return total;
}

namespace {

// One answer key file being read: every error it raises names the file. Unknown keys are
// errors, as in docs/answer_key.schema.json: a misspelt veto rule must not be dropped
// silently.
struct key_file {
  const fs::path& file;

  [[noreturn]] void bad(const std::string& what) const {
    throw input_error(fmt::format("{}: {}", file.string(), what));
  }

  void only_keys(const json& obj, std::initializer_list<std::string_view> known,
                 const std::string& where) const {
    for (const auto& [name, value] : obj.items())
      if (std::find(known.begin(), known.end(), name) == known.end())
        bad(fmt::format("{} has an unknown key \"{}\"", where, name));
  }

  // A claim list (claims.hpp), or an input_error naming where it is.
  std::vector<claim> claims(const json& c, const std::string& where) const {
    try {
      return claims_from_json(c);
    } catch (const std::invalid_argument& e) {
      bad(fmt::format("{}: {}", where, e.what()));
    }
  }

  // The keys a part of `type` may have; a part of unknown type is refused once read.
  void only_part_keys(const json& p, const std::string& type, const std::string& where) const {
    if (type == "choice")
      only_keys(p,
                {"id", "item", "type", "points", "veto_if_blank", "options", "correct",
                 "veto_if_selected", "veto_if_wrong", "veto_lifted_by"},
                where);
    else if (type == "multi")
      only_keys(p,
                {"id", "item", "type", "points", "veto_if_blank", "options", "correct",
                 "veto_if_selected", "veto_lifted_by"},
                where);
    else if (type == "number")
      only_keys(p,
                {"id", "item", "type", "points", "veto_if_blank", "value", "tolerance",
                 "relative_tolerance", "unit", "veto_if_outside"},
                where);
    else if (type == "term")
      only_keys(p, {"id", "item", "type", "points", "veto_if_blank", "accept"}, where);
    else if (type == "explanation")
      only_keys(p, {"id", "item", "type", "points", "veto_if_blank", "key_points"}, where);
  }

  // What the part's type grades against: options, a value and tolerance, terms, key points.
  void read_expected(const json& p, key_part& k, const std::string& where) const {
    if (k.type == "choice" || k.type == "multi") {
      k.options = p.at("options").get<std::set<std::string>>();
      k.correct = p.at("correct").get<std::set<std::string>>();
    } else if (k.type == "number") {
      k.value = p.at("value");
      k.tolerance = p.at("tolerance");
      k.relative_tolerance = p.value("relative_tolerance", 0.0);
      k.unit = p.value("unit", "");
    } else if (k.type == "term") {
      for (const auto& a : p.at("accept")) k.accept.push_back(normalise_term(a.get<std::string>()));
    } else if (k.type == "explanation") {
      for (const json& kp : p.at("key_points")) {
        only_keys(kp, {"label", "claims"}, where + "'s key point");
        k.key_points.push_back({{kp.at("label").at("zh"), kp.at("label").at("en")},
                                claims(kp.at("claims"), where + "'s key point")});
      }
    } else {
      bad(fmt::format("part {} has unknown type \"{}\"", k.id, k.type));
    }
  }

  void read_vetoes(const json& p, key_part& k, const std::string& where) const {
    k.veto_if_selected = p.value("veto_if_selected", std::map<std::string, std::string>{});
    k.veto_if_wrong = p.value("veto_if_wrong", "");
    k.veto_if_blank = p.value("veto_if_blank", "");
    if (p.contains("veto_lifted_by"))
      k.veto_lifted_by = claims(p["veto_lifted_by"], where + "'s veto_lifted_by");
    if (p.contains("veto_if_outside")) {
      k.outside_lo = p["veto_if_outside"].at("range").at(0);
      k.outside_hi = p["veto_if_outside"].at("range").at(1);
      k.veto_if_outside = p["veto_if_outside"].at("veto");
    }
  }

  // A part that parses but could not grade: NaN points, an option never tickable, an id
  // graded twice, a number in a unit the reader does not know.
  void check_gradable(const key_part& k, const answer_key& key) const {
    auto refuse = [&](const std::string& what) { bad(fmt::format("part {} {}", k.id, what)); };
    if (k.points < 0) refuse("has negative points");
    for (const auto& other : key.parts)
      if (other.id == k.id) refuse("appears twice");
    if ((k.type == "choice" || k.type == "multi") && k.correct.empty())
      refuse("has no correct option");
    for (const auto& c : k.correct)
      if (!k.options.count(c)) refuse("marks (" + c + ") correct but it is not an option");
    for (const auto& [option, veto] : k.veto_if_selected)
      if (!k.options.count(option)) refuse("vetoes option (" + option + "), which does not exist");
    if (k.type == "explanation" && k.key_points.empty()) refuse("has no key points");
    if (k.type == "term" && k.accept.empty()) refuse("accepts no term");
    if (k.type == "number" && (k.tolerance < 0 || k.relative_tolerance < 0))
      refuse("has a negative tolerance");
    // Answers are converted to the key's unit, so the reader must know it.
    if (k.type == "number" && !parse_unit(k.unit))
      refuse("has unit \"" + k.unit + "\", which the grader cannot read (see quantity.hpp)");
  }

  key_part part(const json& p, const answer_key& key) const {
    key_part k;
    k.id = p.at("id");
    const std::string type = p.at("type");
    const std::string where = "part " + k.id;
    only_part_keys(p, type, where);
    k.item = p.at("item");
    k.type = p.at("type");
    k.points = p.at("points");
    read_expected(p, k, where);
    read_vetoes(p, k, where);
    check_gradable(k, key);
    return k;
  }

  misconception misconception_of(const json& m, const answer_key& key) const {
    const std::string where = "misconception " + m.value("veto", std::string("?"));
    only_keys(m, {"veto", "label", "claims", "parts"}, where);
    misconception mc{m.at("veto"),
                     {m.at("label").at("zh"), m.at("label").at("en")},
                     claims(m.at("claims"), where),
                     m.value("parts", std::set<std::string>{})};
    for (const std::string& id : mc.parts)
      if (std::none_of(key.parts.begin(), key.parts.end(),
                       [&](const key_part& k) { return k.id == id; }))
        bad(fmt::format("{} names part {}, which the key does not have", where, id));
    if (mc.veto.empty()) bad(fmt::format("{} has no veto", where));
    return mc;
  }
};

}  // namespace

answer_key load_answer_key(const fs::path& file) {
  std::ifstream in(file);
  if (!in) throw cannot_grade(fmt::format("answer key not found: {}", file.string()));
  const key_file keyfile{file};
  answer_key key;
  try {
    const json j = json::parse(in);
    if (!j.is_object()) keyfile.bad("an answer key is a JSON object");
    keyfile.only_keys(j, {"schema", "comment", "parts", "misconceptions"}, "the key");
    for (const json& p : j.at("parts")) key.parts.push_back(keyfile.part(p, key));
    for (const json& m : j.value("misconceptions", json::array()))
      key.misconceptions.push_back(keyfile.misconception_of(m, key));
  } catch (const json::exception& e) {
    keyfile.bad(fmt::format("malformed answer key: {}", e.what()));
  }
  return key;
}

namespace {

bool is_choice(const std::string& type) {
  return type == "choice" || type == "multi";
}

void veto_ticked(const key_part& k, const answer_part& a, part_grade& g, lang l) {
  for (const auto& t : a.ticked)
    if (const auto v = k.veto_if_selected.find(t); v != k.veto_if_selected.end())
      g.vetoes.push_back({v->second, trf(l, "{}：勾选了 ({})", "{}: ticked ({})", k.id, t)});
}

void grade_choice(const key_part& k, const answer_part& a, part_grade& g, lang l) {
  veto_ticked(k, a, g, l);
  if (a.ticked.size() > 1) {
    g.feedback = trf(l, "{}：单选题只能勾一个，勾了 {}", "{}: tick one box only; ticked {}", k.id,
                     letters(a.ticked));
  } else if (a.ticked == k.correct) {
    g.points = k.points;
  } else {
    g.feedback = trf(l, "{}：选择不对", "{}: wrong choice", k.id);
  }
  if (g.points == 0 && !k.veto_if_wrong.empty())
    g.vetoes.push_back(
        {k.veto_if_wrong, trf(l, "{}：选了 {}", "{}: chose {}", k.id, letters(a.ticked))});
}

// Right ticks less wrong ones, as a share of the correct options.
void grade_multi(const key_part& k, const answer_part& a, part_grade& g, lang l) {
  veto_ticked(k, a, g, l);
  int right = 0, wrong = 0;
  for (const auto& t : a.ticked) (k.correct.count(t) ? right : wrong)++;
  g.points = k.points * std::max(0, right - wrong) / static_cast<double>(k.correct.size());
  if (g.points < k.points)
    g.feedback = trf(l, "{}：多选不完全对（对 {} 个，错 {} 个）",
                     "{}: partly right ({} right, {} wrong ticks)", k.id, right, wrong);
}

// Read in the key's unit: "3350 GB/s" is 3.35 for a TB/s key. An answer that cannot be
// read (no number, wrong dimension, a range) earns nothing and raises no veto.
void grade_number(const key_part& k, const answer_part& a, part_grade& g, lang l) {
  const quantity_result q = read_quantity(a.answer, k.unit);
  if (!q.ok()) {
    g.feedback = trf(l, "{}：{}", "{}: {}", k.id, describe_error(q, k.unit, l));
    return;
  }
  auto within = [&](double x) {
    return std::abs(x - k.value) <= k.tolerance + (k.relative_tolerance + 1e-9) * std::abs(k.value);
  };
  const std::string said = describe_reading(q, k.unit, l);
  if (within(q.value)) {
    g.points = k.points;
  } else {
    g.feedback = trf(l, "{}：你写的是 {}，数值不对", "{}: you wrote {}; wrong value", k.id, said);
    // MB for MiB (or back): say how they differ when that is the only slip.
    if (q.other_family_value && within(*q.other_family_value))
      g.feedback += trf(l, "（注意 {}）", " (note: {})", q.family_note);
  }
  // Without a unit the magnitude is the key's guess, not the student's claim ("3.35e12"
  // may mean B/s): the veto is then provisional, for review.
  if (!k.veto_if_outside.empty() && (q.value < k.outside_lo || q.value > k.outside_hi)) {
    g.vetoes.push_back({k.veto_if_outside,
                        trf(l, "{}：{} 的量级不对（至少差一个数量级）",
                            "{}: {} is off by at least an order of magnitude", k.id, said),
                        q.unit_assumed});
    g.needs_review |= q.unit_assumed;
  }
}

void grade_term(const key_part& k, const answer_part& a, part_grade& g, lang l) {
  const std::string got = normalise_term(a.answer);
  if (std::find(k.accept.begin(), k.accept.end(), got) != k.accept.end())
    g.points = k.points;
  else
    g.feedback = trf(l, "{}：“{}” 不对", "{}: \"{}\" is not right", k.id, quote_excerpt(a.answer));
}

// A key point is earned by a sentence that makes its claim, not by its words: a list of
// keywords earns nothing, and a sentence that denies it costs it.
void grade_explanation(const key_part& k, const answer_part& a, part_grade& g, lang l) {
  const claim_text text(a.answer + "\n\n" + a.prose);
  std::string missing, contradicted;
  int hits = 0;
  for (const key_point& p : k.key_points) {
    const claim_match m = text.find_point(p.claims);
    if (!m.denial.empty())
      contradicted += (contradicted.empty() ? "" : tr(l, "；", "; ")) +
                      trf(l, "{}（“{}”）", "{} (\"{}\")", p.label.in(l), quote_excerpt(m.denial));
    else if (m.status == claim_status::stated)
      ++hits;
    else
      missing += (missing.empty() ? "" : tr(l, "、", "; ")) + p.label.in(l);
  }
  g.points = k.points * hits / static_cast<double>(k.key_points.size());
  if (!missing.empty())
    g.feedback = trf(l, "{}：没有提到：{}", "{}: does not mention: {}", k.id, missing);
  if (!contradicted.empty())
    g.feedback += (g.feedback.empty() ? "" : tr(l, "；", "; ")) +
                  trf(l, "{}：与要点相反：{}", "{}: contradicts: {}", k.id, contradicted);
}

// One part on what is written: missing, unreadable, blank, or graded by its type.
part_grade grade_part(const key_part& k, const answers_doc& doc, lang l) {
  part_grade g{k.id, k.item, 0, k.points, {}, k.type == "explanation", false, {}, {}};
  const auto found = doc.parts.find(k.id);
  if (found == doc.parts.end()) {
    g.blank = true;
    g.feedback = missing_part_feedback(k.id, l);
    if (!k.veto_if_blank.empty()) g.vetoes.push_back({k.veto_if_blank, g.feedback});
    return g;
  }
  const answer_part& a = found->second;
  if (!a.problems.empty()) {
    // A part it cannot read scores 0 and lists why, line by line; the others are graded.
    // Unreadable counts as blank for veto_if_blank, and legible ticks keep their vetoes,
    // so a malformed box never dodges a veto.
    g.feedback = trf(l, "{}：{}", "{}: {}", k.id, problems_list(a.problems, l));
    if (!k.veto_if_blank.empty()) g.vetoes.push_back({k.veto_if_blank, g.feedback});
    veto_ticked(k, a, g, l);
    return g;
  }
  if (is_unanswered(k.type, a)) {
    g.blank = true;
    g.feedback = trf(l, "{}：未作答", "{}: not answered", k.id);
    if (!k.veto_if_blank.empty()) g.vetoes.push_back({k.veto_if_blank, g.feedback});
    return g;
  }
  if (k.type == "choice") grade_choice(k, a, g, l);
  if (k.type == "multi") grade_multi(k, a, g, l);
  if (k.type == "number") grade_number(k, a, g, l);
  if (k.type == "term") grade_term(k, a, g, l);
  if (k.type == "explanation") grade_explanation(k, a, g, l);
  return g;
}

// The misconceptions the part's free text states, one per veto, each provisional.
std::vector<veto_hit> misconceptions_stated(const key_part& k, const answer_key& key,
                                            const claim_text& text, lang l) {
  std::vector<veto_hit> said;
  for (const misconception& mc : key.misconceptions) {
    if (!mc.parts.empty() && !mc.parts.count(k.id)) continue;
    if (std::any_of(said.begin(), said.end(), [&](const veto_hit& v) { return v.id == mc.veto; }))
      continue;
    const claim_match m = text.find(mc.claims);
    if (m.status == claim_status::stated)
      said.push_back({mc.veto,
                      trf(l, "{}：“{}”表达了一个误解：{}（暂定，待复核）",
                          "{}: \"{}\" states a misconception: {} (provisional, for review)", k.id,
                          quote_excerpt(m.sentence), mc.label.in(l)),
                      true});
  }
  return said;
}

// The right reason written under a wrong tick lifts the tick's vetoes, provisionally;
// never a veto whose misconception the text also states (`said`).
void lift_tick_vetoes(const key_part& k, const answer_part& a, const claim_text& text,
                      const std::vector<veto_hit>& said, part_grade& g, lang l) {
  // Two boxes ticked in a single choice hedge between answers: no reason lifts that.
  const bool hedged = k.type == "choice" && a.ticked.size() > 1;
  if (!is_choice(k.type) || k.veto_lifted_by.empty() || g.vetoes.empty() || hedged) return;
  const claim_match m = text.find(k.veto_lifted_by);
  if (m.status != claim_status::stated) return;
  std::vector<veto_hit> kept;
  for (veto_hit& v : g.vetoes) {
    // Its reason quotes the blocking sentence too, so the reviewer sees why the lift was
    // refused.
    const auto blocking =
        std::find_if(said.begin(), said.end(), [&](const veto_hit& s) { return s.id == v.id; });
    if (blocking != said.end()) {
      v.reason += "; " + blocking->reason;
      kept.push_back(std::move(v));
      continue;
    }
    v.reason += trf(l, "；已撤销：本题文字给出了正确理由：“{}”（暂定，待复核）",
                    "; lifted: the part's own text gives the right reason: \"{}\" "
                    "(provisional, for review)",
                    quote_excerpt(m.sentence));
    v.provisional = true;
    g.lifted.push_back(std::move(v));
    g.needs_review = true;
  }
  g.vetoes = std::move(kept);
}

// Free text (a part's answer and prose): a misconception stated in plain words raises its
// veto, and the right reason lifts the tick's vetoes; both for a reviewer to confirm.
void read_free_text(const key_part& k, const answer_key& key, const answer_part& a, part_grade& g,
                    lang l) {
  if (a.answer.empty() && a.prose.empty()) return;
  const claim_text text(a.answer + "\n\n" + a.prose);
  std::vector<veto_hit> said = misconceptions_stated(k, key, text, l);
  lift_tick_vetoes(k, a, text, said, g, l);
  for (veto_hit& v : said) {
    g.needs_review = true;
    if (std::none_of(g.vetoes.begin(), g.vetoes.end(),
                     [&](const veto_hit& x) { return x.id == v.id; }))
      g.vetoes.push_back(std::move(v));
  }
}

}  // namespace

std::vector<part_grade> grade_answers(const answers_doc& doc, const answer_key& key, lang l) {
  std::vector<part_grade> out;
  for (const key_part& k : key.parts) out.push_back(grade_part(k, doc, l));
  // Free text is read once every part has its tick-based vetoes.
  for (size_t i = 0; i < key.parts.size(); ++i)
    if (const auto found = doc.parts.find(key.parts[i].id); found != doc.parts.end())
      read_free_text(key.parts[i], key, found->second, out[i], l);
  return out;
}

std::string missing_part_feedback(const std::string& id, lang l) {
  return trf(l, "{}：答案文件里没有这一部分（从 exercises 恢复该标题）",
             "{}: missing from the answers file (restore its heading from exercises/)", id);
}

std::string problems_list(const std::vector<answers_problem>& problems, lang l) {
  std::string list;
  for (const answers_problem& p : problems)
    list += (list.empty() ? "" : "; ") + trf(l, "第 {} 行：{}", "line {}: {}", p.line, p.message);
  return list;
}

bool is_unanswered(const std::string& type, const answer_part& a) {
  return is_choice(type) ? a.ticked.empty() : a.answer.empty();
}

answers_result read_answers_file(
    const fs::path& file, lang l,
    const std::function<void(const answers_doc&, answers_result&)>& grade) {
  answers_result out;
  try {
    const answers_doc doc = parse_answers(read_text(file));
    // Only what stops the whole file (it could not be decoded) is the file's error; a
    // part's problems are that part's feedback.
    for (const answers_problem& p : doc.problems)
      out.error += (out.error.empty() ? "" : "\n") +
                   (p.line > 0 ? fmt::format("{}:{}: {}", display_path(file), p.line, p.message)
                               : fmt::format("{}: {}", display_path(file), p.message));
    if (!doc.encoding.empty())
      out.note = trf(l, "{} 不是 UTF-8，已按 {} 读取；请另存为 UTF-8",
                     "{} is not UTF-8: it was read as {}; save it as UTF-8", display_path(file),
                     doc.encoding);
    if (out.error.empty()) grade(doc, out);
  } catch (const input_error& e) {
    out.error = e.what();
  } catch (const std::exception& e) {
    // Whatever an answers file does to the parser, the code is still graded.
    out.error =
        fmt::format("{}: the grader could not read this file ({})", display_path(file), e.what());
  }
  return out;
}

answers_result grade_answers_file(const fs::path& file, const answer_key& key, lang l) {
  return read_answers_file(file, l, [&](const answers_doc& doc, answers_result& out) {
    out.parts = grade_answers(doc, key, l);
  });
}

}  // namespace grader
