// `grader review DIR`: the review queue of a marked class (see review_queue.hpp).
#include "grader/commands/review_queue.hpp"

#include <fmt/format.h>
#include <termios.h>
#include <unistd.h>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <set>

#include "grader/base/error.hpp"
#include "grader/base/files.hpp"
#include "grader/base/text.hpp"
#include "grader/commands/batch.hpp"
#include "grader/lesson/answers.hpp"
#include "grader/reader/reader.hpp"
#include "grader/lesson/review.hpp"
#include "grader/pipeline/resolve.hpp"

namespace fs = std::filesystem;
using nlohmann::json;

namespace grader {
namespace {

// One answers part of one student that waits for a decision.
struct entry {
  std::string student, slug, unit, item_title;
  const key_part* key = nullptr;
  part_grade grade;
  answer_part text;  // what the student wrote
};

// A student's decisions, as their review file holds them.
struct decisions {
  json file = json::object();  // the whole file, other fields kept
  bool changed = false;
  json& parts() { return file["parts"]; }
  json& vetoes(const std::string& unit) { return file["vetoes"][unit]; }
};

struct answers_source {
  const exercise* ex;
  answer_key key;
};

// The unit that holds item `id` in the report, and its title.
const unit* unit_of(const manifest& m, const std::string& item, std::string* title, lang l) {
  for (const unit& u : m.units)
    for (const grader::item& it : u.items)
      if (it.id == item) {
        *title = it.title.in(l);
        return &u;
      }
  return nullptr;
}

bool decided(decisions& d, const entry& e) {
  if (!d.file.contains("parts") || !d.parts().contains(e.key->id)) return false;
  for (const auto* list : {&e.grade.vetoes, &e.grade.lifted})
    for (const veto_hit& v : *list)
      if (v.provisional && !(d.file.contains("vetoes") && d.file["vetoes"].contains(e.unit) &&
                             d.vetoes(e.unit).contains(v.id)))
        return false;
  return true;
}

// The answers keys, loaded once: the queue's entries point into them.
std::vector<answers_source> load_sources(const course& c, const manifest& m) {
  std::vector<answers_source> sources;
  for (const exercise& e : m.exercises)
    if (e.kind == "answers")
      sources.push_back({&e, load_answer_key(c.solutions_dir(m.lesson) / e.key)});
  return sources;
}

std::vector<entry> build_queue(const manifest& m, const std::vector<answers_source>& sources,
                               const fs::path& out, const json& batch,
                               std::map<std::string, decisions>& dec, bool all, lang l) {
  std::map<std::string, double> part_points;
  for (const answers_source& src : sources)
    for (const key_part& p : src.key.parts) part_points[p.id] = p.points;
  std::vector<entry> queue;
  for (const json& s : batch.at("students")) {
    const std::string slug = s.value("folder", ""), name = s.value("name", slug);
    const fs::path dir = out / "students" / slug;
    json report;
    try {
      std::ifstream in(dir / "report.json");
      report = json::parse(in);
    } catch (const std::exception&) {
      continue;  // not graded: nothing to review
    }
    std::set<std::string> units;
    for (const json& u : report.value("units", json::array())) units.insert(u.value("unit", ""));
    decisions& d = dec[slug];
    if (const fs::path f = review_file(out, slug); fs::is_regular_file(f)) {
      load_review(f, m, part_points);  // checked: throws input_error naming the file
      d.file = json::parse(read_text(f));
    }
    for (const answers_source& src : sources) {
      const fs::path file = dir / "graded" / src.ex->file;
      if (!fs::is_regular_file(fs::symlink_status(file))) continue;
      const answers_doc doc = parse_answers(read_text(file));
      const std::vector<part_grade> grades = grade_answers(doc, src.key, l);
      for (size_t i = 0; i < grades.size(); ++i) {
        const part_grade& g = grades[i];
        entry e{name, slug, "", "", &src.key.parts[i], g, {}};
        const unit* u = unit_of(m, g.item, &e.item_title, l);
        if (!u || !units.count(u->id)) continue;  // a unit this batch did not mark
        e.unit = u->id;
        bool provisional = false;
        for (const auto* list : {&g.vetoes, &g.lifted})
          for (const veto_hit& v : *list) provisional |= v.provisional;
        if (!g.needs_review && !provisional) continue;
        if (auto p = doc.parts.find(g.id); p != doc.parts.end()) e.text = p->second;
        if (!all && decided(d, e)) continue;
        queue.push_back(std::move(e));
      }
    }
  }
  return queue;
}

// The grader's points for the part as a review records them: 0.4, not 0.40000000000000002.
double graders_points(const entry& e) {
  return std::round(e.grade.points * 1e6) / 1e6;
}

std::string fmt_points(double p) {
  return fmt::format("{:g}", std::round(p * 100) / 100);
}

// The vetoes this part bears on: raised or lifted here, then the unit's others.
std::vector<std::string> candidate_vetoes(const manifest& m, const entry& e) {
  std::vector<std::string> ids;
  for (const auto* list : {&e.grade.vetoes, &e.grade.lifted})
    for (const veto_hit& v : *list)
      if (std::find(ids.begin(), ids.end(), v.id) == ids.end()) ids.push_back(v.id);
  for (const unit& u : m.units)
    if (u.id == e.unit)
      for (const veto& v : u.vetoes)
        if (std::find(ids.begin(), ids.end(), v.id) == ids.end()) ids.push_back(v.id);
  return ids;
}

void show(std::ostream& out, const entry& e, decisions& d, size_t at, size_t total, lang l) {
  out << fmt::format("\n── {} / {} · {} · {} / {} ({}) ──\n", at + 1, total, shown_name(e.student),
                     e.unit, e.key->id, e.item_title);
  out << trf(
      l, "得分：{} / {}（评分器）{}\n", "Points: {} of {} (grader){}\n", fmt_points(e.grade.points),
      fmt_points(e.key->points),
      e.grade.needs_review ? tr(l, "，来自文字，需复核", ", from free text: needs review") : "");
  const std::string said = e.text.answer + (e.text.prose.empty() ? "" : "\n" + e.text.prose);
  out << trf(l, "学生的回答（第 {} 行）：\n", "The student's text (line {}):\n",
             e.text.answer_line ? e.text.answer_line : e.text.line);
  if (said.empty()) out << tr(l, "  │ （空）\n", "  │ (empty)\n");
  // The student's bytes reach the instructor's terminal: no escape sequence gets through.
  for (std::string_view line : split_lines(said)) out << "  │ " << terminal_text(line) << "\n";
  if (!e.key->key_points.empty()) {
    out << tr(l, "要点：\n", "Key points:\n");
    const claim_text text(e.text.answer + "\n\n" + e.text.prose);
    for (const key_point& p : e.key->key_points) {
      const claim_match cm = text.find_point(p.claims);
      if (!cm.denial.empty())
        out << fmt::format("  ✗ {} — {}: \"{}\"\n", p.label.in(l), tr(l, "相反", "denied"),
                           terminal_text(quote_excerpt(cm.denial)));
      else if (cm.status == claim_status::stated)
        out << fmt::format("  ✓ {} — \"{}\"\n", p.label.in(l),
                           terminal_text(quote_excerpt(cm.sentence)));
      else
        out << fmt::format("  · {} — {}\n", p.label.in(l), tr(l, "没有提到", "not stated"));
    }
  }
  for (const veto_hit& v : e.grade.vetoes)
    out << fmt::format("  ! {} {}{}: {}\n", tr(l, "否决", "veto"), v.id,
                       v.provisional ? tr(l, "（暂定）", " (provisional)") : "",
                       terminal_text(v.reason));
  for (const veto_hit& v : e.grade.lifted)
    out << fmt::format("  ~ {} {}{}: {}\n", tr(l, "已撤销的否决", "veto lifted"), v.id,
                       tr(l, "（暂定）", " (provisional)"), terminal_text(v.reason));
  if (!e.grade.feedback.empty())
    out << trf(l, "评分器的反馈：{}\n", "Grader's feedback: {}\n", terminal_text(e.grade.feedback));
  std::string now;
  std::vector<std::string> here;
  for (const auto* list : {&e.grade.vetoes, &e.grade.lifted})
    for (const veto_hit& v : *list) here.push_back(v.id);
  if (d.file.contains("parts") && d.parts().contains(e.key->id))
    now += trf(l, "分数 {}", "points {}", fmt_points(d.parts()[e.key->id].get<double>()));
  if (d.file.contains("vetoes") && d.file["vetoes"].contains(e.unit))  // the unit's, shown
    for (const auto& [id, what] : d.vetoes(e.unit).items())            // where they arise
      if (std::find(here.begin(), here.end(), id) != here.end())
        now += (now.empty() ? "" : ", ") + fmt::format("{} {}", id, what.get<std::string>());
  if (!now.empty()) out << trf(l, "已决定：{}\n", "Decided: {}\n", now);
}

void help(std::ostream& out, lang l) {
  out << tr(l,
            "按键：a 接受评分器的结果并下一条 · p N 给分（或直接输入数字）· v 设置否决 · c "
            "撤销否决 · n 下一条 · b 上一条 · q 保存并退出 · ? 帮助\n",
            "Keys: a accept the grader's verdict and go on · p N set points (or type the "
            "number) · v set a veto · c clear a veto · n next · b back · q save and quit · ? "
            "help\n");
}

// Reads one decision: a key and, for p/v/c, an argument. On a terminal the key acts at
// once and the argument is read as a line; otherwise each decision is one line.
bool read_command(std::istream& in, bool keys, char* key, std::string* arg, std::ostream& out) {
  arg->clear();
  if (!keys) {
    std::string line;
    while (std::getline(in, line)) {
      const size_t b = line.find_first_not_of(" \t\r");
      if (b == std::string::npos) continue;
      *key = line[b];
      const size_t a = line.find_first_not_of(" \t\r", b + 1);
      if (a != std::string::npos) *arg = line.substr(a, line.find_last_not_of(" \t\r") + 1 - a);
      if (std::isdigit(static_cast<unsigned char>(*key)) || *key == '.') {
        *arg = line.substr(b, line.find_last_not_of(" \t\r") + 1 - b);
        *key = 'p';
      }
      return true;
    }
    return false;
  }
  termios old{};
  tcgetattr(STDIN_FILENO, &old);
  termios raw = old;
  raw.c_lflag &= ~static_cast<tcflag_t>(ICANON | ECHO);
  raw.c_cc[VMIN] = 1;
  raw.c_cc[VTIME] = 0;
  tcsetattr(STDIN_FILENO, TCSANOW, &raw);
  char ch = 0;
  const bool got = ::read(STDIN_FILENO, &ch, 1) == 1;
  tcsetattr(STDIN_FILENO, TCSANOW, &old);
  if (!got || ch == 4) return false;  // end of input, Ctrl-D
  *key = ch;
  if (std::isdigit(static_cast<unsigned char>(ch)) || ch == '.' || ch == 'p') {
    out << (ch == 'p' ? "p " : std::string("p ") + ch) << std::flush;
    std::string rest;
    std::getline(in, rest);
    *arg = (ch == 'p' ? "" : std::string(1, ch)) + rest;
    *key = 'p';
  } else {
    out << ch << "\n";
  }
  return true;
}

// Which veto a v or c means: the argument (an id or a number of the list), or the only one
// the part raised or lifted.
std::string pick_veto(const std::vector<std::string>& ids, const entry& e, const std::string& arg,
                      std::istream& in, std::ostream& out, lang l) {
  std::string choice = arg;
  const size_t here = e.grade.vetoes.size() + e.grade.lifted.size();
  if (choice.empty() && here == 1) return ids.front();
  if (choice.empty()) {
    for (size_t i = 0; i < ids.size(); ++i) out << fmt::format("  {}) {}\n", i + 1, ids[i]);
    out << tr(l, "哪一个？", "Which one? ") << std::flush;
    if (!std::getline(in, choice)) return {};
  }
  choice.erase(0, choice.find_first_not_of(" \t"));
  choice.erase(choice.find_last_not_of(" \t\r") + 1);
  if (std::find(ids.begin(), ids.end(), choice) != ids.end()) return choice;
  size_t n = 0;
  const auto [p, ec] = std::from_chars(choice.data(), choice.data() + choice.size(), n);
  if (ec == std::errc() && p == choice.data() + choice.size() && n >= 1 && n <= ids.size())
    return ids[n - 1];
  return {};
}

void save(const fs::path& out, std::map<std::string, decisions>& dec, const std::string& reviewer,
          std::set<std::string>& saved) {
  fs::create_directories(out / "reviews");
  for (auto& [slug, d] : dec) {
    if (!d.changed) continue;
    d.file["schema"] = 1;
    if (!reviewer.empty()) d.file["reviewer"] = reviewer;
    write_replacing(review_file(out, slug), d.file.dump(2) + "\n");
    saved.insert(slug);
    d.changed = false;
  }
}

// The batch that `out` holds; cannot_grade, saying how to make one, when it holds none.
json batch_to_review(const fs::path& out) {
  try {
    return read_batch_json(out);
  } catch (const cannot_grade&) {
    throw;
  } catch (const std::exception&) {
    throw cannot_grade(
        fmt::format("{} holds no batch (no readable batch.json): mark the class "
                    "with grader batch --out {} first",
                    out.string(), out.string()));
  }
}

bool provisional_veto(const entry& e) {
  return std::any_of(e.grade.vetoes.begin(), e.grade.vetoes.end(),
                     [](const veto_hit& v) { return v.provisional; }) ||
         !e.grade.lifted.empty();
}

// --list: one line a part, tab-separated, for scripts.
void list_queue(const std::vector<entry>& queue, std::ostream& out) {
  for (const entry& e : queue)
    out << fmt::format("{}\t{}\t{}\t{}/{}\t{}{}\n", shown_name(e.student), e.unit, e.key->id,
                       fmt_points(e.grade.points), fmt_points(e.key->points),
                       e.grade.needs_review ? "needs_review" : "",
                       provisional_veto(e) ? " provisional_veto" : "");
}

// a: the grader's points, and its provisional vetoes confirmed, lifts kept.
void accept(const entry& e, decisions& d) {
  d.parts()[e.key->id] = graders_points(e);
  for (const veto_hit& v : e.grade.vetoes)
    if (v.provisional) d.vetoes(e.unit)[v.id] = "set";
  for (const veto_hit& v : e.grade.lifted) d.vetoes(e.unit)[v.id] = "clear";
  d.changed = true;
}

// p <points>: the reviewer's points for the part, from 0 to its maximum.
void set_points(const entry& e, decisions& d, const std::string& arg, std::ostream& out, lang l) {
  double p = -1;
  const auto [end, ec] = std::from_chars(arg.data(), arg.data() + arg.size(), p);
  if (ec != std::errc() || end != arg.data() + arg.size() || p < 0 || p > e.key->points + 1e-9) {
    out << trf(l, "分数应在 0 到 {} 之间，例如 p 1.5\n",
               "Points are a number from 0 to {}, e.g. p 1.5\n", fmt_points(e.key->points));
    return;
  }
  d.parts()[e.key->id] = p;
  d.changed = true;
  out << trf(l, "{}：{} 分\n", "{}: {} points\n", e.key->id, fmt_points(p));
}

// v / c [veto]: a veto of the part's unit set or cleared.
void decide_veto(const manifest& m, const entry& e, decisions& d, char key, const std::string& arg,
                 std::istream& in, std::ostream& out, lang l) {
  const std::vector<std::string> ids = candidate_vetoes(m, e);
  const std::string id = pick_veto(ids, e, arg, in, out, l);
  if (id.empty()) {
    out << tr(l, "没有这个否决。\n", "No such veto.\n");
    return;
  }
  d.vetoes(e.unit)[id] = key == 'v' ? "set" : "clear";
  // Deciding about the part reviews it: its points stay the grader's unless set.
  if (!d.parts().contains(e.key->id)) d.parts()[e.key->id] = graders_points(e);
  d.changed = true;
  out << fmt::format("{}: {} {}\n", e.unit, id, key == 'v' ? "set" : "clear");
}

// The interactive session: one part shown at a time, a key a decision, until the queue
// ends, q, or the input does.
void review_session(const manifest& m, const std::vector<entry>& queue,
                    std::map<std::string, decisions>& dec, const review_options& o,
                    std::istream& in, std::ostream& out) {
  const lang l = o.l;
  size_t at = 0;
  bool shown = false;
  while (at < queue.size()) {
    const entry& e = queue[at];
    decisions& d = dec[e.slug];
    if (!shown) show(out, e, d, at, queue.size(), l);
    shown = true;
    out << "> " << std::flush;
    char key = 0;
    std::string arg;
    if (!read_command(in, o.keys, &key, &arg, out)) break;
    switch (key) {
      case 'a':
        accept(e, d);
        ++at;
        shown = false;
        break;
      case 'p':
        set_points(e, d, arg, out, l);
        break;
      case 'v':
      case 'c':
        decide_veto(m, e, d, key, arg, in, out, l);
        break;
      case 'n':
      case ' ':
        ++at;
        shown = false;
        break;
      case 'b':
        if (at > 0) --at;
        shown = false;
        break;
      case 'q':
        at = queue.size();
        break;
      case '?':
      case 'h':
        help(out, l);
        break;
      default:
        out << tr(l, "不认识的按键（? 显示帮助）\n", "Unknown key (? for help)\n");
    }
  }
}

}  // namespace

int run_review(const course& c, const review_options& o, std::istream& in, std::ostream& out) {
  const json batch = batch_to_review(o.out);
  const manifest m = load_manifest(c, batch.value("lesson", ""));
  const lang l = o.l;
  std::map<std::string, decisions> dec;
  const std::vector<answers_source> sources = load_sources(c, m);
  const std::vector<entry> queue = build_queue(m, sources, o.out, batch, dec, o.all, l);
  if (queue.empty()) {
    out << tr(l, "没有需要复核的部分。\n", "Nothing to review.\n");
    return 0;
  }
  if (o.list) {
    list_queue(queue, out);
    return 0;
  }
  out << trf(l, "{} 个部分待复核（{}）。\n", "{} parts to review ({}).\n", queue.size(),
             o.out.string());
  help(out, l);
  review_session(m, queue, dec, o, in, out);
  std::set<std::string> saved;
  save(o.out, dec, o.reviewer, saved);
  out << trf(l, "\n已保存 {} 位学生的复核（{}）。\n", "\nSaved the reviews of {} students ({}).\n",
             saved.size(), (o.out / "reviews").string());
  if (saved.empty() || !o.remark) return 0;
  out << trf(l, "用复核重新评分 {} 位学生……\n", "Marking {} students again with their reviews...\n",
             saved.size());
  remark_students(c, m, o.out, saved, out, o.trees);
  out << trf(l, "成绩册：{}\n", "Gradebook: {}\n", (o.out / "gradebook.csv").string());
  return 0;
}

}  // namespace grader
