// fork/exec with a deadline (see subprocess.hpp).
#include "grader/base/subprocess.hpp"

#include "grader/base/process_tree.hpp"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fmt/format.h>
#include <string_view>
#include <vector>

namespace grader {

std::string run_result::describe() const {
  if (spawn_failed) return "could not start: " + output;
  if (timed_out) return fmt::format("timed out after {:.1f} s", seconds);
  if (output_exceeded)
    return fmt::format("output limit: it wrote more than {} KiB and was stopped",
                       output.size() >> 10);
  if (memory_exceeded)
    return memory_cap
               ? fmt::format("memory limit: its processes held more than {} MiB", memory_cap >> 20)
               : "memory limit: its processes held more memory than allowed";
  if (processes_exceeded) return "process limit: it started more processes than allowed";
  if (term_signal)
    return fmt::format("killed by {}", sigabbrev_np(term_signal)
                                           ? fmt::format("SIG{}", sigabbrev_np(term_signal))
                                           : std::to_string(term_signal));
  return fmt::format("exit code {}", exit_code);
}

namespace {

constexpr int kRecordsFd = 3;
constexpr size_t kMaxRecords = 16u << 20;

// Every process below `root`, found through /proc's parent links: ninja starts each
// compiler in a process group of its own, so killing the build's group on a timeout
// would leave cc1plus running.
std::vector<proc_entry> descendants(pid_t root) {
  return tree_below(root, process_table());
}

// The variables a child with inherit_env = false keeps ("NAME=value").
bool allowed_variable(std::string_view entry) {
  const std::string_view name = entry.substr(0, entry.find('='));
  for (std::string_view keep : {"PATH", "LANG", "LANGUAGE", "TMPDIR", "LD_LIBRARY_PATH", "TERM"})
    if (name == keep) return true;
  return name.starts_with("LC_") || name.starts_with("CUDA_") || name.starts_with("NVIDIA_");
}

// Resident bytes and number of `root` and every process below it.
struct usage {
  std::uint64_t resident = 0;
  size_t processes = 0;
};
usage tree_usage(pid_t root) {
  usage u;
  std::vector<pid_t> all = {root};
  for (const proc_entry& e : descendants(root)) all.push_back(e.pid);
  u.processes = all.size();
  for (pid_t p : all) u.resident += resident_bytes(p);
  return u;
}

bool executable_file(const std::string& path) {
  struct stat st {};
  return stat(path.c_str(), &st) == 0 && S_ISREG(st.st_mode) && access(path.c_str(), X_OK) == 0;
}

using clock = std::chrono::steady_clock;

run_result spawn_failure(std::string why) {
  run_result r;
  r.spawn_failed = true;
  r.output = std::move(why);
  return r;
}

void close_fd(int& fd) {
  if (fd >= 0) close(fd);
  fd = -1;
}

// The pipes between the grader and one child ({read, write} ends, -1 where absent):
// its output (stdout and stderr), its chdir/exec failure (closed by a successful exec),
// and its records (fd 3, with options.records_fd).
struct child_pipes {
  int out[2] = {-1, -1};
  int err[2] = {-1, -1};
  int rec[2] = {-1, -1};

  // "" when every pipe it needs is open; otherwise why not (none is left open).
  std::string make(bool records) {
    if (pipe2(out, O_CLOEXEC) != 0) return std::strerror(errno);
    if (pipe2(err, O_CLOEXEC) != 0 || (records && pipe2(rec, O_CLOEXEC) != 0)) {
      const int e = errno;
      for (int* fd : {&out[0], &out[1], &err[0], &err[1]}) close_fd(*fd);
      return std::strerror(e);
    }
    return {};
  }
};

// The child's environment ("NAME=value"): the grader's (all of it, or its allowlist),
// with options.env's entries replacing those of the same name.
std::vector<std::string> child_environment(const run_options& options) {
  std::vector<std::string> env;
  for (char** e = environ; *e; ++e)
    if (options.inherit_env || allowed_variable(*e)) env.emplace_back(*e);
  for (const auto& kv : options.env) {
    const std::string name = kv.substr(0, kv.find('=') + 1);
    std::erase_if(env, [&](const std::string& s) { return s.starts_with(name); });
    env.push_back(kv);
  }
  return env;
}

// In the forked child: only async-signal-safe calls. A failed chdir or exec is reported
// on the error pipe as {stage: 1 chdir, 2 exec; errno}.
[[noreturn]] void exec_child(const child_pipes& p, const run_options& options, char* const* args,
                             char* const* envp) {
  setpgid(0, 0);
  dup2(p.out[1], STDOUT_FILENO);
  dup2(p.out[1], STDERR_FILENO);
  if (p.rec[1] == kRecordsFd)
    fcntl(kRecordsFd, F_SETFD, 0);  // dup2 onto itself would keep close-on-exec
  else if (p.rec[1] >= 0)
    dup2(p.rec[1], kRecordsFd);
  const int devnull = open("/dev/null", O_RDONLY);
  if (devnull >= 0) dup2(devnull, STDIN_FILENO);
  int failure[2] = {0, 0};
  if (!options.cwd.empty() && chdir(options.cwd.c_str()) != 0) {
    failure[0] = 1;
    failure[1] = errno;
    (void)!write(p.err[1], failure, sizeof failure);
    _exit(127);
  }
  execvpe(args[0], args, envp);
  failure[0] = 2;
  failure[1] = errno;
  (void)!write(p.err[1], failure, sizeof failure);
  _exit(127);
}

// What the child reported on the error pipe, as the spawn failure's message; "" when the
// exec succeeded (the pipe closed without a word).
std::string exec_failure(int fd, const std::vector<std::string>& argv, const run_options& options) {
  int failure[2] = {0, 0};
  if (read(fd, failure, sizeof failure) != sizeof failure) return {};
  return failure[0] == 1
             ? fmt::format("cannot enter {}: {}", options.cwd.string(), std::strerror(failure[1]))
             : fmt::format("{}: {}", argv[0], std::strerror(failure[1]));
}

// The child's output and records pipes, read as they fill. Output is kept up to
// max_output (what it wrote past that is counted, not kept); more records than
// kMaxRecords count as an output limit.
struct pipe_reader {
  pipe_reader(int out, int rec, const run_options& o, clock::time_point until, run_result& into)
      : out_fd(out), rec_fd(rec), options(o), deadline(until), r(into), rec_open(rec >= 0) {}

  int out_fd, rec_fd;
  const run_options& options;
  clock::time_point deadline;
  run_result& r;
  bool out_open = true, rec_open;
  size_t written = 0;  // bytes it wrote, kept or not
  char buf[65536];

  bool any_open() const { return out_open || rec_open; }
  bool over_output() const { return written > options.max_output; }

  // Reads what is ready on either pipe, waiting up to wait_ms for the first of it.
  void drain(int wait_ms) {
    while (any_open() && clock::now() < deadline) {
      pollfd p[2] = {{out_open ? out_fd : -1, POLLIN, 0}, {rec_open ? rec_fd : -1, POLLIN, 0}};
      if (poll(p, 2, wait_ms) <= 0) break;
      wait_ms = 0;
      if (p[1].revents) {
        const ssize_t n = read(rec_fd, buf, sizeof buf);
        if (n > 0) r.records.append(buf, static_cast<size_t>(n));
        if (n == 0 || (n < 0 && errno != EINTR)) rec_open = false;
        if (r.records.size() > kMaxRecords) {
          written = options.max_output + 1;  // the caller stops it: an output limit
          break;
        }
      }
      if (p[0].revents) {
        const ssize_t n = read(out_fd, buf, sizeof buf);
        if (n <= 0) {
          if (n < 0 && errno == EINTR) continue;
          out_open = false;
          continue;
        }
        written += static_cast<size_t>(n);
        if (r.output.size() < options.max_output)
          r.output.append(buf, std::min<size_t>(n, options.max_output - r.output.size()));
        if (over_output()) break;  // the caller stops it
      }
    }
  }
};

// Samples the tree's resident memory and process count, at most every 50 ms and only
// while a limit watches them: true (the limit's flag set in r) when it is over one.
bool over_tree_limits(pid_t pid, const run_options& options, clock::time_point& next_check,
                      run_result& r) {
  if (!(options.max_memory || options.max_processes) || clock::now() < next_check) return false;
  next_check = clock::now() + std::chrono::milliseconds(50);
  const usage u = tree_usage(pid);
  r.peak_memory = std::max(r.peak_memory, u.resident);
  if (options.max_memory && u.resident > options.max_memory) {
    r.memory_exceeded = true;
    r.memory_cap = options.max_memory;
    return true;
  }
  if (options.max_processes && u.processes > options.max_processes) {
    r.processes_exceeded = true;
    return true;
  }
  return false;
}

// Reads the child's pipes until it exits (not until they close: a grandchild may hold
// them): true, with `status` set; or until a limit (time, output, memory, processes),
// false, with the limit's flag set in r.
bool watch_child(pid_t pid, pipe_reader& pipes, const run_options& options, clock::time_point start,
                 int& status, run_result& r) {
  auto next_memory_check = start;
  bool exited = false;
  while (!exited) {
    const auto left =
        std::chrono::duration_cast<std::chrono::milliseconds>(pipes.deadline - clock::now());
    if (left.count() <= 0) {
      r.timed_out = true;
      break;
    }
    if (pipes.any_open())
      pipes.drain(static_cast<int>(std::min<long>(left.count(), 20)));
    else
      usleep(1000);
    if (pipes.over_output()) {
      r.output_exceeded = true;
      break;
    }
    if (over_tree_limits(pid, options, next_memory_check, r)) break;
    exited = waitpid(pid, &status, WNOHANG) == pid;
  }
  if (exited) pipes.drain(0);  // what it wrote just before exiting
  return exited;
}

// Kills what is left of the child's tree. Stopped at a limit, the whole tree is frozen
// first: SIGSTOP to every descendant, pass after pass until a pass finds none it has not
// stopped (a process stopped cannot start another; one started between two passes is the
// child of one not yet stopped, so the next pass finds it). Then every descendant is
// killed, even those in groups of their own; then the child's group, in either case.
// Returns the processes killed at the limit, to wait for.
std::vector<proc_entry> kill_tree(pid_t pid, bool at_limit) {
  std::vector<proc_entry> killed;
  if (at_limit) {
    kill(pid, SIGSTOP);
    for (int pass = 0; pass < 1000; ++pass) {
      bool found = false;
      for (const proc_entry& e : descendants(pid)) {
        const bool known = std::any_of(killed.begin(), killed.end(), [&](const proc_entry& k) {
          return k.pid == e.pid && k.start == e.start;
        });
        if (known) continue;
        kill(e.pid, SIGSTOP);
        killed.push_back(e);
        found = true;
      }
      if (!found) break;
    }
    for (const proc_entry& e : killed) kill(e.pid, SIGKILL);
  }
  kill(-pid, SIGKILL);  // at a limit the child; otherwise leftovers in its group
  return killed;
}

// Waits (at most `most`) until every process in `killed` has gone from /proc. SIGKILL is
// not instant: a sandbox's hundreds of processes still exist for a while, busy freeing
// their memory, and the next test's sandbox would stand beside them, over the promise of
// so many processes per test at once.
void wait_gone(const std::vector<proc_entry>& killed, std::chrono::milliseconds most) {
  const auto until = clock::now() + most;
  for (std::size_t left = killed.size(); left && clock::now() < until;) {
    left = 0;
    for (const proc_entry& e : process_table())
      for (const proc_entry& k : killed)
        if (e.pid == k.pid && e.start == k.start) ++left;
    if (left) usleep(2000);
  }
}

}  // namespace

std::string find_program(const std::string& program) {
  if (program.empty()) return {};
  if (program.find('/') != std::string::npos) return executable_file(program) ? program : "";
  const char* path = std::getenv("PATH");
  if (!path) return {};
  std::string p(path);
  for (size_t start = 0; start <= p.size();) {
    size_t end = p.find(':', start);
    if (end == std::string::npos) end = p.size();
    const std::string dir = p.substr(start, end - start);
    if (!dir.empty() && executable_file(dir + "/" + program))
      return std::filesystem::absolute(dir + "/" + program).lexically_normal().string();
    start = end + 1;
  }
  return {};
}

bool on_path(const std::string& program) {
  return !find_program(program).empty();
}

run_result run_process(const std::vector<std::string>& argv, const run_options& options) {
  const auto start = clock::now();
  if (argv.empty()) return spawn_failure("no program given");
  child_pipes p;
  if (std::string why = p.make(options.records_fd); !why.empty()) return spawn_failure(why);

  // Everything the child needs is built before fork: after it, only async-signal-safe calls.
  std::vector<char*> args;
  for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  std::vector<std::string> env_strings = child_environment(options);
  std::vector<char*> envp;
  for (auto& e : env_strings) envp.push_back(e.data());
  envp.push_back(nullptr);

  const pid_t pid = fork();
  if (pid == 0) exec_child(p, options, args.data(), envp.data());
  const int fork_errno = errno;
  for (int* fd : {&p.out[1], &p.err[1], &p.rec[1]}) close_fd(*fd);
  if (pid < 0) {
    for (int* fd : {&p.out[0], &p.err[0], &p.rec[0]}) close_fd(*fd);
    return spawn_failure(std::strerror(fork_errno));
  }
  setpgid(pid, pid);  // also from the parent, so the group exists before any kill

  if (std::string why = exec_failure(p.err[0], argv, options); !why.empty()) {
    for (int* fd : {&p.err[0], &p.out[0], &p.rec[0]}) close_fd(*fd);
    waitpid(pid, nullptr, 0);
    return spawn_failure(why);
  }
  close_fd(p.err[0]);

  run_result r;
  int status = 0;
  pipe_reader pipes{p.out[0], p.rec[0], options, start + options.timeout, r};
  const bool exited = watch_child(pid, pipes, options, start, status, r);
  close_fd(p.out[0]);
  close_fd(p.rec[0]);
  const std::vector<proc_entry> killed = kill_tree(pid, !exited);
  if (!exited) {
    waitpid(pid, &status, 0);
    wait_gone(killed, std::chrono::seconds(5));
  } else {
    if (WIFEXITED(status)) r.exit_code = WEXITSTATUS(status);
    if (WIFSIGNALED(status)) r.term_signal = WTERMSIG(status);
  }
  r.seconds = std::chrono::duration<double>(clock::now() - start).count();
  return r;
}

}  // namespace grader
