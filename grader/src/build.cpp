// Grading build trees (see build.hpp).
#include "grader/build.hpp"

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <fmt/format.h>

#include <regex>

#include "grader/error.hpp"
#include "grader/files.hpp"
#include "grader/regions.hpp"
#include "grader/subprocess.hpp"

namespace fs = std::filesystem;

namespace grader {
namespace {

std::string first_error_line(const std::string& output) {
  for (std::string_view line : split_lines(output))
    if (line.find("Error") != std::string_view::npos ||
        line.find("error") != std::string_view::npos)
      return std::string(line);
  return output.substr(0, output.find('\n'));
}

}  // namespace

std::string display_path(const fs::path& p) {
  std::error_code ec;
  const fs::path rel = fs::relative(p, fs::current_path(ec), ec);
  if (!ec && !rel.empty() && !rel.string().starts_with("..")) return rel.string();
  return p.string();
}

std::string student_diagnostics(const std::string& output,
                                const std::map<std::string, fs::path>& student_files) {
  std::string shown, fallback;
  bool context = false;
  int fallback_lines = 0;
  for (std::string_view line : split_lines(output)) {
    bool mine = false;
    for (const auto& [name, path] : student_files) {
      const std::string abs = path.string();
      if (line.starts_with(abs + ":")) {
        shown += display_path(path) + std::string(line.substr(abs.size())) + "\n";
        mine = true;
        break;
      }
    }
    if (mine) {
      context = true;
      continue;
    }
    // gcc's source excerpt and caret lines ("   34 |   code", "      |   ^~~") follow
    // the message they belong to.
    static const std::regex excerpt(R"(^\s*\d*\s*\|)");
    if (context && std::regex_search(line.begin(), line.end(), excerpt)) {
      shown += std::string(line) + "\n";
      continue;
    }
    context = false;
    if (fallback_lines < 12 && (line.find("error:") != std::string_view::npos ||
                                line.find("undefined reference") != std::string_view::npos)) {
      fallback += std::string(line) + "\n";
      ++fallback_lines;
    }
  }
  return shown.empty() ? fallback : shown;
}

grading_tree::grading_tree(const course& c, const manifest& m, fs::path dir,
                           std::vector<std::string> cmake_args)
    : course_(c), manifest_(m), dir_(std::move(dir)), cmake_args_(std::move(cmake_args)) {
  std::error_code ec;
  fs::create_directories(dir_ / "submission", ec);
  if (ec)
    throw cannot_grade(
        fmt::format("cannot create the build tree {}: {}", dir_.string(), ec.message()));
  lock_fd_ = open((dir_ / ".grader.lock").c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
  if (lock_fd_ >= 0) flock(lock_fd_, LOCK_EX);
}

grading_tree::~grading_tree() {
  if (lock_fd_ >= 0) close(lock_fd_);  // releases the lock
}

build_outcome grading_tree::build(const std::map<std::string, fs::path>& files,
                                  std::chrono::seconds timeout,
                                  const std::vector<std::string>& extra_targets) {
  const auto start = std::chrono::steady_clock::now();
  if (!on_path("cmake"))
    throw cannot_grade("cmake not found: run .ci/install-deps (or apt-get install cmake)");
  const bool ninja = on_path("ninja");

  // Only the code files are compiled; answers files are graded elsewhere.
  std::map<std::string, fs::path> code;
  for (const exercise& e : manifest_.exercises) {
    if (!e.is_code()) continue;
    if (files.count(e.file)) {
      code[e.file] = files.at(e.file);
    } else if (!fs::exists(dir_ / "submission" / e.file)) {
      // Not graded this time (--unit), but CMake wants every exercise's source.
      write_if_changed(dir_ / "submission" / e.file, "// Not part of this grade.\n");
    }
  }
  for (const auto& [name, path] : code) {
    if (path.string().find('"') != std::string::npos)
      throw cannot_grade(
          fmt::format("cannot compile a file whose path holds a quote: {}", path.string()));
    write_if_changed(
        dir_ / "submission" / name,
        fmt::format(
            "// Written by the grader: compiles the submission's own file.\n#include \"{}\"\n",
            fs::absolute(path).lexically_normal().string()));
  }

  run_options opts;
  opts.timeout = timeout;
  if (!fs::exists(dir_ / "CMakeCache.txt") ||
      !fs::exists(dir_ / (ninja ? "build.ninja" : "Makefile"))) {
    std::vector<std::string> cmd = {"cmake",
                                    "-S",
                                    course_.root.string(),
                                    "-B",
                                    dir_.string(),
                                    "-DCOURSE_GRADING_LESSON=" + manifest_.lesson,
                                    "-DCMAKE_BUILD_TYPE=Release"};
    if (ninja) cmd.insert(cmd.end(), {"-G", "Ninja"});
    cmd.insert(cmd.end(), cmake_args_.begin(), cmake_args_.end());
    const run_result conf = run_process(cmd, opts);
    if (!conf.ok())
      throw cannot_grade(fmt::format("configuring the grading build failed ({}): {}",
                                     conf.describe(), first_error_line(conf.output)));
  }

  std::vector<const exercise*> built;
  for (const exercise& e : manifest_.exercises)
    if (code.count(e.file)) built.push_back(&e);
  auto target_of = [&](const exercise& e) { return manifest_.lesson + "_" + e.id + "_tests"; };

  // One build of everything, going on past failures; then ask ninja which targets
  // are still out of date: those are the ones that failed.
  std::vector<std::string> cmd =
      ninja ? std::vector<std::string>{"ninja", "-C", dir_.string(), "-k", "0"}
            : std::vector<std::string>{"cmake", "--build", dir_.string(), "--target"};
  for (const exercise* e : built) cmd.push_back(target_of(*e));
  cmd.insert(cmd.end(), extra_targets.begin(), extra_targets.end());
  if (!ninja) cmd.insert(cmd.end(), {"--", "-k"});
  const run_result all = run_process(cmd, opts);

  build_outcome out;
  out.output = all.output;
  for (const std::string& t : extra_targets) {
    bool ok = all.ok();
    if (!ok && !all.timed_out && ninja) {
      const run_result dry = run_process({"ninja", "-C", dir_.string(), "-n", t}, opts);
      ok = dry.ok() && dry.output.find("no work to do") != std::string::npos;
    }
    out.extras[t] = ok && fs::exists(dir_ / "bin" / t);
  }
  for (const exercise* e : built) {
    exercise_build& b = out.exercises[e->id];
    b.tests_binary = dir_ / "bin" / target_of(*e);
    bool ok = all.ok();
    if (!ok && !all.timed_out) {
      const run_result dry =
          ninja ? run_process({"ninja", "-C", dir_.string(), "-n", target_of(*e)}, opts)
                : run_process({"cmake", "--build", dir_.string(), "--target", target_of(*e)}, opts);
      ok = dry.ok() && (!ninja || dry.output.find("no work to do") != std::string::npos);
    }
    b.ok = ok && fs::exists(b.tests_binary);
    if (b.ok) continue;
    if (all.timed_out) {
      b.diagnostics = fmt::format("the build {}", all.describe());
      continue;
    }
    const fs::path student = fs::absolute(code.at(e->file)).lexically_normal();
    b.diagnostics = student_diagnostics(all.output, {{e->file, student}});
    // Nothing about the student's own file: a link error, say. Show the error lines.
    if (b.diagnostics.empty() || b.diagnostics.find(display_path(student)) == std::string::npos) {
      const std::string general = student_diagnostics(all.output, {});
      b.diagnostics = general.empty() ? first_error_line(all.output) : general;
    }
  }
  out.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return out;
}

}  // namespace grader
