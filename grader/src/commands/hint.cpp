// grader hint: the listing, one blank's hint at one level, and the check that the
// manifest's hints and the exercises' blanks match (see hint.hpp).
#include "grader/commands/hint.hpp"

#include <fmt/format.h>
#include <fmt/ostream.h>

#include <algorithm>
#include <filesystem>
#include <optional>
#include <set>

#include "grader/base/files.hpp"

namespace fs = std::filesystem;

namespace grader {
namespace {

// The blanks still in the student's copy of `e`, first occurrence of each name, in file
// order; none when the file is missing or unreadable (the listing then keeps the
// manifest's order).
std::vector<blank> student_blanks(const course& c, const manifest& m, const exercise& e) {
  const fs::path file = c.exercises_dir(m.lesson) / e.file;
  std::vector<blank> out;
  if (!e.is_code() || !fs::exists(file)) return out;
  try {
    for (const blank& b : find_blanks(read_text(file)))
      if (std::none_of(out.begin(), out.end(), [&](const blank& o) { return o.name == b.name; }))
        out.push_back(b);
  } catch (const std::exception&) {
    return {};
  }
  return out;
}

std::optional<int> line_of(const std::vector<blank>& blanks, const std::string& name) {
  for (const blank& b : blanks)
    if (b.name == name) return b.line;
  return std::nullopt;
}

// "levels 1–2 are" / "only level 1 is".
std::string levels_available(size_t n, lang l) {
  if (n == 1) return tr(l, "只有第 1 级", "only level 1 is");
  return trf(l, "有第 1–{} 级", "levels 1–{} are", n);
}

// One hint asked for: an exercise's blank (or its general hints when `blank` is empty).
struct hint_match {
  const exercise* ex = nullptr;
  std::string blank;
  const hint_ladder* ladder = nullptr;
};

std::vector<hint_match> find_matches(const manifest& m, const std::string& query) {
  std::vector<hint_match> out;
  if (const auto colon = query.find(':'); colon != std::string::npos) {
    const exercise* e = m.find_exercise(query.substr(0, colon));
    const std::string name = query.substr(colon + 1);
    if (e && name.empty() && !e->hints.general.levels.empty())
      out.push_back({e, {}, &e->hints.general});
    else if (const hint_ladder* h = e && !name.empty() ? e->hints.find(name) : nullptr)
      out.push_back({e, name, h});
    return out;
  }
  for (const exercise& e : m.exercises)
    if (const hint_ladder* h = e.hints.find(query)) out.push_back({&e, query, h});
  if (out.empty())
    if (const exercise* e = m.find_exercise(query); e && !e->hints.general.levels.empty())
      out.push_back({e, {}, &e->hints.general});
  return out;
}

// Every name `grader hint` takes, for the line that answers an unknown one.
std::string valid_names(const manifest& m, lang l) {
  std::vector<std::string> blanks, general;
  for (const exercise& e : m.exercises) {
    for (const auto& [name, ladder] : e.hints.blanks)
      if (std::find(blanks.begin(), blanks.end(), name) == blanks.end()) blanks.push_back(name);
    if (!e.hints.general.levels.empty()) general.push_back(e.id);
  }
  auto join = [](const std::vector<std::string>& v) {
    std::string s;
    for (const auto& x : v) s += (s.empty() ? "" : ", ") + x;
    return s;
  };
  std::string out = trf(l, "空：{}", "blanks: {}", blanks.empty() ? "-" : join(blanks));
  if (!general.empty())
    out += trf(l, "；有总体提示的练习：{}", "; exercises with general hints: {}", join(general));
  return out;
}

void print_listing(const course& c, const manifest& m, lang l, std::ostream& out) {
  std::string example;  // the first blank with hints, for the line that says how to ask for more
  bool qualified = false;
  for (const exercise& e : m.exercises) {
    const std::vector<blank> in_file = student_blanks(c, m, e);
    if (e.hints.empty() && in_file.empty()) continue;
    fmt::print(out, "{}\n",
               trf(l, "{}——{}", "{} — {}", e.title.in(l),
                   display_path(c.exercises_dir(m.lesson) / e.file)));
    if (!e.hints.general.levels.empty())
      fmt::print(out, "  {}\n", e.hints.general.levels.front().in(l));
    auto show = [&](const std::string& name, const std::string& where) {
      const hint_ladder* h = e.hints.find(name);
      fmt::print(out, "  {}\n",
                 trf(l, "{}（{}）：{}", "{} ({}): {}", name, where,
                     h ? h->levels.front().in(l) : tr(l, "（没有提示）", "(no hint)")));
      if (h && example.empty()) example = hint_name(m, e, name);
      qualified |= h && hint_name(m, e, name) != name;
    };
    for (const blank& b : in_file) show(b.name, trf(l, "第 {} 行", "line {}", b.line));
    for (const auto& [name, ladder] : e.hints.blanks)
      if (!line_of(in_file, name)) show(name, tr(l, "已填", "filled in"));
  }
  if (example.empty()) return;
  fmt::print(
      out, "\n{}\n  grader hint {} {} --level 2\n",
      tr(l,
         "以上都是第 1 级提示（思路）。某个空还需要更多帮助时，"
         "每次多要一级（2：公式，3：代码的样子）：",
         "These are level 1 hints (the idea). For more help on one blank, ask one level at a "
         "time (2: the formula, 3: the shape of the code):"),
      m.lesson, example);
  if (qualified)
    fmt::print(
        out, "{}\n",
        tr(l, "几个练习里同名的空，写成 <练习>:<空>，例如上面那样。",
           "A blank whose name appears in several exercises is <exercise>:<blank>, as above."));
}

void print_hint(const course& c, const manifest& m, const hint_match& h, int level, lang l,
                std::ostream& out) {
  const size_t n = h.ladder->levels.size();
  std::string what;
  if (h.blank.empty()) {
    what = tr(l, "总体提示", "general hints");
  } else {
    what = h.blank;
    if (const auto line = line_of(student_blanks(c, m, *h.ex), h.blank))
      what += trf(l, "（第 {} 行）", " (line {})", *line);
  }
  fmt::print(out, "{}: {}{}\n  {}\n", h.ex->file, what,
             trf(l, "，第 {} 级（共 {} 级）", ", level {} of {}", level, n),
             h.ladder->levels[static_cast<size_t>(level - 1)].in(l));
  // Only an instructor's manifest holds levels above the release level.
  const int release = m.release_level(*h.ex, *h.ladder);
  if (level > release)
    fmt::print(out, "  {}\n",
               release == 1
                   ? tr(l, "（教师版：学生版只保留第 1 级）",
                        "(instructor's copy: a student release keeps level 1 only)")
                   : trf(l, "（教师版：学生版只保留第 1–{} 级）",
                         "(instructor's copy: a student release keeps levels 1–{} only)", release));
  if (static_cast<size_t>(level) < n)
    fmt::print(out, "{}grader hint {} {} --level {}\n", tr(l, "下一级：", "Next level: "), m.lesson,
               h.blank.empty() ? h.ex->id : hint_name(m, *h.ex, h.blank), level + 1);
}

}  // namespace

int run_hint(const course& c, const manifest& m, const hint_request& r, std::ostream& out,
             std::ostream& err) {
  const lang l = r.language;
  if (r.blank.empty()) {
    if (r.level != 0) {
      fmt::print(err, "grader: {}grader hint {} <blank> --level {}\n",
                 tr(l, "--level 要跟一个空的名字：", "--level goes with a blank's name: "),
                 m.lesson, r.level);
      return 2;
    }
    print_listing(c, m, l, out);
    return 0;
  }
  const std::vector<hint_match> matches = find_matches(m, r.blank);
  if (matches.empty()) {
    fmt::print(err, "grader: {}\n",
               trf(l, "{1} 里没有 '{0}' 的提示；{2}", "no hints for '{0}' in {1}; {2}", r.blank,
                   m.lesson, valid_names(m, l)));
    return 2;
  }
  const int level = r.level == 0 ? 1 : r.level;
  for (const hint_match& h : matches)
    if (level < 1 || static_cast<size_t>(level) > h.ladder->levels.size()) {
      fmt::print(err, "grader: {}\n",
                 trf(l, "本课程没有 {0} 的第 {1} 级提示；{2}",
                     "level {1} is not available for {0} in this course; {2}", r.blank, level,
                     levels_available(h.ladder->levels.size(), l)));
      return 2;
    }
  for (size_t i = 0; i < matches.size(); ++i) {
    if (i) out << "\n";
    print_hint(c, m, matches[i], level, l, out);
  }
  return 0;
}

std::string hint_blank_mismatch(const exercise& e, const std::vector<blank>& blanks) {
  std::set<std::string> in_file, hinted;
  for (const blank& b : blanks) in_file.insert(b.name);
  for (const auto& [name, ladder] : e.hints.blanks) hinted.insert(name);
  std::string without, stale;
  for (const auto& name : in_file)
    if (!hinted.count(name)) without += (without.empty() ? "" : ", ") + name;
  for (const auto& name : hinted)
    if (!in_file.count(name)) stale += (stale.empty() ? "" : ", ") + name;
  std::string why;
  if (!without.empty()) why += fmt::format("{}: blanks without hints: {}. ", e.file, without);
  if (!stale.empty())
    why += fmt::format("{}: hints for blanks the file does not have: {}. ", e.file, stale);
  return why;
}

}  // namespace grader
