// `grader batch`: marks a class, one `grader mark` process per student (see batch.hpp):
// the submissions found and unpacked, each marked or kept, a review's re-mark. The class
// files it then writes are batch_class.cpp's.
#include "grader/commands/batch.hpp"

#include <fmt/format.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
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

// Where the workers' grading trees are.
fs::path trees_of(const batch_options& o) {
  return o.trees.empty() ? o.out / ".trees" : o.trees;
}

// The options a re-mark after a review repeats (remark_students reads them back).
nlohmann::json options_json(const batch_options& o) {
  return {{"lang", o.lang}, {"formats", o.formats}, {"mark_args", o.mark_args}};
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

std::string shown_name(const std::string& raw) {
  return terminal_text(printable_name(raw));
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
    const fs::path tree = trees_of(o) / fmt::format("worker{}", k);
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

fs::path review_file(const fs::path& out, const std::string& slug) {
  return out / "reviews" / (slug + ".json");
}

int remark_students(const course& c, const manifest& m, const fs::path& out,
                    const std::set<std::string>& slugs, std::ostream& log, const fs::path& trees) {
  const nlohmann::json b = read_batch_json(out);
  const nlohmann::json opts = b.value("options", nlohmann::json());
  if (!opts.is_object())
    throw cannot_grade(fmt::format(
        "{}/batch.json does not record the batch's options (an older grader wrote it): run "
        "grader batch again into it first",
        out.string()));
  batch_options o;
  o.out = out;
  o.trees = trees;
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
    const outcome r = mark_unpacked(c, m, o, s, dir, trees_of(o) / "worker0", stamp);
    log << fmt::format("{}: {}\n", shown_name(s.name), one_line(r.line));
    ++n;
  }
  write_class_files(m, out, b);
  return n;
}

}  // namespace grader
