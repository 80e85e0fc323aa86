// The bubblewrap runner (see run.hpp): each test process in a sandbox that shows it only
// what a test needs. Probed once: where user namespaces are blocked the grader falls back
// to process_runner and the report says the code ran without isolation.
#include <filesystem>
#include <mutex>

#include "grader/base/files.hpp"
#include "grader/base/subprocess.hpp"
#include "grader/pipeline/run.hpp"

namespace grader {
namespace fs = std::filesystem;
namespace {

constexpr const char* kProcessLimit = "256";
constexpr const char* kFileLimit = "67108864";  // 64 MiB: per file written, and /tmp's size

// bwrap's options up to the command: a read-only view of the system's programs and
// libraries, the given paths (read-only or writable), nothing else of the host.
std::vector<std::string> bwrap_prefix(const std::vector<fs::path>& read_only,
                                      const std::vector<fs::path>& writable,
                                      const std::vector<std::string>& env) {
  std::vector<std::string> a = {
      "bwrap",
      "--unshare-all",  // network, pid, ipc, uts, cgroup, user
      "--uid",         "65534",         "--gid",    "65534",      "--die-with-parent",
      "--new-session", "--cap-drop",    "ALL",      "--clearenv", "--setenv",
      "PATH",          "/usr/bin:/bin", "--setenv", "HOME",       "/tmp",
      "--setenv",      "LANG",          "C.UTF-8",  "--ro-bind",  "/usr",
      "/usr"};
  for (const char* p : {"/bin", "/lib", "/lib64", "/lib32", "/etc/ld.so.cache", "/etc/ld.so.conf",
                        "/etc/ld.so.conf.d", "/etc/alternatives"})
    for (const std::string& s : {std::string("--ro-bind-try"), std::string(p), std::string(p)})
      a.push_back(s);
  for (const char* s : {"--proc", "/proc", "--dev", "/dev", "--size", kFileLimit, "--tmpfs", "/tmp",
                        "--chdir", "/tmp"})
    a.push_back(s);
  for (const auto& p : read_only)
    for (const std::string& s : {std::string("--ro-bind"), p.string(), p.string()}) a.push_back(s);
  for (const auto& p : writable)
    for (const std::string& s : {std::string("--bind"), p.string(), p.string()}) a.push_back(s);
  for (const auto& kv : env) {
    const auto eq = kv.find('=');
    for (const std::string& s : {std::string("--setenv"), kv.substr(0, eq), kv.substr(eq + 1)})
      a.push_back(s);
  }
  for (const std::string& s :
       {std::string("--"), std::string("/usr/bin/prlimit"), std::string("--nproc=") + kProcessLimit,
        std::string("--fsize=") + kFileLimit, std::string("--core=0"), std::string("--")})
    a.push_back(s);
  return a;
}

}  // namespace

std::string sandbox_runner::unavailable_reason() {
  static std::once_flag once;
  static std::string reason;
  std::call_once(once, [] {
    if (!on_path("bwrap")) {
      reason = "bubblewrap (bwrap) is not installed";
      return;
    }
    if (!on_path("/usr/bin/prlimit")) {
      reason = "prlimit (util-linux) is not installed";
      return;
    }
    run_options opts;
    opts.timeout = std::chrono::seconds(20);
    auto argv = bwrap_prefix({}, {}, {});
    argv.push_back("/bin/true");
    const run_result r = run_process(argv, opts);
    if (!r.ok())
      reason = "bubblewrap cannot start a sandbox here (" +
               std::string(trim_ascii(r.output.empty() ? r.describe() : r.output)) +
               "; user namespaces blocked?)";
  });
  return reason;
}

sandbox_runner::sandbox_runner(fs::path scratch)
    : scratch_(fs::absolute(scratch)), inner_(scratch_) {}

std::vector<std::string> sandbox_runner::confine(const fs::path& binary) const {
  return bwrap_prefix({fs::absolute(binary)}, {}, {});
}

tag_run sandbox_runner::run(const test_job& job, unsigned seed, const run_limits& limits) {
  std::error_code ec;
  fs::create_directories(scratch_, ec);
  test_job boxed = job;
  boxed.wrapper =
      bwrap_prefix({fs::absolute(job.binary)}, {fs::absolute(scratch_)}, sanitizer_environment());
  boxed.wrapper.insert(boxed.wrapper.end(), job.wrapper.begin(), job.wrapper.end());
  boxed.binary = fs::absolute(job.binary);
  return inner_.run(boxed, seed, limits);
}

}  // namespace grader
