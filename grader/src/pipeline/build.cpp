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
  // Named: a temporary inside a range-for's initializer dies before the loop (before C++23),
  // and these lines are views into it (the SIGSEGV of --gpu on lab 4, found by ASan).
  const std::string text = read_text(cache);
  for (std::string_view line : split_lines(text))
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

// The build tools, by their full paths: the confined build sees another PATH (build
// tools in a Python virtual environment, as on the course's GPU machines, are shown to
// it by show_tools).
struct build_tools {
  std::string cmake, ninja;  // ninja "" where there is none: CMake's Makefiles then

  static build_tools found() {
    build_tools t{find_program("cmake"), find_program("ninja")};
    if (t.cmake.empty())
      throw cannot_grade("cmake not found: run .ci/install-deps (or apt-get install cmake)");
    return t;
  }
  bool has_ninja() const { return !ninja.empty(); }

  // One build-tool run for `targets`; keep_going: past the first failure (-k).
  std::vector<std::string> command(const fs::path& dir, const std::vector<std::string>& targets,
                                   bool keep_going) const {
    std::vector<std::string> cmd =
        has_ninja() ? std::vector<std::string>{ninja, "-C", dir.string()}
                    : std::vector<std::string>{cmake, "--build", dir.string(), "--target"};
    if (keep_going && has_ninja()) cmd.insert(cmd.end(), {"-k", "0"});
    cmd.insert(cmd.end(), targets.begin(), targets.end());
    if (keep_going && !has_ninja()) cmd.insert(cmd.end(), {"--", "-k"});
    return cmd;
  }
};

// The code files of `files` (answers files are graded elsewhere), copied into the tree:
// the compiler (confined or not) reads only the tree, and an unchanged file keeps its
// time stamp, so a re-grade recompiles only what changed.
std::map<std::string, fs::path> copy_code(const manifest& m,
                                          const std::map<std::string, fs::path>& files,
                                          const fs::path& dir) {
  std::map<std::string, fs::path> code;
  for (const exercise& e : m.exercises) {
    if (!e.is_code()) continue;
    if (files.count(e.file)) {
      code[e.file] = files.at(e.file);
    } else if (!fs::exists(dir / "submission" / e.file)) {
      // Not graded this time (--unit), but CMake wants every exercise's source.
      write_if_changed(dir / "submission" / e.file, "// Not part of this grade.\n");
    }
  }
  for (const auto& [name, path] : code)
    write_if_changed(dir / "submission" / name, read_text(path));
  return code;
}

// What a tree is configured for: the configure command, the hidden tests (CMake looks
// for them at configure time only, and the confined build must never re-configure
// without them) and the folders the lesson's CMake globs (not re-checked on every build
// in a grading tree). A tree set up for another checkout, lesson or set of files is
// configured afresh, never reused.
std::string configure_stamp(const std::vector<std::string>& cmd, const course& c, const manifest& m,
                            const tree_options& options) {
  std::string stamp;
  for (const auto& arg : cmd) stamp += arg + "\n";
  std::error_code hidden_ec;
  if (options.marking)
    for (const auto& f :
         fs::directory_iterator(c.solutions_dir(m.lesson) / "hidden_tests", hidden_ec))
      stamp += "hidden " + f.path().filename().string() + "\n";
  for (const char* folder : {"reference", "bench", "checks", "tests"}) {
    std::vector<std::string> names;
    std::error_code glob_ec;
    for (const auto& f : fs::directory_iterator(c.lesson_dir(m.lesson) / folder, glob_ec))
      names.push_back(f.path().filename().string());
    std::sort(names.begin(), names.end());
    for (const auto& name : names) stamp += std::string(folder) + " " + name + "\n";
  }
  return stamp;
}

// Compiles of student code run confined: the course's build inputs read-only, the tree
// writable, no solutions/, answer keys, hidden tests, $HOME or other students' trees.
// Shown to it: the build tool, CMake (ninja runs `cmake -E`) and the compilers CMake
// chose (read from the configured tree's cache).
confinement compiler_confinement(const course& c, const fs::path& dir, const build_tools& tools) {
  confinement compiler;
  for (const char* p : {"CMakeLists.txt", "cmake", "grader", "lessons"})
    compiler.read_only.push_back(c.root / p);
  compiler.writable = {dir};
  compiler.cwd = dir;
  compiler.file_bytes = 1ull << 30;
  compiler.tmp_bytes = 512ull << 20;
  compiler.open_files = 1024;
  compiler.keep_uid = true;  // as root: the tree is root's to write
  std::vector<std::string> shown = {tools.cmake, tools.ninja};
  for (std::string& t :
       cache_values(dir / "CMakeCache.txt",
                    {"CMAKE_COMMAND", "CMAKE_MAKE_PROGRAM", "CMAKE_C_COMPILER",
                     "CMAKE_CXX_COMPILER", "CMAKE_CUDA_COMPILER", "CMAKE_CUDA_HOST_COMPILER"}))
    shown.push_back(std::move(t));
  std::vector<fs::path> hidden = {c.root};
  if (const char* home = std::getenv("HOME"); home && *home) hidden.emplace_back(home);
  const tool_view view = show_tools(shown, hidden);
  compiler.read_only.insert(compiler.read_only.end(), view.folders.begin(), view.folders.end());
  compiler.env.push_back("PATH=" + view.path);
  return compiler;
}

// Why a target did not build, for its exercise: the time or limit it ran into, or the
// compiler's lines about the student's file (the compiler saw the copy in the tree; the
// student is shown their own file's name).
void explain_failure(exercise_build& b, const run_result& r, const fs::path& compiled,
                     const fs::path& student) {
  if (r.timed_out) {
    b.timed_out = true;
    b.diagnostics = fmt::format("the build {}", r.describe());
    return;
  }
  if (r.output_exceeded || r.memory_exceeded || r.processes_exceeded) {
    b.diagnostics = fmt::format("the compiler stopped at a limit ({})", r.describe());
    return;
  }
  b.diagnostics = student_diagnostics(r.output, {{b.file, compiled}});
  // Nothing about the student's own file: a link error, say. Show the error lines.
  if (b.diagnostics.empty() || b.diagnostics.find(display_path(compiled)) == std::string::npos) {
    const std::string general = student_diagnostics(r.output, {});
    b.diagnostics = general.empty() ? first_error_line(r.output) : general;
  }
  b.diagnostics = capped(replaced(b.diagnostics, display_path(compiled), display_path(student)));
}

// One grading_tree::build: the tools, limits and deadline its build-tool runs share.
class tree_build {
 public:
  tree_build(const course& c, const manifest& m, const fs::path& dir, const tree_options& options,
             std::chrono::seconds timeout)
      : c_(c),
        m_(m),
        dir_(dir),
        options_(options),
        tools_(build_tools::found()),
        timeout_(timeout) {
    // Configuring and building the course's own targets get a course-sized limit; the
    // student's --build-timeout starts after them (deadline_).
    course_limits_.timeout = std::max<std::chrono::milliseconds>(timeout, std::chrono::minutes(10));
    // The whole build: two compilers at once, linkers, ninja.
    course_limits_.max_memory = 6ull << 30;
  }

  // Configures the tree unless it is already configured for this very command.
  void configure() {
    std::vector<std::string> cmd = {tools_.cmake,
                                    "-S",
                                    c_.root.string(),
                                    "-B",
                                    dir_.string(),
                                    "-DCOURSE_GRADING_LESSON=" + m_.lesson,
                                    "-DCMAKE_BUILD_TYPE=Release"};
    if (tools_.has_ninja()) cmd.insert(cmd.end(), {"-G", "Ninja"});
    if (options_.marking) cmd.push_back("-DCOURSE_MARKING=ON");
    cmd.insert(cmd.end(), options_.cmake_args.begin(), options_.cmake_args.end());
    const std::string stamp = configure_stamp(cmd, c_, m_, options_);
    const fs::path stamp_file = dir_ / "grader-configured-for.txt";
    std::error_code ec;
    const bool same = fs::exists(stamp_file, ec) && read_text(stamp_file) == stamp;
    if (!same) {
      fs::remove(dir_ / "CMakeCache.txt", ec);
      fs::remove_all(dir_ / "CMakeFiles", ec);
      fs::remove(stamp_file, ec);
    }
    if (same && fs::exists(dir_ / "CMakeCache.txt") &&
        fs::exists(dir_ / (tools_.has_ninja() ? "build.ninja" : "Makefile")))
      return;
    const run_result conf = run_process(cmd, course_limits_);
    if (!conf.ok())
      throw cannot_grade(fmt::format("configuring the grading build failed ({}): {}",
                                     conf.describe(), first_error_line(conf.output)));
    write_if_changed(stamp_file, stamp);
  }

  void confine_compiler() { compiler_ = compiler_confinement(c_, dir_, tools_); }

  // Everything that is not student code (references, tests, the emulator; in marking
  // mode the judges with the hidden tests, which the sandbox would hide) is built first,
  // unconfined and with a course-sized time limit: the student's --build-timeout then
  // measures the student's own compiles, even in a cold tree on a busy machine.
  // Returns whether each of `trusted_targets` built.
  std::map<std::string, bool> build_trusted(const std::vector<std::string>& trusted_targets) {
    const run_result r =
        run_process(tools_.command(dir_, {m_.lesson + "_trusted"}, false), course_limits_);
    if (!r.ok())
      throw cannot_grade(fmt::format("the course's own tests do not build ({}): {}", r.describe(),
                                     first_error_line(r.output)));
    std::map<std::string, bool> built;
    for (const std::string& t : trusted_targets)
      built[t] = run_process(tools_.command(dir_, {t}, false), course_limits_).ok() &&
                 fs::exists(dir_ / "bin" / t);
    deadline_ = std::chrono::steady_clock::now() + timeout_;
    return built;
  }

  // One build-tool run for `targets` of student code, confined; its exit status is their
  // verdict. A target built alone always gets a little time, even past the deadline:
  // when one exercise's compile hangs the combined run, the others still get built and
  // judged on their own (the hanging one times out again).
  run_result build_student(const std::vector<std::string>& targets) {
    const auto at_least = std::min<std::chrono::milliseconds>(timeout_, std::chrono::seconds(20));
    const auto left = std::max(std::chrono::duration_cast<std::chrono::milliseconds>(
                                   deadline_ - std::chrono::steady_clock::now()),
                               targets.size() == 1 ? at_least : std::chrono::milliseconds(0));
    if (left.count() <= 0) {
      run_result late;
      late.timed_out = true;
      return late;
    }
    run_options o = course_limits_;
    o.timeout = left;
    o.inherit_env = false;   // the compiler can print what it reads (/proc/self/environ)
    o.max_processes = 1024;  // ninja, compiler drivers, cc1plus, as, ld: far fewer
    const std::vector<std::string> cmd = tools_.command(dir_, targets, true);
    if (options_.confinement == isolation::none) return run_process(cmd, o);
    std::optional<scratch_folder> tmp;  // grader-confine's; bubblewrap's is a tmpfs
    if (options_.confinement == isolation::restricted) compiler_.tmp = tmp.emplace().path();
    std::vector<std::string> boxed = confine_command(options_.confinement, compiler_);
    boxed.insert(boxed.end(), cmd.begin(), cmd.end());
    return run_process(boxed, o);
  }

  bool remote(const exercise& e) const { return options_.marking && has_remote_tests(c_, m_, e); }
  std::string target_of(const exercise& e) const {
    return m_.lesson + "_" + e.id + (remote(e) ? "_compute" : "_tests");
  }

  // Exercise `e`'s build: from the combined run when it built there (all_built), else
  // from a run of its target alone, whose exit status alone is its verdict (never the
  // tool's chatter).
  exercise_build exercise_result(const exercise& e, const fs::path& student_file, bool all_built) {
    const std::string target = target_of(e);
    exercise_build b;
    b.exercise = e.id;
    b.file = e.file;
    b.tests_binary = dir_ / "bin" / (m_.lesson + "_" + e.id + "_tests");
    if (remote(e)) {
      b.tests_binary = dir_ / "bin" / (m_.lesson + "_" + e.id + "_judge");
      b.compute_binary = dir_ / "bin" / target;
    }
    const fs::path product = dir_ / "bin" / target;
    if (all_built && fs::exists(product)) {
      b.ok = true;
      return b;
    }
    const run_result r = build_student({target});
    b.ok = r.ok() && fs::exists(product);
    if (!b.ok)
      explain_failure(b, r, dir_ / "submission" / e.file,
                      fs::absolute(student_file).lexically_normal());
    return b;
  }

 private:
  const course& c_;
  const manifest& m_;
  const fs::path& dir_;
  const tree_options& options_;
  const build_tools tools_;
  const std::chrono::seconds timeout_;
  run_options course_limits_;
  confinement compiler_;
  std::chrono::steady_clock::time_point deadline_;  // the student's: set after the trusted build
};

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
  tree_build run(course_, manifest_, dir_, options_, timeout);
  const std::map<std::string, fs::path> code = copy_code(manifest_, files, dir_);
  run.configure();
  run.confine_compiler();
  const std::map<std::string, bool> trusted_built = run.build_trusted(trusted_targets);

  // All targets in one run first; only when it fails, one run per target.
  std::vector<std::string> targets;
  for (const exercise& e : manifest_.exercises)
    if (code.count(e.file)) targets.push_back(run.target_of(e));
  const bool all_built = !targets.empty() && run.build_student(targets).ok();

  build_result out;
  for (const exercise& e : manifest_.exercises)
    if (code.count(e.file))
      out.exercises[e.id] = run.exercise_result(e, code.at(e.file), all_built);
  for (const std::string& t : extra_targets)
    out.extras[t] = run.build_student({t}).ok() && fs::exists(dir_ / "bin" / t);
  for (const auto& [t, ok] : trusted_built) out.extras[t] = ok;
  if (fs::exists(dir_ / "sanitizers.txt")) {
    const std::string said = read_text(dir_ / "sanitizers.txt");
    out.sanitizers = said.substr(0, said.find('\n'));
  }
  out.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return out;
}

}  // namespace grader
