// fork/exec with a deadline (see subprocess.hpp).
#include "grader/subprocess.hpp"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <fmt/format.h>

namespace grader {

std::string run_result::describe() const {
  if (spawn_failed) return "could not start: " + output;
  if (timed_out) return fmt::format("timed out after {:.1f} s", seconds);
  if (term_signal)
    return fmt::format("killed by {}", sigabbrev_np(term_signal)
                                           ? fmt::format("SIG{}", sigabbrev_np(term_signal))
                                           : std::to_string(term_signal));
  return fmt::format("exit code {}", exit_code);
}

bool on_path(const std::string& program) {
  if (program.find('/') != std::string::npos) return access(program.c_str(), X_OK) == 0;
  const char* path = std::getenv("PATH");
  if (!path) return false;
  std::string p(path);
  for (size_t start = 0; start <= p.size();) {
    size_t end = p.find(':', start);
    if (end == std::string::npos) end = p.size();
    const std::string dir = p.substr(start, end - start);
    if (!dir.empty() && access((dir + "/" + program).c_str(), X_OK) == 0) return true;
    start = end + 1;
  }
  return false;
}

run_result run_process(const std::vector<std::string>& argv, const run_options& options) {
  using clock = std::chrono::steady_clock;
  run_result r;
  const auto start = clock::now();
  int fds[2];
  if (pipe2(fds, O_CLOEXEC) != 0) {
    r.spawn_failed = true;
    r.output = std::strerror(errno);
    return r;
  }
  // An exec failure is reported through a second pipe that closes on a successful exec.
  int errfds[2];
  if (pipe2(errfds, O_CLOEXEC) != 0) {
    close(fds[0]);
    close(fds[1]);
    r.spawn_failed = true;
    r.output = std::strerror(errno);
    return r;
  }

  std::vector<char*> args;
  for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);

  const pid_t pid = fork();
  if (pid == 0) {
    setpgid(0, 0);
    dup2(fds[1], STDOUT_FILENO);
    dup2(fds[1], STDERR_FILENO);
    const int devnull = open("/dev/null", O_RDONLY);
    if (devnull >= 0) dup2(devnull, STDIN_FILENO);
    if (!options.cwd.empty() && chdir(options.cwd.c_str()) != 0) {
      const int e = errno;
      (void)!write(errfds[1], &e, sizeof e);
      _exit(127);
    }
    for (const auto& kv : options.env) putenv(const_cast<char*>(kv.c_str()));
    execvp(args[0], args.data());
    const int e = errno;
    (void)!write(errfds[1], &e, sizeof e);
    _exit(127);
  }
  close(fds[1]);
  close(errfds[1]);
  if (pid < 0) {
    close(fds[0]);
    close(errfds[0]);
    r.spawn_failed = true;
    r.output = std::strerror(errno);
    return r;
  }
  setpgid(pid, pid);  // also from the parent, so the group exists before any kill

  int child_errno = 0;
  if (read(errfds[0], &child_errno, sizeof child_errno) == sizeof child_errno) {
    close(errfds[0]);
    close(fds[0]);
    waitpid(pid, nullptr, 0);
    r.spawn_failed = true;
    r.output = fmt::format("{}: {}", argv.empty() ? "" : argv[0], std::strerror(child_errno));
    return r;
  }
  close(errfds[0]);

  const auto deadline = start + options.timeout;
  char buf[65536];
  bool open_pipe = true;
  while (open_pipe) {
    const auto left =
        std::chrono::duration_cast<std::chrono::milliseconds>(deadline - clock::now());
    if (left.count() <= 0) {
      r.timed_out = true;
      break;
    }
    pollfd p{fds[0], POLLIN, 0};
    const int ready = poll(&p, 1, static_cast<int>(std::min<long>(left.count(), 1000)));
    if (ready < 0 && errno != EINTR) break;
    if (ready <= 0) continue;
    const ssize_t n = read(fds[0], buf, sizeof buf);
    if (n > 0) {
      if (r.output.size() < options.max_output)
        r.output.append(buf, std::min<size_t>(n, options.max_output - r.output.size()));
    } else if (n == 0 || errno != EINTR) {
      open_pipe = false;
    }
  }
  close(fds[0]);

  int status = 0;
  if (r.timed_out) {
    kill(-pid, SIGKILL);
    waitpid(pid, &status, 0);
  } else {
    // The pipe closed; the child is exiting. Still bound the wait by the deadline.
    while (true) {
      const pid_t w = waitpid(pid, &status, WNOHANG);
      if (w == pid) break;
      if (clock::now() >= deadline) {
        r.timed_out = true;
        kill(-pid, SIGKILL);
        waitpid(pid, &status, 0);
        break;
      }
      usleep(1000);
    }
  }
  kill(-pid, SIGKILL);  // leftovers the child may have started in its group
  if (!r.timed_out) {
    if (WIFEXITED(status)) r.exit_code = WEXITSTATUS(status);
    if (WIFSIGNALED(status)) r.term_signal = WTERMSIG(status);
  }
  r.seconds = std::chrono::duration<double>(clock::now() - start).count();
  return r;
}

}  // namespace grader
