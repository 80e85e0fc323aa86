// Unit tests for the /proc view of a process tree (base/process_tree.cpp) and for the
// supervisor built on it (commands/supervise.cpp, `grader dev supervise`).
//   build/bin/grader_tests "[process_tree]"
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <catch2/catch.hpp>

#include <algorithm>
#include <chrono>
#include <cstring>
#include <nlohmann/json.hpp>
#include <string>
#include <thread>
#include <vector>

#include "grader/base/process_tree.hpp"
#include "grader/commands/supervise.hpp"

using namespace std::chrono_literals;
using grader::proc_entry;

namespace {

// A child that runs `argv` (exec), stopped and reaped when the object goes.
struct child {
  pid_t pid = -1;
  explicit child(std::vector<std::string> argv) {
    pid = fork();
    if (pid == 0) {
      std::vector<char*> args;
      for (auto& a : argv) args.push_back(a.data());
      args.push_back(nullptr);
      execvp(args[0], args.data());
      _exit(127);
    }
  }
  ~child() {
    kill(pid, SIGKILL);
    waitpid(pid, nullptr, 0);
  }
};

std::vector<pid_t> pids_below(pid_t root) {
  std::vector<pid_t> out;
  for (const auto& e : grader::tree_below(root, grader::process_table())) out.push_back(e.pid);
  return out;
}

// Waits until `pred` holds (up to 5 s).
template <class F>
bool eventually(F pred) {
  for (int i = 0; i < 250; ++i) {
    if (pred()) return true;
    std::this_thread::sleep_for(20ms);
  }
  return pred();
}

// supervise() run in a forked child (it makes its caller a subreaper and takes SIGTERM),
// its JSON line read back through a pipe.
nlohmann::json supervised(const grader::supervise_options& o) {
  int fds[2];
  REQUIRE(pipe(fds) == 0);
  const pid_t pid = fork();
  if (pid == 0) {
    close(fds[0]);
    const std::string line = grader::supervise_json(grader::supervise(o));
    const bool ok = write(fds[1], line.data(), line.size()) == static_cast<ssize_t>(line.size());
    _exit(ok ? 0 : 1);
  }
  close(fds[1]);
  std::string text;
  char buf[4096];
  for (ssize_t n; (n = read(fds[0], buf, sizeof buf)) > 0;) text.append(buf, n);
  close(fds[0]);
  waitpid(pid, nullptr, 0);
  return nlohmann::json::parse(text);
}

grader::supervise_options command(std::vector<std::string> argv) {
  grader::supervise_options o;
  o.wall_s = 20;
  o.linger_s = 0.5;
  o.argv = std::move(argv);
  return o;
}

}  // namespace

TEST_CASE("process_table lists this process with its parent and start time", "[process_tree]") {
  const auto table = grader::process_table();
  const auto self = std::find_if(table.begin(), table.end(),
                                 [](const proc_entry& e) { return e.pid == getpid(); });
  REQUIRE(self != table.end());
  CHECK(self->parent == getppid());
  CHECK(self->running());
  CHECK(self->start > 0);
}

TEST_CASE("tree_below finds children and grandchildren, not the root", "[process_tree]") {
  const child c({"sh", "-c", "sleep 30 & sleep 30 & wait"});
  REQUIRE(eventually([&] { return pids_below(c.pid).size() == 2; }));
  const auto mine = pids_below(getpid());
  CHECK(std::count(mine.begin(), mine.end(), c.pid) == 1);
  CHECK(std::count(mine.begin(), mine.end(), getpid()) == 0);
  CHECK(mine.size() >= 3);  // the shell and its two sleeps
  CHECK(grader::command_line(pids_below(c.pid).front()) == "sleep 30");
}

TEST_CASE("tree_memory counts what a process touches, once", "[process_tree]") {
  // 96 MiB written by a child of this test: its Pss, and the tree's, hold them. (Not a
  // python3: under ctest, PATH's python3 can be pyenv's shim, whose process is not the
  // interpreter holding the memory.)
  struct toucher {
    pid_t pid = fork();
    toucher() {
      if (pid == 0) {
        std::vector<char> block(96u << 20);
        for (std::size_t i = 0; i < block.size(); i += 4096) block[i] = 1;
        for (;;) pause();
      }
    }
    ~toucher() {
      kill(pid, SIGKILL);
      waitpid(pid, nullptr, 0);
    }
  } c;
  REQUIRE(eventually([&] { return grader::proportional_bytes(c.pid) > (96u << 20); }));
  CHECK(grader::resident_bytes(c.pid) >= grader::proportional_bytes(c.pid) / 2);
  CHECK(grader::tree_memory({c.pid}) > (96u << 20));
  CHECK(grader::tree_memory({c.pid}, 0) == 0);  // none of them measured
  CHECK(grader::proportional_bytes(-5) == 0);
  CHECK(grader::memory_available() > (16u << 20));
}

TEST_CASE("stop_and_kill ends a process", "[process_tree]") {
  const pid_t pid = fork();
  if (pid == 0) {
    pause();
    _exit(0);
  }
  grader::stop_and_kill({pid});
  int status = 0;
  REQUIRE(waitpid(pid, &status, 0) == pid);
  CHECK(WIFSIGNALED(status));
  CHECK(WTERMSIG(status) == SIGKILL);
}

TEST_CASE("supervise reports the command's exit and its tree's peaks", "[process_tree]") {
  const auto j = supervised(command({"sh", "-c", "sleep 0.5 & sleep 0.5; wait; exit 3"}));
  CHECK(j["exit"] == 3);
  CHECK(j["signal"] == 0);
  CHECK(j["stopped_by"] == "");
  CHECK(j["peak_processes"].get<unsigned>() >= 2);
  CHECK(j["seconds"].get<double>() >= 0.4);
  CHECK(j["left"].empty());
  CHECK(j["spawn_error"] == "");

  const auto missing = supervised(command({"/no/such/program"}));
  CHECK(missing["exit"].is_null());
  CHECK(missing["spawn_error"] != "");
}

TEST_CASE("supervise stops the whole tree at each cap", "[process_tree]") {
  auto wall = command({"sh", "-c", "sleep 30 & sleep 30"});
  wall.wall_s = 0.5;
  const auto w = supervised(wall);
  CHECK(w["stopped_by"] == "wall");
  CHECK(w["signal"] == SIGKILL);
  CHECK(w["seconds"].get<double>() < 5);
  CHECK(w["left"].empty());  // killed with the command: nothing outlives it

  auto many = command({"sh", "-c", "for i in $(seq 40); do sleep 30 & done; wait"});
  many.max_processes = 10;
  const auto p = supervised(many);
  CHECK(p["stopped_by"] == "processes");
  CHECK(p["stopped_at"].get<double>() > 10);

  auto big = command({"python3", "-c", "import time; b = bytearray(256 << 20); time.sleep(30)"});
  big.max_tree_mib = 128;
  const auto m = supervised(big);
  CHECK(m["stopped_by"] == "memory");
  CHECK(m["peak_tree_mib"].get<unsigned>() > 128);
}

TEST_CASE("supervise names, then kills, what outlives the command", "[process_tree]") {
  // A grandchild left behind, and one orphaned on purpose (its parent exits at once): the
  // supervisor is their subreaper, so both are found.
  const auto j = supervised(command({"sh", "-c", "sleep 31 & (sleep 32 &); exit 0"}));
  CHECK(j["exit"] == 0);
  REQUIRE(j["left"].size() == 2);
  std::vector<std::string> commands;
  for (const auto& l : j["left"]) commands.push_back(l["command"]);
  std::sort(commands.begin(), commands.end());
  CHECK(commands == std::vector<std::string>{"sleep 31", "sleep 32"});
  for (const auto& l : j["left"])
    CHECK(eventually([&] { return kill(l["pid"].get<pid_t>(), 0) != 0; }));
}
