// Helpers shared by the emulator's adversarial tests (test_launches.cpp,
// test_warp.cpp, test_coalescing.cpp, ...): quiet launches, the last launch,
// and running a fault that could take the test program down in a child process.
#pragma once

#include <catch2/catch.hpp>

#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <csignal>
#include <cstdio>
#include <string>

#include "cuda_emu/emulator.hpp"

namespace adversarial {

// For one test: reports are not echoed, and launches, errors and the time limit
// start afresh and are put back afterwards.
struct quiet {
  quiet() {
    cuda_emu::settings().print_reports = false;
    cuda_emu::reset();
  }
  ~quiet() {
    cuda_emu::settings().time_limit = std::chrono::seconds(10);
    cuda_emu::reset();
  }
};

inline const cuda_emu::launch_record& last() {
  return cuda_emu::last_launch();
}

inline bool has_error_report(const cuda_emu::launch_record& r) {
  for (const auto& rep : r.reports)
    if (rep.kind != cuda_emu::report_kind::warning) return true;
  return false;
}

// Runs fn in a child process (for faults that would take the test process down),
// with an alarm as a last resort; returns the child's wait status.
template <class Fn>
int in_child(Fn fn, unsigned seconds) {
  std::fflush(stdout);
  std::fflush(stderr);
  const pid_t pid = fork();
  if (pid == 0) {
    for (int sig : {SIGSEGV, SIGBUS, SIGABRT, SIGILL, SIGFPE, SIGALRM})
      std::signal(sig, SIG_DFL);  // not Catch2's handlers: the parent reports
    alarm(seconds);
    const int code = fn();
    std::fflush(stdout);
    _exit(code);
  }
  int status = 0;
  waitpid(pid, &status, 0);
  return status;
}

inline bool exited_with(int status, int code) {
  return WIFEXITED(status) && WEXITSTATUS(status) == code;
}

inline std::string describe(int status) {
  if (WIFEXITED(status)) return "exit code " + std::to_string(WEXITSTATUS(status));
  if (WIFSIGNALED(status)) return "signal " + std::to_string(WTERMSIG(status));
  return "status " + std::to_string(status);
}

template <class Fn>
std::string capture_stdout(Fn fn) {
  std::fflush(stdout);
  FILE* tmp = std::tmpfile();
  const int saved = dup(1);
  dup2(fileno(tmp), 1);
  fn();
  std::fflush(stdout);
  dup2(saved, 1);
  close(saved);
  std::rewind(tmp);
  std::string text;
  char buf[512];
  size_t n;
  while ((n = std::fread(buf, 1, sizeof buf, tmp)) > 0) text.append(buf, n);
  std::fclose(tmp);
  return text;
}

inline long max_rss_kib() {
  rusage u{};
  getrusage(RUSAGE_SELF, &u);
  return u.ru_maxrss;
}

}  // namespace adversarial
