// fork/exec with a deadline (see subprocess.hpp).
#include "grader/base/subprocess.hpp"

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
#include <fstream>
#include <sstream>
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
std::vector<pid_t> descendants(pid_t root) {
  std::vector<std::pair<pid_t, pid_t>> links;  // (pid, parent)
  std::error_code ec;
  for (const auto& entry : std::filesystem::directory_iterator("/proc", ec)) {
    const std::string name = entry.path().filename().string();
    if (name.empty() || name.find_first_not_of("0123456789") != std::string::npos) continue;
    std::ifstream stat(entry.path() / "stat");
    std::string line;
    if (!std::getline(stat, line)) continue;
    const auto close = line.rfind(')');  // the command may hold spaces and parentheses
    if (close == std::string::npos) continue;
    std::istringstream rest(line.substr(close + 1));
    char state = 0;
    pid_t parent = 0;
    if (rest >> state >> parent) links.push_back({std::stoi(name), parent});
  }
  std::vector<pid_t> out = {root};
  for (size_t i = 0; i < out.size(); ++i)
    for (const auto& [child, parent] : links)
      if (parent == out[i]) out.push_back(child);
  out.erase(out.begin());
  return out;
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
  std::vector<pid_t> all = descendants(root);
  all.push_back(root);
  u.processes = all.size();
  for (pid_t p : all) {
    std::ifstream statm("/proc/" + std::to_string(p) + "/statm");
    std::uint64_t size = 0, resident = 0;
    if (statm >> size >> resident)
      u.resident += resident * static_cast<std::uint64_t>(getpagesize());
  }
  return u;
}

bool executable_file(const std::string& path) {
  struct stat st {};
  return stat(path.c_str(), &st) == 0 && S_ISREG(st.st_mode) && access(path.c_str(), X_OK) == 0;
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
  using clock = std::chrono::steady_clock;
  run_result r;
  const auto start = clock::now();
  if (argv.empty()) {
    r.spawn_failed = true;
    r.output = "no program given";
    return r;
  }
  int fds[2], errfds[2] = {-1, -1};  // output; and exec/chdir failures, closed by exec
  if (pipe2(fds, O_CLOEXEC) != 0) {
    r.spawn_failed = true;
    r.output = std::strerror(errno);
    return r;
  }
  int rec[2] = {-1, -1};  // options.records_fd: fd 3 of the child
  if (pipe2(errfds, O_CLOEXEC) != 0 || (options.records_fd && pipe2(rec, O_CLOEXEC) != 0)) {
    const int err = errno;
    for (int fd : {fds[0], fds[1], errfds[0], errfds[1]})
      if (fd >= 0) close(fd);
    r.spawn_failed = true;
    r.output = std::strerror(err);
    return r;
  }

  // Everything the child needs is built before fork: after it, only async-signal-safe calls.
  std::vector<char*> args;
  for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  std::vector<std::string> env_strings;
  for (char** e = environ; *e; ++e)
    if (options.inherit_env || allowed_variable(*e)) env_strings.emplace_back(*e);
  for (const auto& kv : options.env) {
    const std::string name = kv.substr(0, kv.find('=') + 1);
    std::erase_if(env_strings, [&](const std::string& s) { return s.starts_with(name); });
    env_strings.push_back(kv);
  }
  std::vector<char*> envp;
  for (auto& e : env_strings) envp.push_back(e.data());
  envp.push_back(nullptr);

  const pid_t pid = fork();
  if (pid == 0) {
    setpgid(0, 0);
    dup2(fds[1], STDOUT_FILENO);
    dup2(fds[1], STDERR_FILENO);
    if (rec[1] == kRecordsFd)
      fcntl(kRecordsFd, F_SETFD, 0);  // dup2 onto itself would keep close-on-exec
    else if (rec[1] >= 0)
      dup2(rec[1], kRecordsFd);
    const int devnull = open("/dev/null", O_RDONLY);
    if (devnull >= 0) dup2(devnull, STDIN_FILENO);
    int failure[2] = {0, 0};  // {stage: 1 chdir, 2 exec; errno}
    if (!options.cwd.empty() && chdir(options.cwd.c_str()) != 0) {
      failure[0] = 1;
      failure[1] = errno;
      (void)!write(errfds[1], failure, sizeof failure);
      _exit(127);
    }
    execvpe(args[0], args.data(), envp.data());
    failure[0] = 2;
    failure[1] = errno;
    (void)!write(errfds[1], failure, sizeof failure);
    _exit(127);
  }
  close(fds[1]);
  close(errfds[1]);
  if (rec[1] >= 0) close(rec[1]);
  if (pid < 0) {
    close(fds[0]);
    close(errfds[0]);
    if (rec[0] >= 0) close(rec[0]);
    r.spawn_failed = true;
    r.output = std::strerror(errno);
    return r;
  }
  setpgid(pid, pid);  // also from the parent, so the group exists before any kill

  int failure[2] = {0, 0};
  if (read(errfds[0], failure, sizeof failure) == sizeof failure) {
    close(errfds[0]);
    close(fds[0]);
    if (rec[0] >= 0) close(rec[0]);
    waitpid(pid, nullptr, 0);
    r.spawn_failed = true;
    r.output = failure[0] == 1 ? fmt::format("cannot enter {}: {}", options.cwd.string(),
                                             std::strerror(failure[1]))
                               : fmt::format("{}: {}", argv[0], std::strerror(failure[1]));
    return r;
  }
  close(errfds[0]);

  // Read until the child exits (not until the pipe closes: a grandchild may hold it).
  const auto deadline = start + options.timeout;
  char buf[65536];
  int status = 0;
  bool exited = false, pipe_open = true, records_open = rec[0] >= 0;
  size_t written = 0;  // bytes it wrote, kept or not
  // Reads what is ready on the output pipe and the records pipe, waiting up to wait_ms.
  auto drain = [&](int wait_ms) {
    while ((pipe_open || records_open) && clock::now() < deadline) {
      pollfd p[2] = {{pipe_open ? fds[0] : -1, POLLIN, 0}, {records_open ? rec[0] : -1, POLLIN, 0}};
      if (poll(p, 2, wait_ms) <= 0) break;
      wait_ms = 0;
      if (p[1].revents) {
        const ssize_t n = read(rec[0], buf, sizeof buf);
        if (n > 0) r.records.append(buf, static_cast<size_t>(n));
        if (n == 0 || (n < 0 && errno != EINTR)) records_open = false;
        if (r.records.size() > kMaxRecords) {
          written = options.max_output + 1;  // the caller stops it: an output limit
          break;
        }
      }
      if (p[0].revents) {
        const ssize_t n = read(fds[0], buf, sizeof buf);
        if (n <= 0) {
          if (n < 0 && errno == EINTR) continue;
          pipe_open = false;
          continue;
        }
        written += static_cast<size_t>(n);
        if (r.output.size() < options.max_output)
          r.output.append(buf, std::min<size_t>(n, options.max_output - r.output.size()));
        if (written > options.max_output) break;  // the caller stops it
      }
    }
  };
  auto next_memory_check = start;
  while (!exited) {
    const auto left =
        std::chrono::duration_cast<std::chrono::milliseconds>(deadline - clock::now());
    if (left.count() <= 0) {
      r.timed_out = true;
      break;
    }
    if (pipe_open || records_open)
      drain(static_cast<int>(std::min<long>(left.count(), 20)));
    else
      usleep(1000);
    if (written > options.max_output) {
      r.output_exceeded = true;
      break;
    }
    if ((options.max_memory || options.max_processes) && clock::now() >= next_memory_check) {
      next_memory_check = clock::now() + std::chrono::milliseconds(50);
      const usage u = tree_usage(pid);
      r.peak_memory = std::max(r.peak_memory, u.resident);
      if (options.max_memory && u.resident > options.max_memory) {
        r.memory_exceeded = true;
        r.memory_cap = options.max_memory;
        break;
      }
      if (options.max_processes && u.processes > options.max_processes) {
        r.processes_exceeded = true;
        break;
      }
    }
    exited = waitpid(pid, &status, WNOHANG) == pid;
  }
  if (exited) drain(0);  // what it wrote just before exiting
  close(fds[0]);
  if (rec[0] >= 0) close(rec[0]);
  const bool stopped =
      r.timed_out || r.output_exceeded || r.memory_exceeded || r.processes_exceeded;
  if (stopped) {  // stop the tree first, so no process is left to start another
    kill(pid, SIGSTOP);
    for (int pass = 0; pass < 2; ++pass)  // a second pass for what forked meanwhile
      for (pid_t p : descendants(pid)) kill(p, SIGKILL);
  }
  kill(-pid, SIGKILL);  // at a limit the child; otherwise leftovers in its group
  if (stopped) {
    waitpid(pid, &status, 0);
  } else {
    if (WIFEXITED(status)) r.exit_code = WEXITSTATUS(status);
    if (WIFSIGNALED(status)) r.term_signal = WTERMSIG(status);
  }
  r.seconds = std::chrono::duration<double>(clock::now() - start).count();
  return r;
}

}  // namespace grader
