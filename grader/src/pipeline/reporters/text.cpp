// The text format: a table per unit for people, in zh or en, that fits 80 columns (titles
// and feedback wrapped, never padded past it), then a line per unit, each exercise's blanks
// and the next step (see reporter.hpp). render_status is that ending alone.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "grader/base/files.hpp"
#include "grader/base/i18n.hpp"
#include "grader/base/text.hpp"
#include "grader/pipeline/gpu.hpp"
#include "grader/pipeline/reporter.hpp"

namespace grader {
namespace {

constexpr size_t kWidth = 80;

std::string pad(const std::string& s, size_t width) {
  const size_t w = display_width(s);
  return w >= width ? s : s + std::string(width - w, ' ');
}

// Columns on screen: ANSI colour sequences take none.
size_t visible_width(std::string_view s) {
  std::string plain;
  for (size_t i = 0; i < s.size(); ++i) {
    if (s[i] == '\033') {
      while (i < s.size() && s[i] != 'm') ++i;
      continue;
    }
    plain += s[i];
  }
  return display_width(plain);
}

// `text` (any number of lines) wrapped to kWidth: the first line of each paragraph after
// `first`, the rest after `rest` (both indents of spaces, or a prefix of that width).
std::string wrapped(std::string_view text, const std::string& first, size_t rest_indent) {
  std::string out;
  bool first_line = true;
  for (std::string_view para : split_lines(text)) {
    const std::string lead = first_line ? first : std::string(rest_indent, ' ');
    const size_t lead_w = visible_width(lead);
    const std::vector<std::string> lines =
        wrap_text(terminal_text(para), kWidth - rest_indent, kWidth - std::min(lead_w, kWidth - 8));
    for (size_t i = 0; i < lines.size(); ++i)
      out += (i == 0 ? lead : std::string(rest_indent, ' ')) + lines[i] + "\n";
    first_line = false;
  }
  return out;
}

std::string points_text(double x) {
  return fmt::format("{:g}", round_points(x));
}

class text_reporter final : public reporter {
 public:
  explicit text_reporter(const reporter_options& o) : color_(o.color) {}
  void write(const report& r, std::ostream& out) const override { out << render_text(r, color_); }

 private:
  bool color_;
};

}  // namespace

namespace {
// How a veto stands, after its title: provisional, lifted, or a reviewer's decision.
std::string veto_state(const veto_result& v, lang l) {
  if (v.review == "set") return tr(l, "（教师复核：成立）", " (confirmed by review)");
  if (v.review == "cleared") return tr(l, "（教师复核：撤销）", " (cleared by review)");
  if (v.lifted)
    return tr(l, "（暂不计：解释给出了正确理由，待复核）",
              " (not applied for now: the explanation gives the right reason; needs review)");
  if (v.provisional)
    return tr(l, "（暂定：仅凭文字解释判定，待复核）",
              " (provisional: found in free text only; needs review)");
  return "";
}

// ANSI colour for a terminal, or the text as it is.
struct painter {
  bool color;
  std::string operator()(const std::string& s, const char* code) const {
    return color ? fmt::format("\033[{}m{}\033[0m", code, s) : s;
  }
};

// The title, the submission, the seed, the review, and how it was isolated and judged.
std::string header_text(const report& r, const painter& paint) {
  const lang l = r.language;
  std::string out = paint(r.title, "1") + "\n";
  out += wrapped(tr(l, "提交：", "Submission:") + std::string(" ") + terminal_text(r.submission),
                 "", 2);
  out += wrapped(tr(l, "随机种子：", "Seed:") + std::string(" ") +
                     trf(l, "{}（用 --seed {} 复现同样的测试输入）",
                         "{} (--seed {} reproduces the test inputs)", r.seed, r.seed),
                 "", 2);
  if (!r.review_file.empty())
    out += wrapped(fmt::format("{} {}", tr(l, "教师复核：", "Review:"), r.review_file), "", 2);
  if (r.isolation.starts_with("none"))
    out += wrapped(trf(l, "（{}）：学生代码以评分器的权限运行",
                       "({}): the student's code ran with the grader's rights",
                       r.isolation.substr(r.isolation.find(':') + 2)),
                   paint(tr(l, "隔离：无", "Isolation: none"), "33") + " ", 2);
  if (r.isolation_level == "restricted")
    out += wrapped(trf(l, "（没有用户命名空间，用的是后备沙箱：{}）",
                       "(no user namespaces here; the fallback sandbox: {})", r.isolation_detail),
                   paint(tr(l, "隔离：受限", "Isolation: restricted"), "33") + " ", 2);
  if (!r.judged_apart.empty()) {
    std::string apart;
    for (const auto& f : r.judged_apart) apart += (apart.empty() ? "" : ", ") + f;
    out += wrapped(trf(l, "{} 的结果由不含学生代码的独立进程判定",
                       "{}: judged by a separate process with no student code", apart),
                   tr(l, "评分方式：", "Marking:") + std::string(" "), 2);
  }
  if (!r.ignored_files.empty()) {
    std::string list;
    for (const auto& f : r.ignored_files) list += (list.empty() ? "" : ", ") + one_line(f);
    out += wrapped(list,
                   tr(l, "忽略（清单中没有的文件，未读取）：",
                      "Ignored (not named by the manifest, never read):") +
                       std::string(" "),
                   2);
  }
  return out;
}

std::string outside_blanks_text(const report& r, const painter& paint) {
  const lang l = r.language;
  if (r.outside_blanks.empty()) return {};
  std::string out = "\n  " +
                    paint(tr(l, "空以外的改动（已标记；按所写的代码评分）：",
                             "Changes outside the blanks (flagged; graded as written):"),
                          "33") +
                    "\n";
  const size_t shown = std::min<size_t>(r.outside_blanks.size(), 8);
  for (size_t i = 0; i < shown; ++i) {
    const auto& e = r.outside_blanks[i];
    out += wrapped(
        fmt::format("{}:{}  {}  {}", e.file, e.change.line,
                    e.change.kind == "added" ? tr(l, "新增", "added")
                                             : tr(l, "练习的这一行被改动或删除",
                                                  "the exercise's line, changed or removed"),
                    one_line(trim_ascii(e.change.text))),
        "    ", 6);
  }
  if (shown < r.outside_blanks.size())
    out +=
        "    " + trf(l, "……还有 {} 处", "... and {} more", r.outside_blanks.size() - shown) + "\n";
  return out;
}

// The messages, the results reused from a cache, and the compiler's lines.
std::string notes_text(const report& r) {
  const lang l = r.language;
  std::string out;
  for (const auto& m : r.messages) {
    out += "\n";
    for (std::string_view line : split_lines(m)) out += wrapped(line, "  ", 4);
  }
  if (!r.reused.empty()) {
    std::string list;
    for (const auto& f : r.reused) list += (list.empty() ? "" : ", ") + f;
    out += "\n" + wrapped(trf(l, "未改动，沿用上次（同一种子）的测试结果：{}（--fresh 重新运行）",
                              "Unchanged, so the last grade's results (same seed) are reused: {} "
                              "(--fresh re-runs them)",
                              list),
                          "  ", 4);
  }
  for (const auto& b : r.build_failures) {
    out += "\n" + (b.timed_out ? trf(l, "  {} 没有在时限内编译完：\n",
                                     "  {} did not finish compiling in time:\n", b.file)
                               : trf(l, "  {} 编译失败：\n", "  {} does not compile:\n", b.file));
    // A compiler's lines keep their layout (carets under columns) where they fit; a longer
    // one is cut at the width, not at its spaces, so that its columns stay readable.
    for (std::string_view line : split_lines(b.diagnostics)) {
      const std::string text = terminal_text(line);
      if (display_width(text) <= kWidth - 2) {
        out += "  " + text + "\n";
        continue;
      }
      bool first = true;
      for (const std::string& piece : wrap_text(text, kWidth - 4, kWidth - 2)) {
        out += (first ? "  " : "    ") + piece + "\n";
        first = false;
      }
    }
  }
  return out;
}

// One item: its mark, id, wrapped title and points on the first line(s), then its
// feedback and warnings.
std::string item_text(const item_result& it, size_t id_w, lang l, const painter& paint) {
  const bool later = it.status == item_status::at_submission;
  const char* mark = it.status == item_status::pass      ? "✓"
                     : it.status == item_status::partial ? "~"
                     : later                             ? "…"
                                                         : "✗";
  const char* code = it.status == item_status::pass      ? "32"
                     : it.status == item_status::partial ? "33"
                     : later                             ? "36"
                                                         : "31";
  const std::string flag = it.reviewed       ? tr(l, "（已复核）", " (reviewed)")
                           : it.needs_review ? tr(l, "（待人工复核）", " (needs review)")
                                             : "";
  const std::string points =
      fmt::format("{} / {:g}", it.at_submission ? "-" : points_text(it.points), it.max_points);
  constexpr size_t kPoints = 9;  // "10.25 / 10" right-aligned in the last columns
  const size_t title_col = 4 + id_w + 2;
  const size_t title_w = kWidth - title_col - 1 - kPoints;
  const std::vector<std::string> title = wrap_text(it.title + flag, title_w);
  std::string out;
  // An id wider than the column (capped for 80 columns) gets a line of its own.
  const bool id_alone = display_width(it.id) > id_w;
  if (id_alone) out += fmt::format("  {} {}\n", paint(mark, code), it.id);
  for (size_t i = 0; i < title.size(); ++i) {
    const std::string left = i == 0 && !id_alone
                                 ? fmt::format("  {} {}  ", paint(mark, code), pad(it.id, id_w))
                                 : std::string(title_col, ' ');
    out += left +
           (i == 0 ? pad(title[i], title_w) + " " + fmt::format("{:>{}}", points, kPoints)
                   : title[i]) +
           "\n";
  }
  if (!it.feedback.empty()) out += wrapped(it.feedback, "      ", 6);
  if (!it.rerun.empty())
    out +=
        std::string("      ") + tr(l, "重跑：", "rerun:") + "\n" + wrapped(it.rerun, "        ", 8);
  for (const std::string& w : it.warnings)
    out += wrapped(w, "      " + paint(tr(l, "警告：", "warning: "), "33"), 6);
  return out;
}

// A unit's vetoes, score, pass line and verdict.
std::string verdict_text(const unit_report& u, lang l, const painter& paint) {
  std::string out;
  if (!u.vetoes.empty()) {
    out += fmt::format("  {}\n", paint(tr(l, "一票否决：", "Vetoes:"), "31;1"));
    for (const auto& v : u.vetoes) {
      out += wrapped(fmt::format("{} — {}{}", v.id, v.title, veto_state(v, l)),
                     std::string("    ") + (v.applies() ? "✗" : "·") + " ", 6);
      out += wrapped(one_line(v.reason), "      ", 6);
    }
  } else {
    out += fmt::format("  {}\n", tr(l, "一票否决：无", "Vetoes: none"));
  }
  const std::string score =
      fmt::format("{} {} / {:g}   {} {:g}   ", tr(l, "得分", "Score"), points_text(u.score),
                  u.max_score, tr(l, "通过线", "pass line"), u.pass_line);
  if (u.at_submission_points > 0) {  // a student release: the questions come later
    const std::string note =
        trf(l, "暂定：本地评了 {0:g} 分中的 {1:g} 分，{2:g} 分在提交时评",
            "provisional: {1:g} of {0:g} points graded here, {2:g} points graded at submission",
            u.max_score, u.max_score - u.at_submission_points, u.at_submission_points);
    return out + wrapped(u.passed
                             ? note
                             : std::string("FAIL") + tr(l, "（", " (") + note + tr(l, "）", ")"),
                         "  " + score, 4);
  }
  const std::string provisional =
      u.provisional ? tr(l, "（暂定：有待人工复核的部分）", " (provisional: parts wait for review)")
                    : "";
  return out + "  " + score + (u.passed ? paint("PASS", "32;1") : paint("FAIL", "31;1")) +
         provisional + "\n";
}

std::string unit_text(const unit_report& u, lang l, const painter& paint) {
  std::string out = fmt::format("\n{}\n", paint(u.title, "1"));
  size_t id_w = 0;
  for (const auto& it : u.items) id_w = std::max(id_w, display_width(it.id));
  id_w = std::min<size_t>(id_w, 24);
  for (const auto& it : u.items) out += item_text(it, id_w, l, paint);
  return out + verdict_text(u, l, paint);
}

std::string timings_text(const std::vector<gpu_timing>& timings, lang l) {
  // 2 + 24 + 1 + 12 + 1 + 9 + 1 + 7 + 1 + 22 = 80 columns.
  std::string out =
      fmt::format("  {:<24} {:<12} {:>9} {:>7} {}\n", "kernel", pad(tr(l, "规模", "size"), 12),
                  "ms", tr(l, "比参考解", "vs sol."), tr(l, "相对基线", "vs baseline"));
  for (const auto& t : timings) {
    const std::string vs_solution =
        t.ms > 0 && t.solution_ms > 0 ? fmt::format("{:.2f}x", t.ms / t.solution_ms) : "-";
    // One line per baseline: the first beside the kernel, the others under it.
    std::vector<std::string> vs_base;
    for (const gpu_baseline& b : t.baselines) {
      if (t.ms <= 0 || b.ms <= 0) continue;
      vs_base.push_back(b.name == "cublas_sgemm"
                            ? fmt::format("{:.0f}% of cuBLAS", 100.0 * b.ms / t.ms)
                            : fmt::format("{:.2f}x {}", b.ms / t.ms, terminal_text(b.name)));
    }
    if (vs_base.empty()) vs_base.push_back("-");
    out += fmt::format("  {:<24} {:<12} {:>9} {:>7} {}\n", terminal_text(t.kernel),
                       terminal_text(t.size),
                       t.valid ? fmt::format("{:.3f}", t.ms) : tr(l, "结果错误", "wrong"),
                       vs_solution, vs_base[0]);
    for (size_t i = 1; i < vs_base.size(); ++i)
      out += fmt::format("  {:<24} {:<12} {:>9} {:>7} {}\n", "", "", "", "", vs_base[i]);
  }
  return out;
}

// ---- The ending: a line per unit, the blanks, the next step (also `grader status`).

const char* blank_mark(blank_status s) {
  switch (s) {
    case blank_status::pass:
      return "✓";
    case blank_status::fail:
    case blank_status::error:
      return "✗";
    case blank_status::empty:
      return "·";
    case blank_status::waiting:
    case blank_status::filled:
      return "?";
  }
  return "?";
}

const char* blank_color(blank_status s) {
  return s == blank_status::pass                               ? "32"
         : s == blank_status::fail || s == blank_status::error ? "31"
                                                               : "33";
}

std::string blank_state_text(const blank_state& b, lang l) {
  switch (b.status) {
    case blank_status::empty:
      return tr(l, "空着", "empty");
    case blank_status::pass:
      return tr(l, "对", "right");
    case blank_status::fail:
      return tr(l, "错", "wrong");
    case blank_status::waiting:
      return trf(l, "已填，等 `{}` 填好后判定", "filled; judged once `{}` is filled", b.detail);
    case blank_status::filled:
      return tr(l, "已填，所在练习还没全对", "filled; its exercise does not pass yet");
    case blank_status::error:
      return b.detail;
  }
  return {};
}

// The exercise files in report order, each with its blanks.
std::vector<std::pair<std::string, std::vector<const blank_state*>>> blanks_by_file(
    const report& r) {
  std::vector<std::pair<std::string, std::vector<const blank_state*>>> out;
  for (const blank_state& b : r.blanks) {
    if (out.empty() || out.back().first != b.file) out.push_back({b.file, {}});
    out.back().second.push_back(&b);
  }
  return out;
}

std::string blanks_text(const report& r, const painter& paint) {
  const lang l = r.language;
  std::string out;
  for (const auto& [file, blanks] : blanks_by_file(r)) {
    // The marks, each with its blank's name, packed into lines of kWidth (never split from
    // their names), then a line for each blank not yet right.
    size_t done = 0;
    for (const blank_state* b : blanks) done += b->status == blank_status::pass;
    out += "  " + paint(file, "1") +
           trf(l, "  {}/{} 个空已对", "  {}/{} blanks right", done, blanks.size()) + "\n";
    std::string line;
    size_t used = 0;
    for (const blank_state* b : blanks) {
      const size_t w = 2 + display_width(b->name);
      if (used > 0 && 4 + used + 2 + w > kWidth) {
        out += "    " + line + "\n";
        line.clear();
        used = 0;
      }
      if (used > 0) line += "  ", used += 2;
      line += paint(blank_mark(b->status), blank_color(b->status)) + " " + b->name;
      used += w;
    }
    if (used > 0) out += "    " + line + "\n";
    for (const blank_state* b : blanks) {
      if (b->status == blank_status::pass || b->status == blank_status::empty) continue;
      const std::string where =
          b->line > 0 ? trf(l, "（第 {} 行）", " (line {})", b->line) : std::string();
      out += wrapped(b->status == blank_status::fail
                         ? trf(l, "{}：{}", "{}: {}", blank_state_text(*b, l), b->detail)
                         : blank_state_text(*b, l),
                     "    " + paint(blank_mark(b->status), blank_color(b->status)) + " " + b->name +
                         where + tr(l, "：", ": "),
                     6);
      if (!b->rerun.empty())
        out += std::string("      ") + tr(l, "重跑这一例：", "rerun this case:") + "\n" +
               wrapped(b->rerun, "        ", 8);
    }
  }
  return out;
}

// What to do next, in one or two lines: the first wrong blank, else the first empty
// one, else the first failing item, else hand it in.
std::string next_step(const report& r) {
  const lang l = r.language;
  auto hint = [&](const blank_state& b) {
    return b.hint.empty()
               ? std::string()
               : trf(l, "；提示：grader hint {} {}", "; hint: grader hint {} {}", r.lesson, b.hint);
  };
  auto where = [&](const blank_state& b) {
    return b.line > 0 ? trf(l, "{} 第 {} 行", "{} line {}", b.file, b.line) : b.file;
  };
  for (const blank_state& b : r.blanks)
    if (b.status == blank_status::fail)
      return trf(l, "改正空 `{}`（{}）{}", "fix blank `{}` ({}){}", b.name, where(b), hint(b));
  for (const blank_state& b : r.blanks)
    if (b.status == blank_status::empty)
      return trf(l, "填空 `{}`（{}）{}", "fill in blank `{}` ({}){}", b.name, where(b), hint(b));
  for (const unit_report& u : r.units)
    for (const item_result& it : u.items)
      if (it.status != item_status::pass && it.status != item_status::at_submission)
        return trf(l, "{}：{} —— {}", "{}: {} — {}", u.title, it.id, it.title);
  if (r.passed()) return tr(l, "全部通过：可以提交了", "every unit passes: hand it in");
  for (const unit_report& u : r.units)
    if (!u.passed) return trf(l, "{}：看上面的一票否决", "{}: see its vetoes above", u.title);
  return {};
}

std::string ending_text(const report& r, const painter& paint, bool with_blanks) {
  const lang l = r.language;
  std::string out = "\n" + paint(tr(l, "小结", "Summary"), "1") + "\n";
  size_t title_w = 0;
  for (const auto& u : r.units) title_w = std::max(title_w, display_width(u.title));
  title_w = std::min<size_t>(title_w, 40);
  for (const auto& u : r.units) {
    const std::string verdict = u.passed ? paint("PASS", "32;1") : paint("FAIL", "31;1");
    const std::vector<std::string> title = wrap_text(u.title, title_w);
    for (size_t i = 0; i + 1 < title.size(); ++i) out += "  " + title[i] + "\n";
    out += fmt::format("  {}  {:>8}  {}{}\n", pad(title.back(), title_w),
                       fmt::format("{} / {:g}", points_text(u.score), u.max_score), verdict,
                       u.provisional ? tr(l, "（暂定）", " (provisional)") : "");
  }
  out += "  " +
         trf(l, "{}/{} 个单元通过", "{} of {} units pass", r.units_passed(), r.units.size()) + "\n";
  if (with_blanks && !r.blanks.empty()) out += "\n" + blanks_text(r, paint);
  if (const std::string next = next_step(r); !next.empty()) {
    const std::string lead = tr(l, "下一步：", "Next: ");
    out += "\n" + wrapped(next, paint(lead, "1;36"), display_width(lead));
  }
  return out;
}

}  // namespace

std::string render_text(const gpu_section& g, lang l) {
  std::string out = fmt::format("\n{} {} (sm_{})\n", tr(l, "GPU：", "GPU:"), g.device, g.arch);
  for (const auto& m : g.messages) out += wrapped(m, "  ", 4);
  for (const auto& d : g.disagreements)
    out += wrapped(trf(l, "模拟器与 GPU 结论不同（同一种子）：{}",
                       "the emulator and the GPU disagree (same seed): {}", d),
                   "  ", 4);
  for (const auto& c : g.checks)
    out += wrapped(fmt::format("{}  {}{}", c.item, c.status,
                               c.feedback.empty() ? "" : ": " + one_line(c.feedback)),
                   std::string("  ") +
                       (c.status == "pass"            ? "✓"
                        : c.status == "emulator-only" ? "-"
                        : c.status == "error"         ? "!"
                                                      : "✗") +
                       " ",
                   4);
  if (!g.timings.empty()) out += timings_text(g.timings, l);
  return out;
}

std::string render_text(const report& r, bool color) {
  const painter paint{color};
  std::string out = header_text(r, paint) + outside_blanks_text(r, paint) + notes_text(r);
  for (const auto& u : r.units) out += unit_text(u, r.language, paint);
  if (r.gpu) out += render_text(*r.gpu, r.language);
  if (!r.units.empty()) out += ending_text(r, paint, true);
  return out;
}

std::string render_status(const report& r, bool color) {
  const painter paint{color};
  std::string out = paint(r.title, "1") + "\n";
  out += wrapped(
      tr(r.language, "提交：", "Submission:") + std::string(" ") + terminal_text(r.submission), "",
      2);
  for (const auto& b : r.build_failures)
    out +=
        wrapped(trf(r.language, "{} 编译失败（grader {} 显示编译器的输出）",
                    "{} does not compile (grader {} shows the compiler's lines)", b.file, r.lesson),
                "  " + paint("✗", "31") + " ", 4);
  return out + ending_text(r, paint, true);
}

// `grader --format text` (reporter.hpp); the rank orders the list of formats.
const reporter_registration text_format{"text", reporter_of<text_reporter>, 10};

}  // namespace grader
