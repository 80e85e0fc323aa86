// grader dev release (see release.hpp): the student release of one lesson.
//   grader dev release lesson13 --out ../student
#include "grader/commands/release.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <vector>

#include "grader/base/error.hpp"
#include "grader/base/files.hpp"
#include "grader/base/subprocess.hpp"
#include "grader/lesson/answers.hpp"

namespace fs = std::filesystem;
using nlohmann::json;

namespace grader {
namespace {

constexpr std::string_view release_templates = "docs/release/";
constexpr std::string_view github_templates = "docs/release/.github";
constexpr std::string_view block_start = "<!-- instructor-only -->";
constexpr std::string_view block_end = "<!-- end instructor-only -->";
constexpr std::string_view release_kind = "student";

// hint levels: see manifest_for_release
json release_manifest_json(const json& manifest) {
  try {
    return manifest_for_release(manifest);
  } catch (const input_error& e) {
    throw cannot_grade(e.what());
  }
}

// Top-level dot-entries a student needs (CI scripts, the style, the ignore list); every
// other dot-entry (.git, .cache, editor folders) and build/ stay behind.
bool skipped_name(const std::string& name, bool top) {
  if (top && name == "build") return true;
  if (!name.starts_with(".")) return false;
  return !(top && (name == ".ci" || name == ".clang-format" || name == ".gitignore"));
}

bool skipped_path(std::string_view path) {
  // The release's own .github/ (the student repository's workflow) is a template.
  if (path.starts_with(github_templates) &&
      (path.size() == github_templates.size() || path[github_templates.size()] == '/'))
    return false;
  bool top = true;
  for (size_t start = 0; start < path.size();) {
    const size_t slash = path.find('/', start);
    const std::string part(
        path.substr(start, slash == std::string_view::npos ? slash : slash - start));
    if (skipped_name(part, top)) return true;
    if (slash == std::string_view::npos) break;
    start = slash + 1;
    top = false;
  }
  return false;
}

std::string git_output(const fs::path& root, std::vector<std::string> args, bool* ok) {
  std::vector<std::string> argv = {"git", "-C", root.string()};
  argv.insert(argv.end(), args.begin(), args.end());
  run_options o;
  o.timeout = std::chrono::seconds(60);
  const run_result r = on_path("git") ? run_process(argv, o) : run_result{};
  *ok = r.ok();
  return r.ok() ? r.output : std::string();
}

}  // namespace

std::vector<std::string> course_files(const fs::path& root, bool* from_git) {
  std::set<std::string> out;
  bool ok = false;
  const std::string listed =
      git_output(root, {"ls-files", "-z", "--cached", "--others", "--exclude-standard"}, &ok);
  *from_git = ok;
  if (ok) {
    for (size_t start = 0; start < listed.size();) {
      size_t end = listed.find('\0', start);
      if (end == std::string::npos) end = listed.size();
      const std::string path = listed.substr(start, end - start);
      start = end + 1;
      std::error_code ec;
      // Deleted but still in the index: not part of the course any more.
      if (!path.empty() && !skipped_path(path) && fs::exists(fs::symlink_status(root / path, ec)))
        out.insert(path);
    }
    return {out.begin(), out.end()};
  }
  for (auto it = fs::recursive_directory_iterator(root); it != fs::recursive_directory_iterator();
       ++it) {
    const std::string path = fs::relative(it->path(), root).generic_string();
    if (skipped_path(path)) {
      if (it->is_directory() && !it->is_symlink()) it.disable_recursion_pending();
      continue;
    }
    if (it->is_regular_file() || it->is_symlink()) out.insert(path);
  }
  return {out.begin(), out.end()};
}

namespace {

bool under(std::string_view path, std::string_view folder) {
  return path.starts_with(folder) &&
         (path.size() == folder.size() || folder.ends_with("/") || path[folder.size()] == '/');
}

// True when a kept line opens a solution region, as `grader dev sync` reads one: a
// release must hold no completed code.
bool opens_solution(std::string_view line) {
  std::string_view t = trim_ascii(line);
  if (!t.starts_with("//")) return false;
  return trim_ascii(t.substr(2)).starts_with("BEGIN SOLUTION");
}

// The relative links of a Markdown text: (line, target without its #anchor).
std::vector<std::pair<int, std::string>> relative_links(std::string_view text) {
  std::vector<std::pair<int, std::string>> out;
  int n = 0;
  for (std::string_view line : split_lines(text)) {
    ++n;
    for (size_t at = line.find("]("); at != std::string_view::npos; at = line.find("](", at + 2)) {
      const size_t end = line.find(')', at + 2);
      if (end == std::string_view::npos) break;
      std::string target(trim_ascii(line.substr(at + 2, end - at - 2)));
      if (const size_t space = target.find(' '); space != std::string::npos)
        target.resize(space);  // [a](file "title")
      if (const size_t hash = target.find('#'); hash != std::string::npos) target.resize(hash);
      if (target.empty() || target.find("://") != std::string::npos ||
          target.starts_with("mailto:") || target.starts_with("/"))
        continue;
      out.emplace_back(n, target);
    }
  }
  return out;
}

bool is_text(const std::string& bytes) {
  return bytes.find('\0') == std::string::npos;
}

// What goes into the release: its path -> the content, or the course file it copies.
struct planned_file {
  std::string content;
  fs::path copy_of;  // empty: write `content`
};

// Why `out` may not receive a release, or "".
std::string refuse_out(const fs::path& root, const fs::path& out) {
  const fs::path r = fs::weakly_canonical(root), o = fs::weakly_canonical(out);
  auto inside = [](const fs::path& p, const fs::path& dir) {
    const auto rel = p.lexically_relative(dir);
    return !rel.empty() && *rel.begin() != "..";
  };
  if (inside(o, r))
    return fmt::format("--out {} is inside the course ({}): choose a folder outside it",
                       out.string(), r.string());
  if (inside(r, o))
    return fmt::format("--out {} holds the course ({}): choose a folder outside it", out.string(),
                       r.string());
  std::error_code ec;
  if (!fs::exists(o, ec)) return {};
  if (!fs::is_directory(o, ec)) return fmt::format("--out {} is not a folder", out.string());
  bool empty = true;
  for (const auto& e : fs::directory_iterator(o, ec)) empty &= e.path().filename() == ".git";
  if (empty) return {};
  const fs::path stamp = o / "RELEASE.json";
  const json j =
      fs::is_regular_file(stamp, ec) ? json::parse(read_text(stamp), nullptr, false) : json();
  if (!j.is_object() || j.value("release", "") != release_kind)
    return fmt::format(
        "--out {} is not empty and holds no earlier student release (RELEASE.json): "
        "its files are not replaced",
        out.string());
  return {};
}

}  // namespace

std::string left_out_of_release(std::string_view path, const std::string& lesson) {
  const std::string_view name = path.substr(path.rfind('/') + 1);
  if (under(path, "solutions"))
    return "solutions/ (completed files, answer keys, mutants, instructor notes, hidden tests)";
  if (under(path, "grader/tests") || under(path, "grader/bench"))
    return "grader/tests/ and grader/bench/ (the grader's own tests: they quote the answers)";
  // The reader's tests hold the misconceptions the exam vetoes, phrased as students do.
  if (under(path, "grader/reader/tests"))
    return "grader/reader/tests/ (the free-text reader's tests: they quote the key's claims)";
  // The emulator's benchmark is a complete tiled matmul, lab 2's answer.
  if (under(path, "grader/emulator/tests") || under(path, "grader/emulator/bench"))
    return "grader/emulator/tests/ and bench/ (the emulator's own: a tiled matmul among them)";
  if (name.starts_with("answer_key") && name.ends_with(".json"))
    return "answer keys (and their schema)";
  if (under(path, release_templates.substr(0, release_templates.size() - 1)))
    return "docs/release/ (the templates, written in place)";
  for (std::string_view folder : {"lessons/", "exercises/"})
    if (path.starts_with(folder) && !under(path.substr(folder.size()), lesson))
      return "other lessons";
  if (path == "RELEASE.json") return "an earlier release's RELEASE.json";
  return {};
}

std::string release_template_target(std::string_view path) {
  if (!path.starts_with(release_templates)) return {};
  const std::string rest(path.substr(release_templates.size()));
  const size_t at = rest.rfind(".student.");
  if (at == std::string::npos || rest.find('/', at) != std::string::npos) return {};
  return rest.substr(0, at) + rest.substr(at + std::string_view(".student").size());
}

std::string strip_instructor_blocks(std::string_view markdown, const std::string& file,
                                    int* dropped) {
  std::string out;
  int n = 0, open_at = 0, blocks = 0;
  for (size_t start = 0; start < markdown.size();) {
    size_t end = markdown.find('\n', start);
    end = end == std::string_view::npos ? markdown.size() : end + 1;
    const std::string_view line = markdown.substr(start, end - start);
    start = end;
    ++n;
    const std::string_view t = trim_ascii(line);
    if (t == block_start) {
      if (open_at)
        throw input_error(fmt::format("{}:{}: {} inside the block opened at line {}", file, n,
                                      block_start, open_at));
      open_at = n;
    } else if (t == block_end) {
      if (!open_at)
        throw input_error(fmt::format("{}:{}: {} without {}", file, n, block_end, block_start));
      open_at = 0;
      ++blocks;
    } else if (!open_at) {
      out += line;
    }
  }
  if (open_at)
    throw input_error(fmt::format("{}:{}: {} is never closed", file, open_at, block_start));
  if (dropped) *dropped = blocks;
  return out;
}

namespace {

// What a release holds, before anything is written: path -> content or copy, and what
// its log tells.
struct release_plan {
  std::map<std::string, planned_file> files;
  std::map<std::string, int> left_out;           // reason -> files
  std::vector<std::string> templated, stripped;  // paths, for the log
  bool from_git = false;
};

// The course's files that go into `m`'s release, with docs/release/'s templates in the
// place of the files they replace, and the manifest without the hint levels students may
// not see yet.
release_plan plan_release(const course& c, const manifest& m) {
  release_plan plan;
  for (const std::string& path : course_files(c.root, &plan.from_git)) {
    if (const std::string target = release_template_target(path); !target.empty()) {
      if (left_out_of_release(target, m.lesson).empty()) {
        plan.files[target] = {read_text(c.root / path), {}};
        plan.templated.push_back(target);
      }
      continue;
    }
    if (const std::string why = left_out_of_release(path, m.lesson); !why.empty()) {
      ++plan.left_out[why];
      continue;
    }
    if (!plan.files.count(path)) plan.files[path] = {{}, c.root / path};
  }
  const std::string manifest_path = fmt::format("lessons/{}/manifest.json", m.lesson);
  if (plan.files.count(manifest_path)) {
    const json j = json::parse(read_text(c.root / manifest_path));
    const json kept = release_manifest_json(j);
    if (kept != j) plan.files[manifest_path] = {kept.dump(2) + "\n", {}};
  }
  return plan;
}

// The questions' forms (ids, items, types, units: no answers), for the completeness check.
json answer_forms(const course& c, const manifest& m) {
  json forms = json::object();
  for (const exercise& e : m.exercises)
    if (e.kind == "answers")
      forms[e.id] = to_json(form_of(load_answer_key(c.solutions_dir(m.lesson) / e.key)));
  return forms;
}

// Markdown file `path` without its instructor-only blocks (noted in `stripped`), and its
// links to what the release leaves out (added to `problems`).
void vet_markdown(const std::string& path, planned_file& f, const std::string& lesson,
                  std::vector<std::string>& stripped, std::vector<std::string>& problems) {
  int dropped = 0;
  try {
    std::string kept = strip_instructor_blocks(f.content, path, &dropped);
    if (dropped) {
      f.content = std::move(kept);
      f.copy_of.clear();
      stripped.push_back(fmt::format("{} ({})", path, dropped));
    }
  } catch (const input_error& e) {
    throw cannot_grade(e.what());
  }
  const fs::path dir = fs::path(path).parent_path();
  for (const auto& [line, target] : relative_links(f.content)) {
    const std::string to = (dir / target).lexically_normal().generic_string();
    if (!to.starts_with("..") && !left_out_of_release(to, lesson).empty())
      problems.push_back(
          fmt::format("{}:{} links to {}, which the release leaves out", path, line, to));
  }
}

// Markdown loses its instructor-only blocks; then nothing kept may link to what is left
// out, or hold a solution region. Throws cannot_grade naming the first such place.
void vet_release(release_plan& plan, const std::string& lesson) {
  std::vector<std::string> problems;
  for (auto& [path, f] : plan.files) {
    const bool markdown = path.ends_with(".md");
    std::error_code ec;
    if (!f.copy_of.empty() && fs::is_symlink(f.copy_of, ec)) continue;  // copied as a link
    if (!f.copy_of.empty() && (markdown || fs::file_size(f.copy_of) < (4u << 20))) {
      const std::string bytes = read_text(f.copy_of);
      if (!is_text(bytes)) continue;
      f.content = bytes;
    }
    if (markdown) vet_markdown(path, f, lesson, plan.stripped, problems);
    int n = 0;
    for (std::string_view line : split_lines(f.content)) {
      ++n;
      if (opens_solution(line))
        problems.push_back(fmt::format("{}:{} opens a solution region", path, n));
    }
    if (!f.copy_of.empty()) f.content.clear();  // copied, not written
  }
  if (!problems.empty())
    throw cannot_grade(fmt::format(
        "the release would leak instructor material: {}{} (add a template under docs/release/, "
        "or wrap it in {} ... {})",
        problems.front(),
        problems.size() > 1 ? fmt::format(" and {} more", problems.size() - 1) : "", block_start,
        block_end));
}

// The commit a release is made from ("" outside git) and whether the tree differs from it.
struct release_source {
  std::string commit;
  bool modified = false;
};

release_source source_of(const fs::path& root) {
  bool ok = false;
  release_source s;
  s.commit = trim_ascii(git_output(root, {"rev-parse", "HEAD"}, &ok));
  s.modified = ok && !trim_ascii(git_output(root, {"status", "--porcelain"}, &ok)).empty();
  return s;
}

// RELEASE.json: tells the grader it runs in a release, and what of.
std::string release_stamp(const manifest& m, const release_source& source, const json& forms) {
  const nlohmann::ordered_json stamp = {
      {"schema", 1},
      {"release", release_kind},
      {"lesson", m.lesson},
      {"source_commit", source.commit.empty() ? json(nullptr) : json(source.commit)},
      {"source_modified", source.modified},
      {"note",
       "The course as students get it: no solutions, answer keys or instructor notes. The "
       "questions are checked here for completeness and graded at submission."},
      {"answer_forms", nlohmann::ordered_json::parse(forms.dump())}};
  return stamp.dump(2) + "\n";
}

// Only now is anything replaced: an earlier release's files go, its .git stays.
void write_release(const std::map<std::string, planned_file>& files, const fs::path& out) {
  std::error_code ec;
  fs::create_directories(out, ec);
  if (ec) throw cannot_grade(fmt::format("cannot create {}: {}", out.string(), ec.message()));
  for (const auto& e : fs::directory_iterator(out))
    if (e.path().filename() != ".git") fs::remove_all(e.path());
  for (const auto& [path, f] : files) {
    const fs::path to = out / path;
    fs::create_directories(to.parent_path());
    if (f.copy_of.empty()) {
      write_if_changed(to, f.content);
    } else if (fs::is_symlink(f.copy_of)) {
      fs::copy_symlink(f.copy_of, to);
    } else {
      fs::copy_file(f.copy_of, to, fs::copy_options::overwrite_existing);
      fs::permissions(to, fs::status(f.copy_of).permissions());
    }
  }
}

void log_release(const release_plan& plan, const release_source& source, const manifest& m,
                 const fs::path& out, std::ostream& log) {
  log << fmt::format(
      "student release of {} written to {}: {} files ({}{})\n", m.lesson, out.string(),
      plan.files.size(),
      source.commit.empty() ? "no git commit" : "from commit " + source.commit.substr(0, 12),
      source.modified ? ", with uncommitted changes" : "");
  if (!plan.from_git)
    log << "  (not a git checkout: every file of the tree but build/ and dot-folders)\n";
  for (const auto& [why, n] : plan.left_out)
    log << fmt::format("  left out: {}: {} file{}\n", why, n, n == 1 ? "" : "s");
  for (const auto& t : plan.templated) log << fmt::format("  from docs/release/: {}\n", t);
  for (const auto& s : plan.stripped)
    log << fmt::format("  instructor-only blocks dropped: {}\n", s);
}

}  // namespace

void dev_release(const course& c, const manifest& m, const fs::path& out, std::ostream& log) {
  if (c.is_student_release())
    throw cannot_grade(
        fmt::format("{} is itself a student release: release from the "
                    "instructor's tree",
                    c.root.string()));
  if (const std::string why = refuse_out(c.root, out); !why.empty()) throw cannot_grade(why);
  release_plan plan = plan_release(c, m);
  const json forms = answer_forms(c, m);
  vet_release(plan, m.lesson);
  const release_source source = source_of(c.root);
  plan.files["RELEASE.json"] = {release_stamp(m, source, forms), {}};
  write_release(plan.files, out);
  log_release(plan, source, m, out, log);
}

}  // namespace grader
