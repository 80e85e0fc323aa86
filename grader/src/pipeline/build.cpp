// The build stage: grading trees, one build-tool run per target (see build.hpp).
#include "grader/pipeline/build.hpp"

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <fmt/format.h>

#include <algorithm>
#include <regex>

#include "grader/base/error.hpp"
#include "grader/base/files.hpp"
#include "grader/base/sandbox.hpp"
#include "grader/base/subprocess.hpp"

namespace fs = std::filesystem;

namespace grader {
namespace {

// The values of `names` in a configured tree's CMakeCache.txt ("NAME:TYPE=value"), read
// once; a name the cache lacks is left out.
std::vector<std::string> cache_values(const fs::path& cache,
                                      const std::vector<std::string>& names) {
  std::vector<std::string> out;
  std::error_code ec;
  if (!fs::exists(cache, ec)) return out;
  for (std::string_view line : split_lines(read_text(cache)))
    for (const std::string& name : names)
      if (line.starts_with(name + ":") && line.find('=') != std::string_view::npos)
        out.emplace_back(line.substr(line.find('=') + 1));
  return out;
}

std::string first_error_line(const std::string& output) {
  for (std::string_view line : split_lines(output))
    if (line.find("Error") != std::string_view::npos ||
        line.find("error") != std::string_view::npos)
      return std::string(line);
  return output.substr(0, output.find('\n'));
}

// Compiler output shown for one file: enough to fix the first errors, never a flood.
std::string capped(std::string text) {
  constexpr size_t kMaxLines = 60, kMaxBytes = 16 << 10;
  size_t lines = 0, at = 0;
  while (at < text.size() && lines < kMaxLines && at < kMaxBytes) {
    const size_t nl = text.find('\n', at);
    at = nl == std::string::npos ? text.size() : nl + 1;
    ++lines;
  }
  if (at >= text.size()) return text;
  const size_t rest = static_cast<size_t>(std::count(text.begin() + at, text.end(), '\n'));
  text.resize(at);
  return text + fmt::format("... ({} more lines)\n", rest);
}

}  // namespace

bool has_remote_tests(const course& c, const manifest& m, const exercise& e) {
  std::error_code ec;
  return e.is_code() &&
         fs::is_regular_file(c.lesson_dir(m.lesson) / "tests" / ("remote_" + e.id + ".cpp"), ec);
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

grading_tree::grading_tree(const course& c, const manifest& m, fs::path dir, tree_options options)
    : course_(c), manifest_(m), dir_(fs::absolute(dir)), options_(std::move(options)) {
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

bool build_result::built(const std::string& exercise_id) const {
  const auto it = exercises.find(exercise_id);
  return it != exercises.end() && it->second.ok;
}

build_result grading_tree::build(const std::map<std::string, fs::path>& files,
                                 std::chrono::seconds timeout,
                                 const std::vector<std::string>& extra_targets,
                                 const std::vector<std::string>& trusted_targets) {
  const auto start = std::chrono::steady_clock::now();
  // By their full paths: the confined build sees another PATH (build tools in a Python
  // virtual environment, as on the course's GPU machines, are shown to it by show_tools).
  const std::string cmake = find_program("cmake"), ninja_program = find_program("ninja");
  if (cmake.empty())
    throw cannot_grade("cmake not found: run .ci/install-deps (or apt-get install cmake)");
  const bool ninja = !ninja_program.empty();

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
  // The student's files are copied in, never referred to: the compiler (confined or
  // not) reads only the tree, and an unchanged file keeps its time stamp, so a re-grade
  // recompiles only what changed.
  for (const auto& [name, path] : code)
    write_if_changed(dir_ / "submission" / name, read_text(path));

  // Configuring and building the course's own targets get a course-sized limit; the
  // student's --build-timeout starts after them (deadline below).
  run_options opts;
  opts.timeout = std::max<std::chrono::milliseconds>(timeout, std::chrono::minutes(10));
  opts.max_memory = 6ull << 30;  // the whole build: two compilers at once, linkers, ninja
  std::vector<std::string> cmd = {cmake,
                                  "-S",
                                  course_.root.string(),
                                  "-B",
                                  dir_.string(),
                                  "-DCOURSE_GRADING_LESSON=" + manifest_.lesson,
                                  "-DCMAKE_BUILD_TYPE=Release"};
  if (ninja) cmd.insert(cmd.end(), {"-G", "Ninja"});
  if (options_.marking) cmd.push_back("-DCOURSE_MARKING=ON");
  cmd.insert(cmd.end(), options_.cmake_args.begin(), options_.cmake_args.end());
  // The tree remembers what it was configured for (course root, lesson, options): a
  // tree set up for another checkout or lesson is configured afresh, never reused.
  std::string stamp;
  for (const auto& arg : cmd) stamp += arg + "\n";
  // CMake looks for the hidden tests at configure time only (the confined build must
  // never re-configure without them), so a change there re-configures here.
  std::error_code hidden_ec;
  if (options_.marking)
    for (const auto& f : fs::directory_iterator(
             course_.solutions_dir(manifest_.lesson) / "hidden_tests", hidden_ec))
      stamp += "hidden " + f.path().filename().string() + "\n";
  // The folders the lesson's CMake globs (not re-checked on every build in a grading tree).
  for (const char* folder : {"reference", "bench", "checks"}) {
    std::vector<std::string> names;
    std::error_code glob_ec;
    for (const auto& f :
         fs::directory_iterator(course_.lesson_dir(manifest_.lesson) / folder, glob_ec))
      names.push_back(f.path().filename().string());
    std::sort(names.begin(), names.end());
    for (const auto& name : names) stamp += std::string(folder) + " " + name + "\n";
  }
  const fs::path stamp_file = dir_ / "grader-configured-for.txt";
  std::error_code ec;
  const bool same = fs::exists(stamp_file, ec) && read_text(stamp_file) == stamp;
  if (!same) {
    fs::remove(dir_ / "CMakeCache.txt", ec);
    fs::remove_all(dir_ / "CMakeFiles", ec);
    fs::remove(stamp_file, ec);
  }
  if (!same || !fs::exists(dir_ / "CMakeCache.txt") ||
      !fs::exists(dir_ / (ninja ? "build.ninja" : "Makefile"))) {
    const run_result conf = run_process(cmd, opts);
    if (!conf.ok())
      throw cannot_grade(fmt::format("configuring the grading build failed ({}): {}",
                                     conf.describe(), first_error_line(conf.output)));
    write_if_changed(stamp_file, stamp);
  }

  auto deadline = std::chrono::steady_clock::now() + timeout;  // reset after the trusted build
  // One build-tool run for `targets`; its exit status is their verdict.
  // A target built alone always gets a little time, even past the deadline: when
  // one exercise's compile hangs the combined run, the others still get built and
  // judged on their own (the hanging one times out again).
  const auto at_least = std::min<std::chrono::milliseconds>(timeout, std::chrono::seconds(20));
  // Compiles of student code run confined: the course's build inputs read-only, the tree
  // writable, no solutions/, answer keys, hidden tests, $HOME or other students' trees.
  confinement compiler;
  for (const char* p : {"CMakeLists.txt", "cmake", "grader", "lessons"})
    compiler.read_only.push_back(course_.root / p);
  compiler.writable = {dir_};
  compiler.cwd = dir_;
  compiler.file_bytes = 1ull << 30;
  compiler.tmp_bytes = 512ull << 20;
  compiler.open_files = 1024;
  compiler.keep_uid = true;  // restricted, as root: the tree is root's to write
  {  // the build tool, CMake (ninja runs `cmake -E`) and the compilers CMake chose
    std::vector<std::string> tools = {cmake, ninja_program};
    for (std::string& t :
         cache_values(dir_ / "CMakeCache.txt",
                      {"CMAKE_COMMAND", "CMAKE_MAKE_PROGRAM", "CMAKE_C_COMPILER",
                       "CMAKE_CXX_COMPILER", "CMAKE_CUDA_COMPILER", "CMAKE_CUDA_HOST_COMPILER"}))
      tools.push_back(std::move(t));
    std::vector<fs::path> hidden = {course_.root};
    if (const char* home = std::getenv("HOME"); home && *home) hidden.emplace_back(home);
    const tool_view view = show_tools(tools, hidden);
    compiler.read_only.insert(compiler.read_only.end(), view.folders.begin(), view.folders.end());
    compiler.env.push_back("PATH=" + view.path);
  }
  auto build_targets = [&](const std::vector<std::string>& targets) {
    const auto left = std::max(std::chrono::duration_cast<std::chrono::milliseconds>(
                                   deadline - std::chrono::steady_clock::now()),
                               targets.size() == 1 ? at_least : std::chrono::milliseconds(0));
    if (left.count() <= 0) {
      run_result late;
      late.timed_out = true;
      return late;
    }
    run_options o = opts;
    o.timeout = left;
    o.inherit_env = false;   // the compiler can print what it reads (/proc/self/environ)
    o.max_processes = 1024;  // ninja, compiler drivers, cc1plus, as, ld: far fewer
    std::vector<std::string> cmd =
        ninja ? std::vector<std::string>{ninja_program, "-C", dir_.string(), "-k", "0"}
              : std::vector<std::string>{cmake, "--build", dir_.string(), "--target"};
    cmd.insert(cmd.end(), targets.begin(), targets.end());
    if (!ninja) cmd.insert(cmd.end(), {"--", "-k"});
    if (options_.confinement != isolation::none) {
      std::optional<scratch_folder> tmp;  // grader-confine's; bubblewrap's is a tmpfs
      if (options_.confinement == isolation::restricted) compiler.tmp = tmp.emplace().path();
      std::vector<std::string> boxed = confine_command(options_.confinement, compiler);
      boxed.insert(boxed.end(), cmd.begin(), cmd.end());
      return run_process(boxed, o);
    }
    return run_process(cmd, o);
  };

  // Everything that is not student code (references, tests, the emulator; in marking
  // mode the judges with the hidden tests, which the sandbox would hide) is built first,
  // unconfined and with a course-sized time limit: the student's --build-timeout then
  // measures the student's own compiles, even in a cold tree on a busy machine.
  auto remote = [&](const exercise& e) {
    return options_.marking && has_remote_tests(course_, manifest_, e);
  };
  auto target_of = [&](const exercise& e) {
    return manifest_.lesson + "_" + e.id + (remote(e) ? "_compute" : "_tests");
  };
  std::map<std::string, bool> trusted_built;
  {
    std::vector<std::string> cmd =
        ninja ? std::vector<std::string>{ninja_program, "-C", dir_.string()}
              : std::vector<std::string>{cmake, "--build", dir_.string(), "--target"};
    cmd.push_back(manifest_.lesson + "_trusted");
    const run_result r = run_process(cmd, opts);
    if (!r.ok())
      throw cannot_grade(fmt::format("the course's own tests do not build ({}): {}", r.describe(),
                                     first_error_line(r.output)));
    for (const std::string& t : trusted_targets) {
      std::vector<std::string> one(cmd.begin(), cmd.end() - 1);
      one.push_back(t);
      trusted_built[t] = run_process(one, opts).ok() && fs::exists(dir_ / "bin" / t);
    }
    deadline = std::chrono::steady_clock::now() + timeout;
  }

  // All targets in one run first; only when it fails, one run per target, whose exit
  // status alone is that target's verdict (never the tool's chatter).
  std::vector<std::string> targets;
  for (const exercise& e : manifest_.exercises)
    if (code.count(e.file)) targets.push_back(target_of(e));
  const bool all_built = !targets.empty() && build_targets(targets).ok();

  build_result out;
  for (const exercise& e : manifest_.exercises) {
    if (!code.count(e.file)) continue;
    const std::string target = target_of(e);
    exercise_build& b = out.exercises[e.id];
    b.exercise = e.id;
    b.file = e.file;
    b.tests_binary = dir_ / "bin" / (manifest_.lesson + "_" + e.id + "_tests");
    if (remote(e)) {
      b.tests_binary = dir_ / "bin" / (manifest_.lesson + "_" + e.id + "_judge");
      b.compute_binary = dir_ / "bin" / target;
    }
    const fs::path product = dir_ / "bin" / target;
    if (all_built && fs::exists(product)) {
      b.ok = true;
      continue;
    }
    const run_result r = build_targets({target});
    b.ok = r.ok() && fs::exists(product);
    if (b.ok) continue;
    if (r.timed_out) {
      b.timed_out = true;
      b.diagnostics = fmt::format("the build {}", r.describe());
      continue;
    }
    if (r.output_exceeded || r.memory_exceeded || r.processes_exceeded) {
      b.diagnostics = fmt::format("the compiler stopped at a limit ({})", r.describe());
      continue;
    }
    // The compiler saw the copy in the tree; the student is shown their own file's name.
    const fs::path compiled = dir_ / "submission" / e.file;
    const fs::path student = fs::absolute(code.at(e.file)).lexically_normal();
    b.diagnostics = student_diagnostics(r.output, {{e.file, compiled}});
    // Nothing about the student's own file: a link error, say. Show the error lines.
    if (b.diagnostics.empty() || b.diagnostics.find(display_path(compiled)) == std::string::npos) {
      const std::string general = student_diagnostics(r.output, {});
      b.diagnostics = general.empty() ? first_error_line(r.output) : general;
    }
    b.diagnostics = capped(replaced(b.diagnostics, display_path(compiled), display_path(student)));
  }
  for (const std::string& t : extra_targets)
    out.extras[t] = build_targets({t}).ok() && fs::exists(dir_ / "bin" / t);
  for (const auto& [t, ok] : trusted_built) out.extras[t] = ok;
  if (fs::exists(dir_ / "sanitizers.txt")) {
    const std::string said = read_text(dir_ / "sanitizers.txt");
    out.sanitizers = said.substr(0, said.find('\n'));
  }
  out.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return out;
}

}  // namespace grader
