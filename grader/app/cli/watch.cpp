// `grader status <lesson>`: one compact screen of the student's state (a line per unit, each
// exercise's blanks, the next step) from a practice grade. `grader watch <lesson>`: that
// screen, redrawn after every save of an exercise file (inotify on its folder, so editors
// that write a new file and rename it are seen too). Ctrl-C stops watch with exit 0: at
// once while it waits, after the grade in progress while it grades (a second Ctrl-C quits
// at once), so no build tree is left half written.
#include <poll.h>
#include <sys/inotify.h>
#include <unistd.h>

#include <fmt/format.h>

#include <chrono>
#include <csignal>
#include <cstdlib>
#include <ctime>
#include <iostream>
#include <set>

#include "cli.hpp"
#include "grader/base/error.hpp"
#include "grader/base/files.hpp"
#include "grader/base/text.hpp"
#include "grader/pipeline/reporter.hpp"
#include "grader/pipeline/resolve.hpp"

namespace fs = std::filesystem;

namespace grader::cli {

void declare_watch(CLI::App& app, options& o) {
  for (CLI::App** cmd : {&o.status, &o.watch}) {
    const bool watching = cmd == &o.watch;
    *cmd = app.add_subcommand(
        watching ? "watch" : "status",
        watching ? "Re-grade on every save of an exercise file and redraw one screen: each "
                   "unit, each blank's state and the next step (Ctrl-C stops)"
                 : "Each unit's score, each blank's state (empty, right, wrong, waiting) and "
                   "the next step, from a practice grade");
    (*cmd)->add_option("lesson", o.lesson, "The lesson, e.g. lesson13")->required();
    auto* answers = (*cmd)->add_flag("--answers", o.answers,
                                     "The solutions (the instructor's answer branch) instead");
    (*cmd)
        ->add_option("--submission", o.submission,
                     "The folder of exercise files (default: exercises/<lesson>/)")
        ->excludes(answers);
    add_unit_option(**cmd, o);
    add_lang_option(**cmd, o);
    add_seed_option(**cmd, o, "Seed for the tests' inputs (default: fixed per lesson)");
    add_limit_options(**cmd, o);
    add_sandbox_options(**cmd, o, sandbox_use::grade);
    add_root_option(**cmd, o);
    (*cmd)->add_option("--build-dir", o.build_dir,
                       "The grading build tree (default: grade/<lesson> in the grader's build "
                       "folder)");
    (*cmd)->footer(watching ? "Exit code: 0 when stopped with Ctrl-C, 2 if it cannot start."
                            : "Exit code: 0 every unit passes, 1 not yet, 2 could not grade.");
  }
}

namespace {

bool use_color() {
  return isatty(STDOUT_FILENO) && !std::getenv("NO_COLOR");
}

// SIGINT: 1 once asked to stop; a second one while grading quits at once.
volatile std::sig_atomic_t stop_requests = 0;
volatile std::sig_atomic_t grading = 0;

void on_interrupt(int) {
  const bool again = stop_requests != 0;
  stop_requests = 1;
  if (again && grading) {
    const char msg[] = "\n";
    (void)!write(STDOUT_FILENO, msg, 1);
    _exit(0);
  }
}

// The folders holding the exercise files, each watched once; the names that matter.
struct watched {
  int fd = -1;
  std::set<std::string> names;
  ~watched() {
    if (fd >= 0) close(fd);
  }
};

// Waits for a save of one of the names; false when asked to stop. Events that come within
// 150 ms of the first (an editor's write, rename and chmod) count as one save.
bool wait_for_save(const watched& w) {
  bool saved = false;
  for (;;) {
    if (stop_requests) return false;
    pollfd p{w.fd, POLLIN, 0};
    const int ready = poll(&p, 1, saved ? 150 : 200);
    if (ready == 0 && saved) return true;
    if (ready <= 0) continue;  // a timeout (check the stop flag) or EINTR
    alignas(inotify_event) char buf[16 * 1024];
    const ssize_t n = read(w.fd, buf, sizeof buf);
    for (ssize_t i = 0; i < n;) {
      const auto* e = reinterpret_cast<const inotify_event*>(buf + i);
      if (e->len > 0 && w.names.count(e->name)) saved = true;
      i += static_cast<ssize_t>(sizeof(inotify_event) + e->len);
    }
  }
}

std::string clock_now() {
  const std::time_t t = std::time(nullptr);
  char text[16];
  std::strftime(text, sizeof text, "%H:%M:%S", std::localtime(&t));
  return text;
}

}  // namespace

int run_status(const course& c, const options& o, lang l) {
  const manifest m = load_manifest(c, o.lesson);
  try {
    const report rep = grade_for(c, m, o, l);
    std::cout << render_status(rep, use_color()) << std::flush;
    return rep.passed() ? 0 : 1;
  } catch (const cannot_grade& e) {
    return fail_to_grade(e.what());
  }
}

int run_watch(const course& c, const options& o, lang l) {
  const manifest m = load_manifest(c, o.lesson);
  const fs::path dir = o.answers              ? c.solutions_dir(o.lesson)
                       : o.submission.empty() ? c.exercises_dir(o.lesson)
                                              : fs::path(o.submission);
  watched w;
  w.fd = inotify_init1(IN_CLOEXEC | IN_NONBLOCK);
  if (w.fd < 0) return fail_to_grade("cannot watch files here (inotify_init1 failed)");
  std::set<fs::path> folders;
  try {
    for (const auto& [name, path] : submission_files(m, dir, {}, o.unit)) {
      w.names.insert(name);
      folders.insert(fs::absolute(path).parent_path());
    }
  } catch (const cannot_grade& e) {
    return fail_to_grade(e.what());
  }
  for (const fs::path& f : folders)
    if (inotify_add_watch(w.fd, f.c_str(), IN_CLOSE_WRITE | IN_MOVED_TO | IN_CREATE) < 0)
      return fail_to_grade("cannot watch " + display_path(f));

  struct sigaction sa {};
  sa.sa_handler = on_interrupt;
  sigemptyset(&sa.sa_mask);
  sigaction(SIGINT, &sa, nullptr);
  sigaction(SIGTERM, &sa, nullptr);

  const bool color = use_color(), tty = isatty(STDOUT_FILENO);
  const std::string where = display_path(fs::absolute(dir).lexically_normal());
  for (int round = 1; !stop_requests; ++round) {
    if (round > 1 && tty) std::cout << "\033[H\033[2J";
    if (round > 1 && !tty) std::cout << "\n";
    std::cout << trf(l, "评分中（第 {} 次）……", "grading (round {})...", round) << std::endl;
    const auto start = std::chrono::steady_clock::now();
    std::string screen;
    grading = 1;
    try {
      screen = render_status(grade_for(c, m, o, l), color);
    } catch (const std::exception& e) {  // a missing file, say: shown, and watched again
      screen = trf(l, "无法评分：{}\n", "cannot grade: {}\n", one_line(e.what()));
    }
    grading = 0;
    const double seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    if (tty) std::cout << "\033[H\033[2J";
    std::cout << screen << "\n";
    for (const std::string& line :
         wrap_text(trf(l, "第 {} 次评分，{}，用时 {:.1f} 秒。监视 {}：保存即重评，Ctrl-C 退出。",
                       "Round {} at {} ({:.1f} s). Watching {}: save to re-grade, Ctrl-C to "
                       "stop.",
                       round, clock_now(), seconds, where),
                   80))
      std::cout << line << "\n";
    std::cout << std::flush;
    if (!wait_for_save(w)) break;
  }
  std::cout << tr(l, "已停止监视。", "Stopped watching.") << std::endl;
  return 0;
}

}  // namespace grader::cli
