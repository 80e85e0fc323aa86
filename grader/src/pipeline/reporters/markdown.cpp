// The markdown format: feedback for the student as a Markdown page (a batch writes one per
// student, feedback.md), in the report's language: each unit's score and verdict, a table
// of its items, the feedback of every item that lost points, the vetoes, and what the
// grader noticed (blanks, build errors, edits outside the blanks, isolation).
//   grader mark lesson13 DIR --format markdown > feedback.md
#include <fmt/format.h>

#include "grader/base/i18n.hpp"
#include "grader/pipeline/reporter.hpp"
#include "rows.hpp"

namespace grader {
namespace {

// Text for a heading, a list item or a table cell: one line that renders as itself (a
// student's name or answer in a message or a veto's reason is no link, tag or table cell).
std::string cell(std::string_view s) {
  return markdown_text(s);
}

// A fenced block that no line of `s` can close.
std::string fenced(std::string_view s) {
  std::string fence = "```";
  while (s.find(fence) != std::string_view::npos) fence += '`';
  return fence + "text\n" + rows::utf8(s) + "\n" + fence + "\n";
}

const char* status_word(item_status s, lang l) {
  switch (s) {
    case item_status::pass:
      return tr(l, "通过", "pass");
    case item_status::partial:
      return tr(l, "部分", "partial");
    case item_status::fail:
      return tr(l, "未通过", "fail");
    case item_status::error:
      return tr(l, "出错", "error");
    case item_status::at_submission:
      return tr(l, "提交时评", "graded at submission");
  }
  return "";
}

// --gpu: the checks on the GPU, the disagreements with the emulator, and the timings.
std::string gpu_markdown(const gpu_section& g, lang l) {
  std::string out = fmt::format("## GPU: {} (sm_{})\n\n", cell(g.device), cell(g.arch));
  for (const std::string& m : g.messages) out += "- " + cell(m) + "\n";
  for (const std::string& d : g.disagreements)
    out += "- **" +
           trf(l, "模拟器与 GPU 结论不同（同一种子）：{}",
               "the emulator and the GPU disagree (same seed): {}", cell(d)) +
           "**\n";
  if (!g.messages.empty() || !g.disagreements.empty()) out += "\n";
  if (!g.checks.empty())
    out += tr(l, "| 项目 | GPU 结果 | 说明 |\n| --- | --- | --- |\n",
              "| Item | On the GPU | Notes |\n| --- | --- | --- |\n");
  for (const gpu_check& c : g.checks)
    out += fmt::format("| {} | {} | {} |\n", cell(c.item), cell(c.status), cell(c.feedback));
  if (!g.timings.empty())
    out += tr(l, "\n| kernel | 规模 | ms | 参考解 ms | 基线 | 基线 ms |\n",
              "\n| Kernel | Size | ms | Solution ms | Baseline | Baseline ms |\n") +
           std::string("| --- | --- | --- | --- | --- | --- |\n");
  auto ms = [](double x) { return x > 0 ? fmt::format("{:.3f}", x) : std::string("-"); };
  for (const gpu_timing& t : g.timings) {
    std::string names, times;
    for (const gpu_baseline& b : t.baselines) {
      names += (names.empty() ? "" : "<br>") + cell(b.name);
      times += (times.empty() ? "" : "<br>") + ms(b.ms);
    }
    out += fmt::format("| {} | {} | {} | {} | {} | {} |\n", cell(t.kernel), cell(t.size),
                       t.valid ? ms(t.ms) : tr(l, "结果错误", "wrong"), ms(t.solution_ms),
                       names.empty() ? "-" : names, times.empty() ? "-" : times);
  }
  return out + "\n";
}

class markdown_reporter final : public reporter {
 public:
  void write(const report& r, std::ostream& out) const override {
    const lang l = r.language;
    out << "# " << cell(r.title) << "\n\n";
    out << trf(l, "总分 {} / {}，{}", "Total {} / {}, {}", rows::total_points(r),
               rows::total_max_points(r), r.passed() ? "PASS" : "FAIL")
        << "\n\n";
    for (const std::string& m : r.messages) out << "- " << cell(m) << "\n";
    for (const build_failure& b : r.build_failures)
      out << "- " << cell(b.file)
          << tr(l, " 没有编译通过（见下方编译器输出）",
                " did not build (the compiler's lines below)")
          << "\n";
    if (!r.messages.empty() || !r.build_failures.empty()) out << "\n";
    for (const unit_report& u : r.units) {
      out << "## " << cell(u.title) << "\n\n";
      out << trf(l, "{} / {} 分，及格线 {}：**{}**{}", "{} / {} points, pass line {}: **{}**{}",
                 u.score, u.max_score, u.pass_line, u.passed ? "PASS" : "FAIL",
                 u.provisional
                     ? tr(l, "（暂定：部分内容等待复核）", " (provisional: parts wait for review)")
                     : "")
          << "\n\n";
      out << tr(l, "| 项目 | 分数 | 结果 |\n| --- | --- | --- |\n",
                "| Item | Points | Result |\n| --- | --- | --- |\n");
      for (const item_result& it : u.items)
        out << fmt::format("| {} ({}) | {} / {} | {}{} |\n", cell(it.title), cell(it.id),
                           round_points(it.points), it.max_points, status_word(it.status, l),
                           it.needs_review ? tr(l, "，待复核", ", needs review") : "");
      out << "\n";
      for (const veto_result& v : u.vetoes)
        if (v.applies())
          out << "- **" << tr(l, "否决", "Veto") << " " << cell(v.id) << "**"
              << (v.provisional && v.review.empty() ? tr(l, "（暂定）", " (provisional)") : "")
              << ": " << cell(v.reason) << "\n";
      for (const item_result& it : u.items) {
        if (it.status == item_status::pass || it.feedback.empty()) continue;
        out << "\n### " << cell(it.id) << "\n\n" << fenced(it.feedback);
      }
      out << "\n";
    }
    for (const build_failure& b : r.build_failures)
      out << "### " << cell(b.file) << "\n\n" << fenced(b.diagnostics) << "\n";
    if (!r.outside_blanks.empty())
      out << tr(l, "空以外的改动已标出（按所写的代码评分）：",
                "Edits outside the blanks (flagged; graded as written):")
          << " " << r.outside_blanks.size() << "\n\n";
    if (r.gpu) out << gpu_markdown(*r.gpu, l);
    out << trf(l, "隔离级别：{}；随机种子 {}", "Isolation: {}; seed {}",
               r.isolation_level.empty() ? "none" : r.isolation_level, r.seed)
        << "\n";
  }
};

}  // namespace

// `grader --format markdown` (reporter.hpp); the rank orders the list of formats.
const reporter_registration markdown_format{"markdown", reporter_of<markdown_reporter>, 70};

}  // namespace grader
