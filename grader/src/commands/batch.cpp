// `grader batch`: marks a class, one `grader mark` process per student (see batch.hpp).
#include "grader/commands/batch.hpp"

#include <fmt/format.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <charconv>
#include <fstream>
#include <map>
#include <mutex>
#include <optional>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>
#include <thread>

#include "grader/base/error.hpp"
#include "grader/base/files.hpp"
#include "grader/base/subprocess.hpp"
#include "grader/base/text.hpp"
#include "grader/pipeline/resolve.hpp"

namespace fs = std::filesystem;

namespace grader {

// Below: batch.json, the gradebook and the summary, from the students' folders.
void write_class_files(const manifest& m, const fs::path& out, const nlohmann::json& batch);
nlohmann::json options_json(const batch_options& o);

namespace {

constexpr const char* kCannotGrade = "grader: cannot grade: ";
constexpr std::uintmax_t kMaxFile = 1 << 20;  // as marking's intake

struct student {
  std::string name;     // the entry's name in SUBMISSIONS (an archive's without .tar.gz)
  std::string slug;     // its folder under DIR/students/
  fs::path folder;      // where the manifest's files are
  fs::path archive;     // a .tar.gz, .tgz or .zip to unpack into `folder` first
  std::string problem;  // why it cannot be marked at all ("" when it can)
};

bool ends_with(const std::string& s, std::string_view tail) {
  return s.size() >= tail.size() && s.compare(s.size() - tail.size(), tail.size(), tail) == 0;
}

// A student's name as every class output writes it (each output escapes it further for its
// own format): control characters and bytes that are not UTF-8 as \xNN (printable_name),
// C1 controls as U+FFFD (terminal_text). Idempotent, so a name read back from batch.json
// (a merge, a review) comes out as the batch wrote it.
std::string shown_name(const std::string& raw) {
  return terminal_text(printable_name(raw));
}

// FNV-1a: a hash that is the same on every machine and build, as a shard's folder must be.
std::uint64_t stable_hash(std::string_view s, std::uint64_t salt) {
  std::uint64_t h = 14695981039346656037ull ^ salt;
  for (const unsigned char c : s) h = (h ^ c) * 1099511628211ull;
  return h;
}

// The student's folder under students/: student_slug(name); where that was cut at 200
// characters or is taken (a<b escapes to a_3cb, another student's name), its first 183
// characters and a hash of the whole name, so every student has a folder of their own
// that still reads as their name, and student_slug(folder) == folder (as batch.json is
// checked). `taken` holds, first, every name that is its own slug: a_3cb's folder is a_3cb.
std::string unique_slug(const std::string& name, std::set<std::string>& taken) {
  std::string slug = student_slug(name);
  if (slug == name && taken.count(name)) return slug;  // reserved for it
  bool cut = slug.size() >= 200;
  for (std::uint64_t salt = 0; cut || taken.count(slug); ++salt, cut = false)
    slug = student_slug(name).substr(0, 183) + fmt::format(".{:016x}", stable_hash(name, salt));
  taken.insert(slug);
  return slug;
}

// The manifest's files (every exercise, code and answers).
std::vector<std::string> lesson_files(const manifest& m) {
  std::vector<std::string> out;
  for (const exercise& e : m.exercises) out.push_back(e.file);
  return out;
}

// One member of an archive's listing (tar -tv, zipinfo): regular file or not, size, name.
struct member {
  bool regular = false;
  std::uintmax_t size = 0;
  std::string name;
};

// `fields` whitespace-separated fields, then the name (the rest of the line).
std::optional<member> parse_member(std::string_view line, int fields, int size_field) {
  member m;
  size_t at = 0;
  for (int k = 0; k < fields; ++k) {
    at = line.find_first_not_of(' ', at);
    if (at == std::string_view::npos) return std::nullopt;
    const size_t end = std::min(line.find(' ', at), line.size());
    const std::string_view field = line.substr(at, end - at);
    if (k == 0) m.regular = !field.empty() && field[0] == '-';
    if (k == size_field) {
      try {
        m.size = std::stoull(std::string(field));
      } catch (const std::exception&) {
        return std::nullopt;
      }
    }
    at = end;
  }
  at = line.find_first_not_of(' ', at);
  if (at == std::string_view::npos) return std::nullopt;
  m.name = std::string(line.substr(at));
  return m;
}

// Unpacks the manifest's files from a student's archive into `into`, and nothing else: the
// archive is listed first (a listing over 1 MiB is refused), each file is taken from the
// archive's root, its one top folder, or exercises/<lesson>/ in either, must be a regular
// file of at most 1 MiB, and is written under a file-size limit. Returns why not, or "".
std::string unpack(const manifest& m, const fs::path& archive, const fs::path& into) {
  fs::remove_all(into);
  fs::create_directories(into);
  const bool zip = ends_with(archive.filename().string(), ".zip");
  if (zip && !on_path("unzip")) return "a .zip archive, and unzip is not installed here";
  run_options ro;
  ro.timeout = std::chrono::seconds(60);
  ro.max_output = 1 << 20;
  const std::vector<std::string> list =
      zip ? std::vector<std::string>{"zipinfo", "-l", "--", archive.string()}
          : std::vector<std::string>{"tar", "-tvzf", archive.string()};
  const run_result listed = run_process(list, ro);
  if (!listed.ok()) return "an archive that cannot be read (" + listed.describe() + ")";
  std::map<std::string, std::pair<int, member>> chosen;  // file -> (depth, member)
  for (std::string_view line : split_lines(listed.output)) {
    // tar: mode owner size date time name; zipinfo -l: mode version os size csize type
    // method date time name.
    const auto mem = zip ? parse_member(line, 9, 3) : parse_member(line, 5, 2);
    if (!mem || mem->name.find("..") != std::string::npos || mem->name.starts_with("/")) continue;
    for (const std::string& f : lesson_files(m)) {
      const std::string nested = "exercises/" + m.lesson + "/" + f;
      const std::string& n = mem->name;
      int depth = -1;
      if (n == f)
        depth = 0;
      else if (n == nested)
        depth = 1;
      else if (ends_with(n, "/" + f) && n.find('/') == n.size() - f.size() - 1)
        depth = 2;
      else if (ends_with(n, "/" + nested) && n.find('/') == n.size() - nested.size() - 1)
        depth = 3;
      if (depth < 0) continue;
      if (!mem->regular) return "the archive's " + printable_name(n) + " is not a regular file";
      if (mem->size > kMaxFile) return "the archive's " + printable_name(n) + " is over 1 MiB";
      const auto it = chosen.find(f);
      if (it == chosen.end() || depth < it->second.first) chosen[f] = {depth, *mem};
    }
  }
  for (const auto& [f, picked] : chosen) {
    const fs::path raw = into / ".raw";
    fs::remove_all(raw);
    fs::create_directories(raw);
    std::vector<std::string> x = {"prlimit", "--fsize=2097152", "--"};
    if (zip)
      x.insert(x.end(),
               {"unzip", "-qq", "-o", archive.string(), picked.second.name, "-d", raw.string()});
    else
      x.insert(x.end(), {"tar", "-xzf", archive.string(), "-C", raw.string(), "--no-same-owner",
                         "--no-same-permissions", "--", picked.second.name});
    const run_result r = run_process(x, ro);
    const fs::path got = raw / picked.second.name;
    std::error_code ec;
    if (!r.ok() || !fs::is_regular_file(fs::symlink_status(got, ec)))
      return "the archive's " + printable_name(picked.second.name) + " could not be unpacked (" +
             r.describe() + ")";
    fs::rename(got, into / f);
    fs::remove_all(raw);
  }
  return "";
}

std::vector<student> find_students(const manifest& m, const fs::path& dir) {
  std::vector<fs::directory_entry> entries;
  for (const auto& e : fs::directory_iterator(dir)) entries.push_back(e);
  std::sort(entries.begin(), entries.end(),
            [](const auto& a, const auto& b) { return a.path().filename() < b.path().filename(); });
  std::vector<student> out;
  std::set<std::string> slugs;
  for (const auto& e : entries)
    if (const std::string n = e.path().filename().string(); student_slug(n) == n) slugs.insert(n);
  for (const auto& e : entries) {
    student s;
    s.name = e.path().filename().string();
    if (s.name.starts_with(".")) continue;  // .git, .DS_Store: not a student
    s.slug = unique_slug(s.name, slugs);
    std::error_code ec;
    const auto st = fs::symlink_status(e.path(), ec);
    if (fs::is_symlink(st)) {
      s.problem = "a link, not a folder: each student's submission must be a folder";
    } else if (fs::is_directory(st)) {
      s.folder = e.path();
      // A cloned repository (GitHub Classroom's assistant): the files in exercises/<lesson>/.
      bool at_root = false;
      for (const std::string& f : lesson_files(m)) at_root |= fs::exists(e.path() / f, ec);
      const fs::path nested = e.path() / "exercises" / m.lesson;
      if (!at_root && fs::is_directory(fs::symlink_status(nested, ec))) s.folder = nested;
    } else if (fs::is_regular_file(st) &&
               (ends_with(s.name, ".zip") || ends_with(s.name, ".tar.gz") ||
                ends_with(s.name, ".tgz"))) {
      s.archive = e.path();
      s.name = s.name.substr(0, s.name.size() - (ends_with(s.name, ".tar.gz") ? 7 : 4));
    } else {
      s.problem = "not a folder: each student's submission must be a folder";
    }
    out.push_back(std::move(s));
  }
  return out;
}

fs::path self_exe() {
  std::error_code ec;
  const fs::path p = fs::read_symlink("/proc/self/exe", ec);
  return ec ? fs::path("grader") : p;
}

// What, besides the files, decides a report: the grader binary and the options.
std::string stamp_of(const batch_options& o) {
  std::error_code ec;
  const fs::path exe = self_exe();
  std::string s = fmt::format("grader {}:{}\n", fs::file_size(exe, ec),
                              fs::last_write_time(exe, ec).time_since_epoch().count());
  s += "lang " + o.lang + "\n";
  for (const auto& f : o.formats) s += "format " + f + "\n";
  for (const auto& a : o.mark_args) s += "arg " + a + "\n";
  return s;
}

// The bytes of a regular file of at most 1 MiB, or nullopt (missing, a link, too big...).
std::optional<std::string> small_file(const fs::path& p) {
  std::error_code ec;
  const auto st = fs::symlink_status(p, ec);
  if (!fs::is_regular_file(st) || fs::file_size(p, ec) > kMaxFile || ec) return std::nullopt;
  std::ifstream in(p, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

// The student's files as graded, kept beside the report: the next batch compares with them.
void keep_graded_copy(const manifest& m, const student& s, const fs::path& dir) {
  const fs::path kept = dir / "graded";
  fs::remove_all(kept);
  fs::create_directories(kept);
  for (const std::string& f : lesson_files(m))
    if (auto bytes = small_file(s.folder / f)) write_replacing(kept / f, *bytes);
}

// The last batch's verdict on these files stands: a report (exit 0 or 1), or the grader's
// own refusal of the submission (exit 2: a missing file, a link). A grader that crashed or
// ran out of time is tried again.
bool unchanged(const manifest& m, const student& s, const fs::path& dir, const std::string& stamp) {
  if (small_file(dir / "stamp") != stamp || !fs::is_directory(dir / "graded")) return false;
  try {
    std::ifstream in(dir / "status.json");
    const int code = nlohmann::json::parse(in).value("exit", -1);
    if (code < 0 || code > 2) return false;
  } catch (const std::exception&) {
    return false;
  }
  for (const std::string& f : lesson_files(m))
    if (small_file(s.folder / f) != small_file(dir / "graded" / f)) return false;
  return true;
}

struct outcome {
  std::string line;  // for the log
  bool graded = false, kept = false;
};

outcome mark_unpacked(const course& c, const manifest& m, const batch_options& o, const student& s,
                      const fs::path& dir, const fs::path& tree, const std::string& stamp);

outcome mark_one(const course& c, const manifest& m, const batch_options& o, const student& s,
                 const fs::path& tree, const std::string& stamp) {
  student unpacked = s;
  if (!s.archive.empty()) {  // into the batch's own folder, a fresh one each time
    unpacked.folder = o.out / ".unpacked" / s.slug;
    unpacked.problem = unpack(m, s.archive, unpacked.folder);
  }
  return mark_unpacked(c, m, o, unpacked, o.out / "students" / s.slug, tree, stamp);
}

outcome mark_unpacked(const course& c, const manifest& m, const batch_options& o, const student& s,
                      const fs::path& dir, const fs::path& tree, const std::string& batch_stamp) {
  // An instructor's review (grader review) is part of what decides the report.
  const fs::path review = review_file(o.out, s.slug);
  const std::optional<std::string> review_bytes = small_file(review);
  const std::string stamp =
      batch_stamp + (review_bytes
                         ? fmt::format("review {:016x}\n", std::hash<std::string>{}(*review_bytes))
                         : std::string());
  if (!o.force && s.problem.empty() && unchanged(m, s, dir, stamp)) return {"kept", false, true};
  fs::remove_all(dir);
  fs::create_directories(dir);
  nlohmann::json status = {{"student", shown_name(s.name)}};
  outcome res;
  if (!s.problem.empty()) {
    status["exit"] = 2;
    status["error"] = s.problem;
    res.line = "not graded: " + s.problem;
  } else {
    // /proc/self/exe: the very binary this batch started as, even after a rebuild replaces
    // the file, so one batch is marked by one grader.
    std::vector<std::string> argv = {
        "/proc/self/exe", "mark",
        m.lesson,         s.folder.string(),
        "--root",         c.root.string(),
        "--build-dir",    tree.string(),
        "--lang",         o.lang,
        "--write",        "json=" + (dir / "report.json").string(),
        "--write",        "markdown=" + (dir / "feedback.md").string()};
    for (const auto& f : o.formats)
      argv.insert(argv.end(), {"--write", f + "=" + (dir / (f + ".out")).string()});
    argv.insert(argv.end(), o.mark_args.begin(), o.mark_args.end());
    if (review_bytes) argv.insert(argv.end(), {"--override", review.string()});
    run_options ro;
    ro.timeout = std::chrono::minutes(60);
    const run_result r = run_process(argv, ro);
    status["seconds"] = r.seconds;
    status["exit"] = r.exit_code;
    const bool reported = (r.exit_code == 0 || r.exit_code == 1) && fs::exists(dir / "report.json");
    keep_graded_copy(m, s, dir);
    if (reported) {
      status["error"] = "";
      try {
        std::ifstream in(dir / "report.json");
        const auto j = nlohmann::json::parse(in);
        double total = 0, most = 0;
        for (const auto& u : j.at("units")) {
          total += u.at("score").get<double>();
          most += u.at("max_score").get<double>();
        }
        res.line = fmt::format("{:g} / {:g} {} ({:.1f} s)", total, most,
                               r.exit_code == 0 ? "PASS" : "FAIL", r.seconds);
      } catch (const std::exception&) {
        res.line = "graded";
      }
      res.graded = true;
    } else {
      std::string why;
      for (std::string_view line : split_lines(r.output))
        if (line.starts_with(kCannotGrade))
          why = line.substr(std::string_view(kCannotGrade).size());
      if (why.empty()) why = "the grader " + r.describe();
      status["error"] = why;
      res.line = "not graded: " + why;
    }
  }
  write_replacing(dir / "status.json",
                  status.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) + "\n");
  write_replacing(dir / "stamp", stamp);
  return res;
}

// ---- the gradebook and the summary ------------------------------------------------

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

// Per item: how many students earned it fully, partly, not at all; a stacked bar each.
void write_summary(const manifest& m, const fs::path& out, const std::vector<row_data>& rows) {
  struct tally {
    int full = 0, partial = 0, none = 0;
  };
  std::map<std::string, tally> items;
  std::map<std::string, int> unit_passed, vetoes;
  int graded = 0;
  for (const row_data& r : rows) {
    if (r.report.is_null()) continue;
    ++graded;
    for (const auto& u : r.report["units"]) {
      unit_passed[u.value("unit", "")] += u.value("passed", false);
      for (const auto& v : u["vetoes"])
        if (v.value("applies", false)) ++vetoes[u.value("unit", "") + ": " + v.value("id", "")];
      for (const auto& it : u["items"]) {
        tally& t = items[it.value("id", "")];
        const double p = number_or(it, "points"), most = number_or(it, "max_points");
        (p >= most - 1e-9 ? t.full : p > 1e-9 ? t.partial : t.none) += 1;
      }
    }
  }
  // The chart: one bar per item, green full, amber partial, red none.
  const int width = 420, left = 230, bar = 18, gap = 6;
  int n = 0;
  for (const unit& u : m.units) n += static_cast<int>(u.items.size());
  std::string svg = fmt::format(
      "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{}\" height=\"{}\" "
      "font-family=\"sans-serif\" font-size=\"12\">\n"
      "<title>{}: each item, the share of {} students with full, partial and no marks</title>\n",
      left + width + 20, 30 + n * (bar + gap) + 30, xml_text(m.lesson), graded);
  int y = 20;
  for (const unit& u : m.units)
    for (const item& it : u.items) {
      const tally t = items[it.id];
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
  write_replacing(out / "items.svg", svg);

  // Markdown: every name, reason and id as text (markdown_text), never markup.
  const auto md_text = [](std::string_view s) { return markdown_text(s); };
  std::string md = fmt::format("# {}: the class at a glance\n\n", md_text(m.title.in(lang::en)));
  md += fmt::format("{} submissions, {} graded, {} not graded.\n\n", rows.size(), graded,
                    rows.size() - graded);
  md += "| Unit | Passed |\n| --- | --- |\n";
  for (const unit& u : m.units)
    md += fmt::format("| {} | {} of {} |\n", md_text(u.id), unit_passed[u.id], graded);
  md += "\n![Each item: full, partial and no marks](items.svg)\n\n";
  md += "| Item | Full | Partial | None |\n| --- | --- | --- | --- |\n";
  for (const unit& u : m.units)
    for (const item& it : u.items) {
      const tally t = items[it.id];
      md += fmt::format("| {} / {} | {} | {} | {} |\n", md_text(u.id), md_text(it.id), t.full,
                        t.partial, t.none);
    }
  if (!vetoes.empty()) {
    md += "\n| Veto | Students |\n| --- | --- |\n";
    for (const auto& [v, count] : vetoes) md += fmt::format("| {} | {} |\n", md_text(v), count);
  }
  std::string not_graded;
  for (const row_data& r : rows)
    if (r.report.is_null())
      not_graded += fmt::format("- {}: {}\n", md_text(shown_name(r.name)),
                                md_text(r.status.value("error", std::string("no report"))));
  if (!not_graded.empty()) md += "\n## Not graded\n\n" + not_graded;
  write_replacing(out / "summary.md", md);
}

}  // namespace

std::string student_slug(const std::string& name) {
  std::string out;
  for (unsigned char c : name) {
    if (std::isalnum(c) || c == '-' || c == '_' || c == '.' || c == '@' || c == '+')
      out += static_cast<char>(c);
    else
      out += fmt::format("_{:02x}", c);
  }
  if (out.empty() || out == "." || out == "..") out = "_" + out;
  return out.substr(0, 200);
}

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

batch_result run_batch(const course& c, const manifest& m, const batch_options& o,
                       std::ostream& log) {
  if (!fs::is_directory(o.submissions))
    throw cannot_grade(fmt::format("{} is not a folder of submissions", o.submissions.string()));
  {  // marks/ inside submissions/ would be graded as a student, and rewritten as one
    const fs::path subs = fs::weakly_canonical(o.submissions), out = fs::weakly_canonical(o.out);
    const auto [a, b] = std::mismatch(subs.begin(), subs.end(), out.begin(), out.end());
    if (a == subs.end()) throw cannot_grade("--out must be outside the folder of submissions");
    (void)b;
  }
  std::vector<student> all = find_students(m, o.submissions);
  std::vector<student> mine;
  for (size_t i = 0; i < all.size(); ++i)
    if (i % o.shard_count == o.shard_index) mine.push_back(all[i]);
  fs::create_directories(o.out / "students");
  const std::string stamp = stamp_of(o);

  batch_result result;
  std::atomic<size_t> next{0};
  std::mutex mu;
  size_t done = 0;
  const size_t total = mine.size();
  auto worker = [&](unsigned k) {
    const fs::path tree = o.out / ".trees" / fmt::format("worker{}", k);
    for (size_t i; (i = next++) < total;) {
      outcome r;
      try {
        r = mark_one(c, m, o, mine[i], tree, stamp);
      } catch (const std::exception& e) {
        r.line = std::string("not graded: ") + e.what();
      }
      std::lock_guard lock(mu);
      ++done;
      result.graded += r.graded;
      result.kept += r.kept;
      result.not_graded += !r.graded && !r.kept;
      if (o.progress_bar) {
        const int filled = static_cast<int>(30 * done / std::max<size_t>(total, 1));
        log << fmt::format("\r[{}{}] {}/{} {}: {}\033[K", std::string(filled, '#'),
                           std::string(30 - filled, '.'), done, total, shown_name(mine[i].name),
                           one_line(r.line))
            << std::flush;
      } else {
        log << fmt::format("[{}/{}] {}: {}\n", done, total, shown_name(mine[i].name),
                           one_line(r.line))
            << std::flush;
      }
    }
  };
  std::vector<std::thread> threads;
  for (unsigned k = 0; k < std::max(1u, o.jobs); ++k) threads.emplace_back(worker, k);
  for (auto& t : threads) t.join();
  if (o.progress_bar) log << "\n";

  nlohmann::json listed = nlohmann::json::array();
  for (const student& s : mine)
    listed.push_back({{"name", shown_name(s.name)}, {"folder", s.slug}});
  // What this batch marked: a merge takes exactly these, whatever else the folder holds.
  write_class_files(m, o.out,
                    {{"lesson", m.lesson},
                     {"shard", fmt::format("{}/{}", o.shard_index + 1, o.shard_count)},
                     {"options", options_json(o)},
                     {"students", listed}});
  return result;
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

fs::path review_file(const fs::path& out, const std::string& slug) {
  return out / "reviews" / (slug + ".json");
}

nlohmann::json options_json(const batch_options& o) {
  return {{"lang", o.lang}, {"formats", o.formats}, {"mark_args", o.mark_args}};
}

int remark_students(const course& c, const manifest& m, const fs::path& out,
                    const std::set<std::string>& slugs, std::ostream& log) {
  const nlohmann::json b = read_batch_json(out);
  const nlohmann::json opts = b.value("options", nlohmann::json());
  if (!opts.is_object())
    throw cannot_grade(fmt::format(
        "{}/batch.json does not record the batch's options (an older grader wrote it): run "
        "grader batch again into it first",
        out.string()));
  batch_options o;
  o.out = out;
  o.force = true;
  o.lang = opts.value("lang", "en");
  o.formats = opts.value("formats", std::vector<std::string>{});
  o.mark_args = opts.value("mark_args", std::vector<std::string>{});
  const std::string stamp = stamp_of(o);
  int n = 0;
  for (const auto& entry : b["students"]) {
    const std::string slug = entry.value("folder", "");
    if (!slugs.count(slug)) continue;
    const fs::path dir = out / "students" / slug;
    // The files it marked, moved aside (marking replaces the student's folder); they stay
    // there as the report's submission, as an archive's stay in .unpacked/.
    const fs::path copy = out / ".review" / slug;
    fs::remove_all(copy);
    fs::create_directories(copy.parent_path());
    std::error_code ec;
    fs::rename(dir / "graded", copy, ec);
    if (ec) {
      log << fmt::format("{}: no marked files to mark again ({})\n",
                         shown_name(entry.value("name", slug)), (dir / "graded").string());
      continue;
    }
    const student s{entry.value("name", slug), slug, copy, {}, {}};
    const outcome r = mark_unpacked(c, m, o, s, dir, out / ".trees" / "worker0", stamp);
    log << fmt::format("{}: {}\n", shown_name(s.name), one_line(r.line));
    ++n;
  }
  write_class_files(m, out, b);
  return n;
}

}  // namespace grader
