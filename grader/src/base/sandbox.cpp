// bubblewrap command lines (see sandbox.hpp).
#include "grader/base/sandbox.hpp"

#include <mutex>

#include "grader/base/files.hpp"
#include "grader/base/subprocess.hpp"

namespace grader {
namespace fs = std::filesystem;

std::vector<std::string> bwrap_command(const confinement& spec) {
  std::vector<std::string> a;
  auto add = [&a](std::initializer_list<std::string> args) {
    a.insert(a.end(), args.begin(), args.end());
  };
  // bwrap itself starts with an empty environment: inside, /proc/1/environ is its own.
  add({"/usr/bin/env", "-i", "PATH=/usr/bin:/bin", "bwrap"});
  add({"--unshare-all"});  // network, pid, ipc, uts, cgroup, user
  add({"--uid", "65534", "--gid", "65534", "--die-with-parent", "--new-session"});
  add({"--cap-drop", "ALL", "--clearenv"});
  add({"--setenv", "PATH", "/usr/bin:/bin", "--setenv", "HOME", "/tmp"});
  add({"--setenv", "LANG", "C.UTF-8", "--ro-bind", "/usr", "/usr"});
  for (const char* p : {"/bin", "/lib", "/lib64", "/lib32", "/etc/ld.so.cache", "/etc/ld.so.conf",
                        "/etc/ld.so.conf.d", "/etc/alternatives"})
    add({"--ro-bind-try", p, p});
  add({"--proc", "/proc", "--dev", "/dev", "--size", std::to_string(spec.tmp_bytes), "--tmpfs",
       "/tmp"});
  for (const auto& p : spec.read_only) add({"--ro-bind", p.string(), p.string()});
  for (const auto& p : spec.writable) add({"--bind", p.string(), p.string()});
  for (const auto& p : spec.hidden) add({"--tmpfs", p.string(), "--remount-ro", p.string()});
  add({"--chdir", spec.cwd.empty() ? std::string("/tmp") : spec.cwd.string()});
  for (const auto& kv : spec.env) {
    const auto eq = kv.find('=');
    add({"--setenv", kv.substr(0, eq), kv.substr(eq + 1)});
  }
  add({"--", "/usr/bin/prlimit", "--nproc=" + std::to_string(spec.processes),
       "--fsize=" + std::to_string(spec.file_bytes), "--core=0",
       "--nofile=" + std::to_string(spec.open_files)});
  if (spec.address_space) add({"--as=" + std::to_string(spec.address_space)});
  if (spec.cpu_seconds) add({"--cpu=" + std::to_string(spec.cpu_seconds)});
  add({"--"});
  return a;
}

std::string bwrap_unavailable_reason() {
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
    auto argv = bwrap_command({});
    argv.push_back("/bin/true");
    const run_result r = run_process(argv, opts);
    if (!r.ok())
      reason = "bubblewrap cannot start a sandbox here (" +
               std::string(trim_ascii(r.output.empty() ? r.describe() : r.output)) +
               "; user namespaces blocked?)";
  });
  return reason;
}

}  // namespace grader
