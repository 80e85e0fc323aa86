// The confined runner at each level (full: bubblewrap; restricted: grader-confine),
// checked from inside: a shell in the sandbox's prefix must not see the grader's
// environment, the course's files or the network, must not write outside its own
// temporary folder, and must not leave processes behind. A level that cannot start here
// is skipped with a warning.   build/bin/grader_tests "[sandbox]"
#include <catch2/catch.hpp>

#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <functional>
#include <fstream>
#include <optional>
#include <thread>

#include "grader/base/files.hpp"
#include "grader/base/sandbox.hpp"
#include "grader/base/subprocess.hpp"
#include "temp_dir.hpp"

namespace fs = std::filesystem;

namespace {

// Runs `script` with /bin/sh inside a test's confinement (as sandbox_runner makes it:
// one visible file, a private temporary folder); returns its output.
std::string inside(grader::isolation level, const std::string& script, const fs::path& visible,
                   unsigned processes = 256) {
  grader::confinement spec;
  spec.read_only = {visible};
  spec.processes = processes;
  grader::scratch_folder tmp;
  if (level == grader::isolation::restricted) spec.tmp = tmp.path();
  auto argv = grader::confine_command(level, spec);
  argv.insert(argv.end(), {"/bin/sh", "-c", script});
  grader::run_options opts;
  opts.timeout = std::chrono::seconds(20);
  return grader::run_process(argv, opts).output;
}

// The level a section runs at, or nullopt (with a warning) when it cannot start here.
std::optional<grader::isolation> level_to_test() {
  const auto level = GENERATE(grader::isolation::full, grader::isolation::restricted);
  if (const std::string why = grader::unavailable_reason(level); !why.empty()) {
    WARN(fmt::format("{} not run: {}", grader::to_string(level), why));
    return std::nullopt;
  }
  return level;
}

}  // namespace

TEST_CASE("sandbox: no environment, course files, network, or writes outside its tmp",
          "[sandbox]") {
  const auto level = level_to_test();
  if (!level) return;
  INFO(grader::to_string(*level) << ": " << grader::isolation_detail(*level));
  // The course's real answer key and folder: a sandbox under /tmp would hide a test
  // folder there behind its own tmpfs anyway.
  const fs::path course = COURSE_SOURCE_DIR;
  const fs::path secret = course / "solutions" / "lesson13" / "answer_key.json";
  const fs::path planted = course / "planted-by-sandbox-test";
  REQUIRE(fs::exists(secret));
  temp_dir dir;
  fs::permissions(dir.path, fs::perms::owner_all | fs::perms::group_exec | fs::perms::others_exec);
  const fs::path binary = dir.path / "visible";
  std::ofstream(binary) << "a test binary";
  fs::permissions(binary, fs::perms::owner_read | fs::perms::others_read);
  setenv("GRADER_SANDBOX_TEST_TOKEN", "leaked", 1);
  const std::string out =
      inside(*level,
             "echo token=${GRADER_SANDBOX_TEST_TOKEN:-none};"
             // Every environment the sandbox can read, its own init's (bwrap) included.
             "cat /proc/[0-9]*/environ 2>/dev/null | tr '\\0' '\\n' | grep -q leaked && "
             "echo proc_token=found || echo proc_token=none;"
             "cat '" +
                 secret.string() +
                 "' >/dev/null 2>&1 && echo key=read || echo key=hidden;"
                 "cat '" +
                 binary.string() +
                 "' >/dev/null 2>&1 && echo binary=read || echo binary=hidden;"
                 "echo x > '" +
                 planted.string() +
                 "' 2>/dev/null && echo plant=yes || echo plant=no;"
                 "echo x > ${TMPDIR:-/tmp}/mine && echo tmp=yes || echo tmp=no;"
                 "id -u;"
                 "(exec 3<>/dev/tcp/127.0.0.1/22) 2>/dev/null && echo net=yes || echo net=no",
             binary);
  unsetenv("GRADER_SANDBOX_TEST_TOKEN");
  INFO(out);
  CHECK_THAT(out, Catch::Contains("token=none"));
  CHECK_THAT(out, Catch::Contains("proc_token=none"));
  // Without Landlock (kernels before 5.13), files every user may read stay visible.
  if (*level == grader::isolation::full ||
      grader::isolation_detail(*level).find("no Landlock") == std::string::npos)
    CHECK_THAT(out, Catch::Contains("key=hidden"));
  CHECK_THAT(out, Catch::Contains("binary=read"));  // the one file it is shown
  CHECK_THAT(out, Catch::Contains("plant=no"));
  CHECK_THAT(out, Catch::Contains("tmp=yes"));
  if (*level == grader::isolation::full) CHECK_THAT(out, Catch::Contains("65534"));
  if (*level == grader::isolation::restricted && geteuid() == 0)  // a uid of its own
    CHECK_THAT(out, !Catch::Contains("\n0\n"));
  CHECK_THAT(out, !Catch::Contains("net=yes"));
  CHECK_FALSE(fs::exists(planted));
}

TEST_CASE("sandbox: a daemon started inside dies with it", "[sandbox]") {
  const auto level = level_to_test();
  if (!level) return;
  temp_dir dir;
  const fs::path binary = dir.path / "visible";
  std::ofstream(binary) << "x";
  // setsid + background loop: outside a pid namespace it would outlive the shell. The
  // marker's name is unique to this run, so a match in `ps` can only be the daemon.
  const std::string marker = "grader_daemon_" + std::to_string(getpid());
  inside(*level,
         "setsid sh -c 'while true; do sleep 1; done; : " + marker + "' & sleep 0.2; echo started",
         binary);
  std::this_thread::sleep_for(std::chrono::milliseconds(300));
  grader::run_options opts;
  const auto ps = grader::run_process({"ps", "-eo", "args"}, opts);
  CHECK_THAT(ps.output, !Catch::Contains(marker));
}

// The kernel exempts root's processes from RLIMIT_NPROC: a root grader must run the
// sandbox as another uid for the cap to bind (bwrap's uid 65534 is root outside
// otherwise). A shell dies at its first failed fork; the sleeps it started are counted.
TEST_CASE("sandbox: the process cap binds, for a root grader too", "[sandbox]") {
  const auto level = level_to_test();
  if (!level) return;
  temp_dir dir;
  fs::permissions(dir.path, fs::perms::owner_all | fs::perms::others_exec);
  const fs::path binary = dir.path / "visible";
  std::ofstream(binary) << "x";
  fs::permissions(binary, fs::perms::owner_read | fs::perms::others_read);
  const std::string out = inside(*level,
                                 "sh -c 'i=0; while [ $i -lt 200 ]; do sleep 5 & i=$((i+1)); "
                                 "echo $i > $HOME/started; done' 2>/dev/null;"
                                 "echo started=$(cat $HOME/started)",
                                 binary, 32);
  INFO(out);
  const auto at = out.find("started=");
  REQUIRE(at != std::string::npos);
  const int started = std::atoi(out.c_str() + at + 8);
  CHECK(started >= 5);  // the shell ran
  CHECK(started < 32);
}

TEST_CASE("sandbox: the restricted level denies namespaces, mounts and other processes",
          "[sandbox]") {
  if (const std::string why = grader::unavailable_reason(grader::isolation::restricted);
      !why.empty()) {
    WARN("restricted not run: " + why);
    return;
  }
  temp_dir dir;
  const std::string out =
      inside(grader::isolation::restricted,
             "unshare -U true 2>/dev/null && echo unshare=yes || echo unshare=no;"
             "mount -t tmpfs none /mnt 2>/dev/null && echo mount=yes || echo mount=no;"
             "kill -0 1 2>/dev/null && echo signal=yes || echo signal=no;"
             "cat /proc/1/environ >/dev/null 2>&1 && echo environ=yes || echo environ=no",
             dir.path);
  INFO(out);
  CHECK_THAT(out, Catch::Contains("unshare=no"));
  CHECK_THAT(out, Catch::Contains("mount=no"));
  CHECK_THAT(out, Catch::Contains("signal=no"));  // Landlock's scope, or another uid
  CHECK_THAT(out, Catch::Contains("environ=no"));
}

// Build tools outside /usr (ninja and cmake in a Python virtual environment, as on the
// course's GPU machines): show_tools finds what they need (the environment's prefix, the
// interpreter a link leads to) and a sandbox given that view runs them by name.
TEST_CASE("sandbox: build tools in a virtual environment run inside, by name", "[sandbox]") {
  temp_dir dir;
  const fs::path venv = dir.path / "venv", python = dir.path / "python";
  fs::create_directories(venv / "bin");
  fs::create_directories(python / "bin");
  fs::copy_file("/bin/sh", python / "bin" / "sh3");  // the "interpreter", outside the venv
  fs::create_symlink(python / "bin" / "sh3", venv / "bin" / "python");
  const fs::path tool = venv / "bin" / "mytool";
  std::ofstream(tool) << "#!" << (venv / "bin" / "python").string() << "\necho tool-ran\n";
  for (const fs::path& p : {dir.path, venv, venv / "bin", python, python / "bin"})
    fs::permissions(p, fs::perms::owner_all | fs::perms::group_exec | fs::perms::others_exec |
                           fs::perms::group_read | fs::perms::others_read);
  fs::permissions(tool, fs::perms::owner_all | fs::perms::others_read | fs::perms::others_exec |
                            fs::perms::group_read | fs::perms::group_exec);

  const grader::tool_view view = grader::show_tools({tool.string(), "/usr/bin/env"}, {});
  CHECK(view.folders == std::vector<fs::path>{venv, python});  // /usr is shown anyway
  CHECK(view.path == (venv / "bin").string() + ":/usr/bin:/bin");
  // A prefix that holds something hidden narrows to the program's own folder.
  CHECK(grader::show_tools({tool.string()}, {venv / "secret"}).folders ==
        std::vector<fs::path>{venv / "bin", python});
  CHECK(grader::show_tools({tool.string()}, {venv / "bin" / "secret"}).folders ==
        std::vector<fs::path>{python});

  const auto level = level_to_test();
  if (!level) return;
  auto run_inside = [&](bool with_view) {
    grader::confinement spec;
    grader::scratch_folder tmp;
    if (*level == grader::isolation::restricted) spec.tmp = tmp.path();
    if (with_view) {
      spec.read_only = view.folders;
      spec.env = {"PATH=" + view.path};
    }
    auto argv = grader::confine_command(*level, spec);
    argv.push_back("mytool");
    grader::run_options opts;
    opts.timeout = std::chrono::seconds(20);
    return grader::run_process(argv, opts);
  };
  INFO(grader::to_string(*level));
  const grader::run_result shown = run_inside(true);
  INFO(shown.output);
  CHECK(shown.ok());
  CHECK_THAT(shown.output, Catch::Contains("tool-ran"));
  CHECK_FALSE(run_inside(false).ok());  // the test can fail: by default it is not there
}

namespace {

// A sandbox at `level` whose program leaves a setsid() daemon (its command line holds
// `marker`) and waits, started below a parent of ours that does nothing else; then `stop`
// (given the parent's and the sandbox's pids) ends it. Whether the daemon is gone within
// 5 s: the kill reaches the namespace's processes a moment later (300 ms was not always
// enough on a loaded 2-core CI machine); a daemon handed to the process above runs forever.
bool daemon_goes(grader::isolation level, const std::string& marker,
                 const std::function<void(pid_t parent, pid_t box)>& stop) {
  temp_dir dir;
  const fs::path binary = dir.path / "visible";
  std::ofstream(binary) << "x";
  grader::confinement spec;
  spec.read_only = {binary};
  grader::scratch_folder tmp;
  if (level == grader::isolation::restricted) spec.tmp = tmp.path();
  auto argv = grader::confine_command(level, spec);
  argv.insert(argv.end(),
              {"/bin/sh", "-c",
               "setsid sh -c 'while true; do sleep 1; done; : " + marker + "' & sleep 30"});
  std::vector<char*> args;
  for (auto& a : argv) args.push_back(a.data());
  args.push_back(nullptr);
  int pipe_fds[2];
  REQUIRE(pipe(pipe_fds) == 0);
  const pid_t parent = fork();
  if (parent == 0) {  // its output nowhere: a surviving daemon would hold the test's pipes open
    const int null = open("/dev/null", O_RDWR);
    for (int fd = 0; fd < 3; ++fd) dup2(null, fd);
    const pid_t box = fork();
    if (box == 0) {
      close(pipe_fds[0]);
      close(pipe_fds[1]);
      execv(args[0], args.data());
      _exit(127);
    }
    (void)!write(pipe_fds[1], &box, sizeof box);
    waitpid(box, nullptr, 0);
    _exit(0);
  }
  REQUIRE(parent > 0);
  close(pipe_fds[1]);
  pid_t box = -1;
  (void)!read(pipe_fds[0], &box, sizeof box);
  close(pipe_fds[0]);
  grader::run_options opts;
  auto daemon_running = [&] {
    return grader::run_process({"ps", "-eo", "args"}, opts).output.find(marker) !=
           std::string::npos;
  };
  bool started = false;
  for (int i = 0; i < 100 && !(started = daemon_running()); ++i)
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  CHECK(started);
  stop(parent, box);
  waitpid(parent, nullptr, 0);
  bool gone = false;
  // 15 s: a loaded CI machine once still showed the daemon after 5 s (restricted level).
  for (int i = 0; i < 300 && !(gone = !daemon_running()); ++i)
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  if (!gone) {  // who is left, and under which parent and uid: the cause, for the next time
    const std::string ps =
        grader::run_process({"ps", "-eo", "pid,ppid,uid,stat,args"}, opts).output;
    std::string left;
    for (std::string_view line : grader::split_lines(ps))
      if (line.find(marker) != std::string_view::npos) left += std::string(line) + "\n";
    UNSCOPED_INFO("still running (pid ppid uid stat args):\n" << left);
  }
  grader::run_process({"pkill", "-f", marker}, opts);  // a failure leaves nothing behind
  return gone;
}

}  // namespace

TEST_CASE("sandbox: asked to stop, it still takes the daemons inside with it", "[sandbox]") {
  // The judge stops a compute process that will not end with SIGTERM: the sandbox must
  // kill what the program left running first, not hand it to the process above.
  const auto level = level_to_test();
  if (!level) return;
  INFO(grader::to_string(*level));  // which level let a daemon go, when one does
  const std::string marker = "grader_stopped_daemon_" + std::to_string(getpid()) + "_" +
                             std::string(grader::to_string(*level));
  CHECK(daemon_goes(*level, marker, [](pid_t, pid_t box) { kill(box, SIGTERM); }));
}

TEST_CASE("sandbox: its parent killed outright, it still takes the daemons inside with it",
          "[sandbox]") {
  // A judge killed at a limit: the sandbox it started must not run on for no one.
  const auto level = level_to_test();
  if (!level) return;
  INFO(grader::to_string(*level));
  const std::string marker = "grader_orphaned_daemon_" + std::to_string(getpid()) + "_" +
                             std::string(grader::to_string(*level));
  CHECK(daemon_goes(*level, marker, [](pid_t parent, pid_t) { kill(parent, SIGKILL); }));
}
