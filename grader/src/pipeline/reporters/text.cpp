// The text format: a table per unit for people, in zh or en (see reporter.hpp).
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

std::string pad(const std::string& s, size_t width) {
  const size_t w = display_width(s);
  return w >= width ? s : s + std::string(width - w, ' ');
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

size_t display_width(std::string_view s) {
  size_t w = 0;
  for (size_t i = 0; i < s.size();) {
    const unsigned char c = s[i];
    char32_t cp = c;
    int len = 1;
    if (c >= 0xF0) {
      cp = c & 0x07;
      len = 4;
    } else if (c >= 0xE0) {
      cp = c & 0x0F;
      len = 3;
    } else if (c >= 0xC0) {
      cp = c & 0x1F;
      len = 2;
    }
    for (int k = 1; k < len && i + k < s.size(); ++k) cp = (cp << 6) | (s[i + k] & 0x3F);
    i += len;
    const bool wide = (cp >= 0x1100 && cp <= 0x115F) || (cp >= 0x2E80 && cp <= 0xA4CF) ||
                      (cp >= 0xAC00 && cp <= 0xD7A3) || (cp >= 0xF900 && cp <= 0xFAFF) ||
                      (cp >= 0xFE30 && cp <= 0xFE4F) || (cp >= 0xFF00 && cp <= 0xFF60) ||
                      (cp >= 0xFFE0 && cp <= 0xFFE6);
    w += wide ? 2 : 1;
  }
  return w;
}

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
}  // namespace

namespace {

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
  std::string out =
      fmt::format("{}\n{} {}\n{} {}\n", paint(r.title, "1"), tr(l, "提交：", "Submission:"),
                  terminal_text(r.submission), tr(l, "随机种子：", "Seed:"),
                  trf(l, "{}（用 --seed {} 复现同样的测试输入）",
                      "{} (--seed {} reproduces the test inputs)", r.seed, r.seed));
  if (!r.review_file.empty())
    out += fmt::format("{} {}\n", tr(l, "教师复核：", "Review:"), r.review_file);
  if (r.isolation.starts_with("none"))
    out += fmt::format("{} {}\n", paint(tr(l, "隔离：无", "Isolation: none"), "33"),
                       trf(l, "（{}）：学生代码以评分器的权限运行",
                           "({}): the student's code ran with "
                           "the grader's rights",
                           r.isolation.substr(r.isolation.find(':') + 2)));
  if (r.isolation_level == "restricted")
    out +=
        fmt::format("{} {}\n", paint(tr(l, "隔离：受限", "Isolation: restricted"), "33"),
                    trf(l, "（没有用户命名空间，用的是后备沙箱：{}）",
                        "(no user namespaces here; the fallback sandbox: {})", r.isolation_detail));
  if (!r.judged_apart.empty()) {
    std::string apart;
    for (const auto& f : r.judged_apart) apart += (apart.empty() ? "" : ", ") + f;
    out += fmt::format("{} {}\n", tr(l, "评分方式：", "Marking:"),
                       trf(l, "{} 的结果由不含学生代码的独立进程判定",
                           "{}: judged by a separate process with no student code", apart));
  }
  if (!r.ignored_files.empty()) {
    std::string list;
    for (const auto& f : r.ignored_files) list += (list.empty() ? "" : ", ") + one_line(f);
    out += fmt::format("{} {}\n",
                       tr(l, "忽略（清单中没有的文件，未读取）：",
                          "Ignored (not named by the manifest, never read):"),
                       list);
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
    out += fmt::format("    {}:{}  {}  {}\n", e.file, e.change.line,
                       e.change.kind == "added" ? tr(l, "新增", "added")
                                                : tr(l, "练习的这一行被改动或删除",
                                                     "the exercise's line, changed or removed"),
                       one_line(trim_ascii(e.change.text)));
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
    for (std::string_view line : split_lines(m)) out += fmt::format("  {}\n", terminal_text(line));
  }
  if (!r.reused.empty()) {
    std::string list;
    for (const auto& f : r.reused) list += (list.empty() ? "" : ", ") + f;
    out += "\n  " +
           trf(l, "未改动，沿用上次（同一种子）的测试结果：{}（--fresh 重新运行）",
               "Unchanged, so the last grade's results (same seed) are reused: {} (--fresh re-runs "
               "them)",
               list) +
           "\n";
  }
  for (const auto& b : r.build_failures) {
    out += "\n" + (b.timed_out ? trf(l, "  {} 没有在时限内编译完：\n",
                                     "  {} did not finish compiling in time:\n", b.file)
                               : trf(l, "  {} 编译失败：\n", "  {} does not compile:\n", b.file));
    for (std::string_view line : split_lines(b.diagnostics))
      out += fmt::format("  {}\n", terminal_text(line));
  }
  return out;
}

// One item's line, its feedback and its warnings.
std::string item_text(const item_result& it, size_t id_w, size_t title_w, lang l,
                      const painter& paint) {
  const bool later = it.status == item_status::at_submission;
  const char* mark = it.status == item_status::pass      ? "✓"
                     : it.status == item_status::partial ? "~"
                     : later                             ? "…"
                                                         : "✗";
  const char* code = it.status == item_status::pass      ? "32"
                     : it.status == item_status::partial ? "33"
                     : later                             ? "36"
                                                         : "31";
  const std::string flag = it.reviewed       ? tr(l, "  （已复核）", "  (reviewed)")
                           : it.needs_review ? tr(l, "  （待人工复核）", "  (needs review)")
                                             : "";
  std::string out = fmt::format(
      "  {} {}  {}  {:>5} / {:g}{}\n", paint(mark, code), pad(it.id, id_w), pad(it.title, title_w),
      it.at_submission ? "-" : points_text(it.points), it.max_points, flag);
  if (!it.feedback.empty())
    for (std::string_view line : split_lines(it.feedback))
      out += fmt::format("      {}\n", terminal_text(line));
  for (const std::string& w : it.warnings) {
    bool first = true;
    for (std::string_view line : split_lines(w)) {
      out += fmt::format("      {}{}\n", first ? paint(tr(l, "警告：", "warning: "), "33") : "",
                         terminal_text(line));
      first = false;
    }
  }
  return out;
}

// A unit's vetoes, score, pass line and verdict.
std::string verdict_text(const unit_report& u, lang l, const painter& paint) {
  std::string out;
  if (!u.vetoes.empty()) {
    out += fmt::format("  {}\n", paint(tr(l, "一票否决：", "Vetoes:"), "31;1"));
    for (const auto& v : u.vetoes)
      out += fmt::format("    {} {} — {}{}\n      {}\n", v.applies() ? "✗" : "·", v.id, v.title,
                         veto_state(v, l), one_line(v.reason));
  } else {
    out += fmt::format("  {}\n", tr(l, "一票否决：无", "Vetoes: none"));
  }
  if (u.at_submission_points > 0) {  // a student release: the questions come later
    const std::string note =
        trf(l, "暂定：本地评了 {0:g} 分中的 {1:g} 分，{2:g} 分在提交时评",
            "provisional: {1:g} of {0:g} points graded here, {2:g} points graded at submission",
            u.max_score, u.max_score - u.at_submission_points, u.at_submission_points);
    return out +
           fmt::format("  {} {} / {:g}   {} {:g}   {}\n", tr(l, "得分", "Score"),
                       points_text(u.score), u.max_score, tr(l, "通过线", "pass line"), u.pass_line,
                       u.passed
                           ? paint(note, "36;1")
                           : paint("FAIL", "31;1") + tr(l, "（", " (") + note + tr(l, "）", ")"));
  }
  const std::string verdict = u.passed ? paint("PASS", "32;1") : paint("FAIL", "31;1");
  return out + fmt::format("  {} {} / {:g}   {} {:g}   {}{}\n", tr(l, "得分", "Score"),
                           points_text(u.score), u.max_score, tr(l, "通过线", "pass line"),
                           u.pass_line, verdict,
                           u.provisional ? tr(l, "（暂定：有待人工复核的部分）",
                                              " (provisional: parts wait for review)")
                                         : "");
}

std::string unit_text(const unit_report& u, lang l, const painter& paint) {
  std::string out = fmt::format("\n{}\n", paint(u.title, "1"));
  size_t id_w = 0, title_w = 0;
  for (const auto& it : u.items) {
    id_w = std::max(id_w, display_width(it.id));
    title_w = std::max(title_w, display_width(it.title));
  }
  for (const auto& it : u.items) out += item_text(it, id_w, title_w, l, paint);
  return out + verdict_text(u, l, paint);
}

std::string timings_text(const std::vector<gpu_timing>& timings, lang l) {
  std::string out = fmt::format("  {:<26} {:<14} {:>10} {:>12} {:>22}\n", tr(l, "kernel", "kernel"),
                                tr(l, "规模", "size"), "ms", tr(l, "相对参考解", "vs solution"),
                                tr(l, "相对基线", "vs baseline"));
  for (const auto& t : timings) {
    const std::string vs_solution =
        t.ms > 0 && t.solution_ms > 0 ? fmt::format("{:.2f}x", t.ms / t.solution_ms) : "-";
    std::string vs_base = "-";
    if (t.ms > 0 && t.baseline_ms > 0)
      vs_base = t.baseline == "cublas_sgemm"
                    ? fmt::format("{:.0f}% of cuBLAS", 100.0 * t.baseline_ms / t.ms)
                    : fmt::format("{:.2f}x faster than {}", t.baseline_ms / t.ms, t.baseline);
    out += fmt::format(
        "  {:<26} {:<14} {:>10} {:>12} {:>22}\n", terminal_text(t.kernel), terminal_text(t.size),
        t.valid ? fmt::format("{:.3f}", t.ms) : tr(l, "结果错误", "wrong"), vs_solution, vs_base);
  }
  return out;
}

}  // namespace

std::string render_text(const gpu_section& g, lang l) {
  std::string out = fmt::format("\n{} {} (sm_{})\n", tr(l, "GPU：", "GPU:"), g.device, g.arch);
  for (const auto& m : g.messages)
    for (std::string_view line : split_lines(m)) out += fmt::format("  {}\n", terminal_text(line));
  for (const auto& d : g.disagreements)
    out += "  " +
           trf(l, "模拟器与 GPU 结论不同（同一种子）：{}",
               "the emulator and the GPU disagree (same seed): {}", d) +
           "\n";
  for (const auto& c : g.checks)
    out += fmt::format("  {} {}  {}{}\n",
                       c.status == "pass"            ? "✓"
                       : c.status == "emulator-only" ? "-"
                       : c.status == "error"         ? "!"
                                                     : "✗",
                       c.item, c.status, c.feedback.empty() ? "" : ": " + one_line(c.feedback));
  if (!g.timings.empty()) out += timings_text(g.timings, l);
  return out;
}

std::string render_text(const report& r, bool color) {
  const painter paint{color};
  std::string out = header_text(r, paint) + outside_blanks_text(r, paint) + notes_text(r);
  for (const auto& u : r.units) out += unit_text(u, r.language, paint);
  if (r.gpu) out += render_text(*r.gpu, r.language);
  return out;
}

// `grader --format text` (reporter.hpp); the rank orders the list of formats.
const reporter_registration text_format{"text", reporter_of<text_reporter>, 10};

}  // namespace grader
