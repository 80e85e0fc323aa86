// `grader batch`'s class files (see batch.hpp): batch.json, gradebook.csv, summary.md and
// items.svg, written from the students' folders, for one batch, a re-mark after a review, or
// a --merge of shards.
#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <utility>
#include <vector>

#include "grader/base/error.hpp"
#include "grader/base/files.hpp"
#include "grader/base/text.hpp"
#include "grader/commands/batch.hpp"

namespace fs = std::filesystem;

namespace grader {
namespace {

struct row_data {
  std::string name;               // the student's entry in SUBMISSIONS
  nlohmann::json status, report;  // report: null when not graded
};

// A student's row from the folder a batch wrote for them.
row_data read_row(const std::string& name, const fs::path& dir) {
  row_data r{name, nlohmann::json::object(), nullptr};
  try {
    std::ifstream st(dir / "status.json");
    r.status = nlohmann::json::parse(st);
    if (r.status.value("error", std::string("?")).empty()) {
      std::ifstream rep(dir / "report.json");
      r.report = nlohmann::json::parse(rep);
    }
  } catch (const std::exception&) {
    r.status["error"] = "no readable report";
  }
  return r;
}

double number_or(const nlohmann::json& j, const char* key, double fallback = 0) {
  return j.is_object() && j.contains(key) && j[key].is_number() ? j[key].get<double>() : fallback;
}

void write_gradebook(const manifest& m, const fs::path& out, const std::vector<row_data>& rows) {
  std::vector<std::string> head = {"student", "graded", "reason", "score", "max_score", "passed"};
  for (const unit& u : m.units)
    for (const char* f : {"score", "passed", "provisional", "vetoes"})
      head.push_back(u.id + "." + f);
  for (const unit& u : m.units)
    for (const item& it : u.items) head.push_back(it.id);
  for (const char* f : {"isolation_level", "grader_version", "seed", "seconds"}) head.push_back(f);
  std::string csv;
  for (size_t i = 0; i < head.size(); ++i) csv += (i ? "," : "") + csv_field(head[i]);
  csv += "\n";
  for (const row_data& r : rows) {
    std::vector<std::string> f = {shown_name(r.name)};
    const bool graded = !r.report.is_null();
    f.push_back(graded ? "yes" : "no");
    f.push_back(graded ? "" : one_line(r.status.value("error", std::string())));
    std::map<std::string, nlohmann::json> units;
    std::map<std::string, double> points;
    double total = 0, most = 0;
    bool passed = graded;
    if (graded)
      for (const auto& u : r.report["units"]) {
        units[u.value("unit", "")] = u;
        total += number_or(u, "score");
        most += number_or(u, "max_score");
        passed &= u.value("passed", false);
        for (const auto& it : u["items"]) points[it.value("id", "")] = number_or(it, "points");
      }
    f.push_back(graded ? fmt::format("{:g}", total) : "");
    f.push_back(graded ? fmt::format("{:g}", most) : "");
    f.push_back(graded ? (passed ? "yes" : "no") : "");
    for (const unit& u : m.units) {
      const auto it = units.find(u.id);
      if (it == units.end()) {
        f.insert(f.end(), {"", "", "", ""});
        continue;
      }
      const auto& j = it->second;
      std::string vetoes;
      for (const auto& v : j["vetoes"])
        if (v.value("applies", false))
          vetoes +=
              (vetoes.empty() ? "" : ";") + v.value("id", std::string()) +
              (v.value("provisional", false) && v.value("review", std::string()).empty() ? "?"
                                                                                         : "");
      f.push_back(fmt::format("{:g}", number_or(j, "score")));
      f.push_back(j.value("passed", false) ? "yes" : "no");
      f.push_back(j.value("provisional", false) ? "yes" : "no");
      f.push_back(vetoes);
    }
    for (const unit& u : m.units)
      for (const item& it : u.items) {
        const auto p = points.find(it.id);
        f.push_back(p == points.end() ? "" : fmt::format("{:g}", p->second));
      }
    f.push_back(graded ? r.report.value("isolation_level", std::string()) : "");
    f.push_back(GRADER_VERSION);
    f.push_back(graded && r.report.contains("seed") ? r.report["seed"].dump() : "");
    f.push_back(fmt::format("{:.1f}", number_or(r.status, "seconds")));
    for (size_t i = 0; i < f.size(); ++i) csv += (i ? "," : "") + csv_field(f[i]);
    csv += "\n";
  }
  write_replacing(out / "gradebook.csv", csv);
}

// How many students earned an item fully, partly, not at all.
struct tally {
  int full = 0, partial = 0, none = 0;
};

// The graded students' reports, counted: per item, per unit passed, per veto raised.
struct class_tally {
  std::map<std::string, tally> items;
  std::map<std::string, int> unit_passed, vetoes;
  int graded = 0;

  tally item(const std::string& id) const {
    const auto it = items.find(id);
    return it == items.end() ? tally{} : it->second;
  }
  int passed(const std::string& unit_id) const {
    const auto it = unit_passed.find(unit_id);
    return it == unit_passed.end() ? 0 : it->second;
  }
};

class_tally tally_class(const std::vector<row_data>& rows) {
  class_tally c;
  for (const row_data& r : rows) {
    if (r.report.is_null()) continue;
    ++c.graded;
    for (const auto& u : r.report["units"]) {
      c.unit_passed[u.value("unit", "")] += u.value("passed", false);
      for (const auto& v : u["vetoes"])
        if (v.value("applies", false)) ++c.vetoes[u.value("unit", "") + ": " + v.value("id", "")];
      for (const auto& it : u["items"]) {
        tally& t = c.items[it.value("id", "")];
        const double p = number_or(it, "points"), most = number_or(it, "max_points");
        (p >= most - 1e-9 ? t.full : p > 1e-9 ? t.partial : t.none) += 1;
      }
    }
  }
  return c;
}

// items.svg: one stacked bar per item, green full, amber partial, red none.
std::string items_svg(const manifest& m, const class_tally& c) {
  const int width = 420, left = 230, bar = 18, gap = 6;
  int n = 0;
  for (const unit& u : m.units) n += static_cast<int>(u.items.size());
  std::string svg = fmt::format(
      "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{}\" height=\"{}\" "
      "font-family=\"sans-serif\" font-size=\"12\">\n"
      "<title>{}: each item, the share of {} students with full, partial and no marks</title>\n",
      left + width + 20, 30 + n * (bar + gap) + 30, xml_text(m.lesson), c.graded);
  int y = 20;
  for (const unit& u : m.units)
    for (const item& it : u.items) {
      const tally t = c.item(it.id);
      const double all = std::max(1, t.full + t.partial + t.none);
      double x = left;
      svg += fmt::format("<text x=\"{}\" y=\"{}\" text-anchor=\"end\">{} / {}</text>\n", left - 6,
                         y + 13, xml_text(u.id), xml_text(it.id));
      for (const auto& [count, color] :
           {std::pair{t.full, "#2e7d32"}, {t.partial, "#f9a825"}, {t.none, "#c62828"}}) {
        const double w = width * count / all;
        if (count > 0)
          svg += fmt::format(
              "<rect x=\"{:.1f}\" y=\"{}\" width=\"{:.1f}\" height=\"{}\" fill=\"{}\"><title>{}"
              "</title></rect>\n",
              x, y, w, bar, color, count);
        x += w;
      }
      svg += fmt::format("<text x=\"{}\" y=\"{}\">{}/{}/{}</text>\n", left + width + 4, y + 13,
                         t.full, t.partial, t.none);
      y += bar + gap;
    }
  svg += fmt::format(
      "<text x=\"{}\" y=\"{}\">green: full marks, amber: partial, red: none (counts "
      "full/partial/none)"
      "</text>\n</svg>\n",
      left, y + 16);
  return svg;
}

// summary.md: every name, reason and id as text (markdown_text), never markup.
std::string summary_markdown(const manifest& m, const std::vector<row_data>& rows,
                             const class_tally& c) {
  const auto md_text = [](std::string_view s) { return markdown_text(s); };
  std::string md = fmt::format("# {}: the class at a glance\n\n", md_text(m.title.in(lang::en)));
  md += fmt::format("{} submissions, {} graded, {} not graded.\n\n", rows.size(), c.graded,
                    rows.size() - c.graded);
  md += "| Unit | Passed |\n| --- | --- |\n";
  for (const unit& u : m.units)
    md += fmt::format("| {} | {} of {} |\n", md_text(u.id), c.passed(u.id), c.graded);
  md += "\n![Each item: full, partial and no marks](items.svg)\n\n";
  md += "| Item | Full | Partial | None |\n| --- | --- | --- | --- |\n";
  for (const unit& u : m.units)
    for (const item& it : u.items) {
      const tally t = c.item(it.id);
      md += fmt::format("| {} / {} | {} | {} | {} |\n", md_text(u.id), md_text(it.id), t.full,
                        t.partial, t.none);
    }
  if (!c.vetoes.empty()) {
    md += "\n| Veto | Students |\n| --- | --- |\n";
    for (const auto& [v, count] : c.vetoes) md += fmt::format("| {} | {} |\n", md_text(v), count);
  }
  std::string not_graded;
  for (const row_data& r : rows)
    if (r.report.is_null())
      not_graded += fmt::format("- {}: {}\n", md_text(shown_name(r.name)),
                                md_text(r.status.value("error", std::string("no report"))));
  if (!not_graded.empty()) md += "\n## Not graded\n\n" + not_graded;
  return md;
}

// Per item: how many students earned it fully, partly, not at all; a stacked bar each.
void write_summary(const manifest& m, const fs::path& out, const std::vector<row_data>& rows) {
  const class_tally c = tally_class(rows);
  write_replacing(out / "items.svg", items_svg(m, c));
  write_replacing(out / "summary.md", summary_markdown(m, rows, c));
}
}  // namespace

std::string csv_field(const std::string& s) {
  // A cell that starts with = + - @, a tab or a carriage return is a formula to a spreadsheet
  // (OWASP, "CSV Injection"): unless it is a plain number, a leading ' keeps it text.
  std::string v = s;
  double number = 0;
  const auto [end, ec] = std::from_chars(v.data(), v.data() + v.size(), number);
  const bool plain_number = ec == std::errc() && end == v.data() + v.size() &&
                            v.find_first_not_of("0123456789.+-eE") == std::string::npos;
  if (!v.empty() && std::string_view("=+-@\t\r").find(v[0]) != std::string_view::npos &&
      !plain_number)
    v = "'" + v;
  if (v.find_first_of(",\"\n\r") == std::string::npos) return v;
  std::string out = "\"";
  for (char c : v) out += c == '"' ? std::string("\"\"") : std::string(1, c);
  return out + "\"";
}

int merge_batches(const manifest& m, const std::vector<fs::path>& parts, const fs::path& out,
                  std::ostream& log) {
  fs::create_directories(out / "students");
  std::vector<std::pair<std::string, fs::path>> students;  // (name, folder in out)
  nlohmann::json listed_all = nlohmann::json::array(), options;
  for (const fs::path& part : parts) {
    nlohmann::json listed;
    try {
      const nlohmann::json b = read_batch_json(part);
      listed = b.at("students");
      if (options.is_null()) options = b.value("options", nlohmann::json());
    } catch (const std::exception&) {
      throw cannot_grade(fmt::format("{} holds no batch (no readable batch.json)", part.string()));
    }
    const bool in_place = fs::equivalent(part, out);
    for (const auto& entry : listed) {
      const std::string name = entry.value("name", ""), folder = entry.value("folder", "");
      if (folder.empty() || folder != student_slug(folder) || folder.find('/') != std::string::npos)
        throw cannot_grade(
            fmt::format("{}/batch.json names a folder that is not one", part.string()));
      const fs::path from = part / "students" / folder, to = out / "students" / folder;
      if (!in_place) {
        if (fs::exists(to))
          throw cannot_grade(fmt::format("{} is in two of the batches merged", shown_name(name)));
        fs::copy(from, to, fs::copy_options::recursive);
        if (fs::is_regular_file(review_file(part, folder)))  // a shard reviewed before merging
          fs::copy_file(review_file(part, folder), review_file(out, folder),
                        fs::copy_options::overwrite_existing);
      }
      students.emplace_back(name, to);
    }
  }
  // The order of a single batch: by the entries' names in SUBMISSIONS.
  std::sort(students.begin(), students.end());
  for (const auto& [name, dir] : students)
    listed_all.push_back({{"name", name}, {"folder", dir.filename().string()}});
  write_class_files(
      m, out,
      {{"lesson", m.lesson}, {"shard", "1/1"}, {"options", options}, {"students", listed_all}});
  log << fmt::format("merged {} students from {} batches\n", students.size(), parts.size());
  return static_cast<int>(students.size());
}

void write_class_files(const manifest& m, const fs::path& out, const nlohmann::json& given) {
  // Names as shown, in their order: one batch (raw names, in the order of the folder's
  // entries) and a merge of its shards (names read back from batch.json) write the same.
  nlohmann::json batch = given;
  for (auto& entry : batch.at("students")) entry["name"] = shown_name(entry.value("name", ""));
  std::stable_sort(batch["students"].begin(), batch["students"].end(),
                   [](const nlohmann::json& a, const nlohmann::json& b) {
                     return std::pair(a.value("name", ""), a.value("folder", "")) <
                            std::pair(b.value("name", ""), b.value("folder", ""));
                   });
  std::vector<row_data> rows;
  for (const auto& entry : batch.at("students"))
    rows.push_back(read_row(entry.value("name", ""),
                            out / "students" / entry.value("folder", std::string("_"))));
  write_replacing(out / "batch.json",
                  batch.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) + "\n");
  write_gradebook(m, out, rows);
  write_summary(m, out, rows);
}

nlohmann::json read_batch_json(const fs::path& out) {
  std::ifstream in(out / "batch.json");
  nlohmann::json b = nlohmann::json::parse(in);
  if (!b.is_object() || !b.contains("students") || !b["students"].is_array())
    throw std::runtime_error("no students");
  for (const auto& entry : b["students"]) {
    const std::string folder = entry.value("folder", "");
    if (folder.empty() || folder != student_slug(folder))
      throw cannot_grade(fmt::format("{}/batch.json names a folder that is not one", out.string()));
  }
  return b;
}

}  // namespace grader
