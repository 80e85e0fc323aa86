// grader dev supervise (see supervise.hpp).
#include "grader/commands/supervise.hpp"

#include <fcntl.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <iostream>
#include <map>
#include <nlohmann/json.hpp>
#include <thread>

#include "grader/base/files.hpp"
#include "grader/base/process_tree.hpp"

namespace grader {
namespace {

using clock_type = std::chrono::steady_clock;
using namespace std::chrono_literals;

// RLIMIT_NPROC where it binds (not for root; it counts every process of the user): a
// backstop behind max_processes, which is sampled and so can be outrun for a moment.
constexpr rlim_t kProcessBackstop = 16384;

volatile sig_atomic_t interrupted = 0;
void on_signal(int) {
  interrupted = 1;
}

void lower_limit(int resource, rlim_t most) {
  rlimit l{};
  if (getrlimit(resource, &l) != 0) return;
  l.rlim_cur = std::min(l.rlim_cur, most);  // RLIM_INFINITY is the largest value
  l.rlim_max = std::min(l.rlim_max, most);
  setrlimit(resource, &l);
}

// In the child, between fork and exec: a session of its own, the limits, the command. On
// failure the errno goes to `report_fd` (closed by a successful exec).
[[noreturn]] void exec_child(const supervise_options& o, pid_t supervisor, int report_fd) {
  setsid();
  prctl(PR_SET_PDEATHSIG, SIGKILL);  // the supervisor gone, nothing is left unwatched
  if (getppid() != supervisor) _exit(127);
  lower_limit(RLIMIT_CORE, 0);
  if (o.max_file_mib) lower_limit(RLIMIT_FSIZE, static_cast<rlim_t>(o.max_file_mib) << 20);
  lower_limit(RLIMIT_NPROC, kProcessBackstop);
  std::vector<char*> args;
  for (const auto& a : o.argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  execvp(args[0], args.data());
  const int err = errno;
  if (write(report_fd, &err, sizeof err) < 0) _exit(127);
  _exit(127);
}

// The supervisor's view of one run: the child, the processes seen, the figures.
struct watch {
  explicit watch(const supervise_options& options) : o(options) {}
  const supervise_options& o;
  pid_t child = 0;
  clock_type::time_point start = clock_type::now();
  supervise_result r;
  bool child_done = false;
  std::map<pid_t, std::uint64_t> seen;  // pid -> start time, every process of the tree

  double elapsed() const {
    return std::chrono::duration<double>(clock_type::now() - start).count();
  }

  // Reaps every child that ended: the command, and orphans of the tree given to the
  // supervisor as their subreaper.
  void reap() {
    int status = 0;
    for (pid_t w; (w = waitpid(-1, &status, WNOHANG)) > 0;) {
      if (w != child) continue;
      child_done = true;
      r.seconds = elapsed();
      if (WIFEXITED(status)) r.exit_code = WEXITSTATUS(status);
      if (WIFSIGNALED(status)) r.term_signal = WTERMSIG(status);
    }
  }

  // Every process of the tree; `running` (when given) counts those that are not zombies.
  std::vector<pid_t> tree(unsigned* running = nullptr) {
    std::vector<pid_t> pids;
    for (const auto& e : tree_below(getpid(), process_table())) {
      seen.emplace(e.pid, e.start);
      pids.push_back(e.pid);
      if (running && e.running()) ++*running;
    }
    return pids;
  }

  void stop(const char* why, double at) {
    r.stopped_by = why;
    r.stopped_at = at;
  }

  // One sample of the tree against the caps; returns how many processes it holds. The
  // process count is of those alive: a killed fork bomb's hundreds of zombies, waiting to
  // be reaped, hold no CPU or memory and can start nothing.
  std::size_t sample() {
    unsigned count = 0;
    const std::vector<pid_t> pids = tree(&count);
    const std::uint64_t mib = tree_memory(pids) >> 20;
    r.peak_processes = std::max(r.peak_processes, count);
    r.peak_tree_mib = std::max(r.peak_tree_mib, mib);
    const std::uint64_t available = o.min_available_mib ? memory_available() >> 20 : 0;
    if (o.max_tree_mib && mib > o.max_tree_mib)
      stop("memory", static_cast<double>(mib));
    else if (o.max_processes && count > o.max_processes)
      stop("processes", count);
    else if (o.min_available_mib && available < o.min_available_mib)
      stop("low-memory", static_cast<double>(available));
    else if (elapsed() > o.wall_s)
      stop("wall", elapsed());
    else if (interrupted)
      stop("interrupted", elapsed());
    return pids.size();
  }

  // Kills the whole tree (a few passes, for what forked meanwhile) and reaps it.
  void kill_tree() {
    for (int pass = 0; pass < 5; ++pass) {
      stop_and_kill(tree());
      if (child > 0) kill(-child, SIGKILL);  // its session's first group, if anything is left
      std::this_thread::sleep_for(20ms);
      reap();
      if (child_done && tree().empty()) return;
      std::this_thread::sleep_for(80ms);
    }
    if (!child_done && child > 0) {  // in the kernel still: it cannot outlive SIGKILL
      int status = 0;
      if (waitpid(child, &status, 0) == child) child_done = true;
      if (r.seconds == 0) r.seconds = elapsed();
    }
  }

  // Processes of the tree still running (a zombie is not), and those seen in it before that
  // run still under the same start time wherever they went.
  std::vector<pid_t> still_running() {
    const auto table = process_table();
    std::vector<pid_t> out;
    for (const auto& e : tree_below(getpid(), table))
      if (e.running()) out.push_back(e.pid);
    for (const auto& e : table)
      if (e.running() && seen.count(e.pid) && seen[e.pid] == e.start &&
          std::find(out.begin(), out.end(), e.pid) == out.end())
        out.push_back(e.pid);
    return out;
  }

  // After the command: waits up to linger_s for its processes to end, names those that do
  // not, and kills them.
  void linger() {
    const auto deadline = clock_type::now() + std::chrono::duration<double>(o.linger_s);
    std::vector<pid_t> left;
    for (;;) {
      reap();
      left = still_running();
      if (left.empty() || clock_type::now() >= deadline) break;
      std::this_thread::sleep_for(200ms);
    }
    for (pid_t p : left) r.left.push_back({p, command_line(p)});
    stop_and_kill(left);
    kill_tree();
  }
};

}  // namespace

supervise_result supervise(const supervise_options& o) {
  watch w(o);
  prctl(PR_SET_CHILD_SUBREAPER, 1);
  struct sigaction sa {};
  sa.sa_handler = on_signal;
  for (const int sig : {SIGTERM, SIGINT, SIGHUP}) sigaction(sig, &sa, nullptr);
  int report[2];
  if (pipe2(report, O_CLOEXEC) != 0) {
    w.r.spawn_error = std::strerror(errno);
    return w.r;
  }
  const pid_t self = getpid();
  w.child = fork();
  if (w.child == 0) exec_child(o, self, report[1]);
  close(report[1]);
  int err = 0;
  const bool failed = w.child < 0 || read(report[0], &err, sizeof err) == sizeof err;
  close(report[0]);
  if (failed) {
    w.r.spawn_error = std::strerror(w.child < 0 ? errno : err);
    if (w.child > 0) waitpid(w.child, nullptr, 0);
    return w.r;
  }
  for (;;) {
    w.reap();
    if (w.child_done) break;
    const std::size_t n = w.sample();
    if (!w.r.stopped_by.empty()) break;
    std::this_thread::sleep_for(n < 64 ? 100ms : 300ms);  // a large tree is slow to read
  }
  if (!w.r.stopped_by.empty()) w.kill_tree();
  w.linger();
  return w.r;
}

std::string supervise_json(const supervise_result& r) {
  nlohmann::json left = nlohmann::json::array();
  for (const auto& l : r.left) left.push_back({{"pid", l.pid}, {"command", l.command}});
  const bool exited = r.spawn_error.empty() && r.term_signal == 0 && r.exit_code >= 0;
  nlohmann::json j = {{"exit", exited ? nlohmann::json(r.exit_code) : nlohmann::json()},
                      {"signal", r.term_signal},
                      {"seconds", r.seconds}};
  j["peak_tree_mib"] = r.peak_tree_mib;  // the caps' figures, as measured
  j["peak_processes"] = r.peak_processes;
  j["stopped_by"] = r.stopped_by;
  j["stopped_at"] = r.stopped_at;
  j["left"] = left;
  j["spawn_error"] = r.spawn_error;
  // A command line is the tree's own bytes: not UTF-8 perhaps, so replaced, never thrown on.
  return j.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

int run_supervise(const supervise_options& o, const std::string& json_path) {
  const supervise_result r = supervise(o);
  const std::string line = supervise_json(r) + "\n";
  if (json_path.empty())
    std::cout << line << std::flush;
  else
    write_replacing(json_path, line);
  if (r.spawn_error.empty()) return 0;
  std::cerr << "grader: dev supervise: cannot start " << o.argv.at(0) << ": " << r.spawn_error
            << "\n";
  return 2;
}

}  // namespace grader
