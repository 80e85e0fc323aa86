// Sandbox command lines, bubblewrap's and grader-confine's, and what each level can do
// here (see sandbox.hpp).
#include "grader/base/sandbox.hpp"

#include <unistd.h>

#include <algorithm>
#include <array>
#include <fstream>
#include <mutex>
#include <set>
#include <sstream>
#include <utility>

#include "grader/base/files.hpp"
#include "grader/base/subprocess.hpp"

namespace grader {
namespace fs = std::filesystem;

namespace {

// grader-confine sits beside the program that uses it (build/bin, or an install's bin).
fs::path confine_helper() {
  std::error_code ec;
  const fs::path self = fs::read_symlink("/proc/self/exe", ec);
  return ec ? fs::path("grader-confine") : self.parent_path() / "grader-confine";
}

// Runs a level's prefix around /bin/true: "" when it works, else why not.
std::string probe(isolation level) {
  run_options opts;
  opts.timeout = std::chrono::seconds(20);
  auto argv = confine_command(level, {});
  argv.push_back("/bin/true");
  const run_result r = run_process(argv, opts);
  return r.ok() ? "" : std::string(trim_ascii(r.output.empty() ? r.describe() : r.output));
}

}  // namespace

namespace {

// Inside a folder that every level shows (bwrap's --ro-bind list, grader-confine's
// Landlock rules): nothing more to show.
bool shown_anyway(const fs::path& p) {
  for (const char* root : {"/usr", "/bin", "/lib", "/lib64", "/lib32"}) {
    const auto rel = p.lexically_relative(root);
    if (!rel.empty() && *rel.begin() != "..") return true;
  }
  return false;
}

bool holds(const fs::path& folder, const fs::path& p) {
  const auto rel = p.lexically_relative(folder);
  return !rel.empty() && *rel.begin() != "..";
}

// A script's interpreter: "#!/path/python3 -E" or "#!/usr/bin/env python3".
std::string interpreter_of(const fs::path& file) {
  std::ifstream in(file, std::ios::binary);
  char head[2] = {};
  if (!in.read(head, 2) || head[0] != '#' || head[1] != '!') return {};
  std::string line;
  std::getline(in, line);
  std::istringstream words(line);
  std::string first, second;
  words >> first >> second;
  if (fs::path(first).filename() == "env" && !second.empty()) return find_program(second);
  return first;
}

}  // namespace

tool_view show_tools(const std::vector<std::string>& programs,
                     const std::vector<fs::path>& hidden) {
  tool_view view;
  std::vector<std::string> bins;
  std::set<fs::path> seen;
  auto show = [&](const fs::path& folder) {
    if (folder.empty() || folder == "/" || shown_anyway(folder)) return;
    if (std::find(view.folders.begin(), view.folders.end(), folder) == view.folders.end())
      view.folders.push_back(folder);
  };
  auto reveals = [&](const fs::path& folder) {
    return std::any_of(hidden.begin(), hidden.end(), [&](const fs::path& h) {
      return folder == h || holds(folder, h) || folder == fs::path("/");
    });
  };
  // A program, the file it links to, and its interpreter (a few levels: env -> python).
  auto visit = [&](auto&& self, const fs::path& program, int depth) -> void {
    if (program.empty() || depth > 3 || !seen.insert(program).second) return;
    std::error_code ec;
    const fs::path real = fs::canonical(program, ec);
    for (const fs::path& p : {program, ec ? program : real}) {
      const fs::path bin = p.parent_path();
      const fs::path prefix = bin.filename() == "bin" ? bin.parent_path() : bin;
      show(!reveals(prefix) ? prefix : !reveals(bin) ? bin : fs::path());
    }
    const std::string bin = program.parent_path().string();
    if (!shown_anyway(program) && std::find(bins.begin(), bins.end(), bin) == bins.end())
      bins.push_back(bin);
    self(self, interpreter_of(ec ? program : real), depth + 1);
  };
  for (const std::string& p : programs) {
    const std::string found = find_program(p);  // a bare name is looked up on PATH
    if (!found.empty()) visit(visit, fs::path(found).lexically_normal(), 0);
  }
  for (const std::string& b : bins) view.path += b + ":";
  view.path += "/usr/bin:/bin";
  return view;
}

// Each level's name, read both ways.
constexpr std::pair<isolation, std::string_view> kIsolationNames[] = {
    {isolation::none, "none"}, {isolation::restricted, "restricted"}, {isolation::full, "full"}};

std::string_view to_string(isolation level) {
  for (const auto& [l, name] : kIsolationNames)
    if (l == level) return name;
  return "none";
}

std::optional<isolation> isolation_named(std::string_view name) {
  for (const auto& [l, n] : kIsolationNames)
    if (n == name) return l;
  return std::nullopt;
}

std::vector<std::string> bwrap_command(const confinement& spec) {
  std::vector<std::string> a;
  auto add = [&a](std::initializer_list<std::string> args) {
    a.insert(a.end(), args.begin(), args.end());
  };
  // grader-confine --guard in front: a killed bwrap now and then leaves the sandbox's init
  // running (its --die-with-parent races); the guard kills that init, and with it the
  // sandbox's pid namespace. bwrap itself starts with an empty environment: inside,
  // /proc/1/environ is its own.
  // (A grader built without libseccomp has no grader-confine: bwrap alone then.)
  // As root, the guard runs bwrap under a uid of its own when that uid can read what the
  // sandbox shows: the kernel exempts root's processes from prlimit's --nproc.
  if (const fs::path guard = confine_helper(); fs::exists(guard)) {
    add({guard.string(), "--guard"});
    if (spec.keep_uid) add({"--keep-uid"});
    for (const auto& p : spec.read_only) add({"--ro", p.string()});
    for (const auto& p : spec.writable) add({"--rw", p.string()});
    add({"--"});
  }
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

std::vector<std::string> restricted_command(const confinement& spec) {
  std::vector<std::string> a = {confine_helper().string()};
  auto add = [&a](std::initializer_list<std::string> args) {
    a.insert(a.end(), args.begin(), args.end());
  };
  for (const auto& p : spec.read_only) add({"--ro", p.string()});
  for (const auto& p : spec.writable) add({"--rw", p.string()});
  for (const auto& kv : spec.env) add({"--env", kv});
  if (!spec.tmp.empty()) add({"--tmp", spec.tmp.string()});
  if (!spec.cwd.empty()) add({"--chdir", spec.cwd.string()});
  if (spec.keep_uid) add({"--keep-uid"});
  add({"--nproc", std::to_string(spec.processes), "--fsize", std::to_string(spec.file_bytes),
       "--nofile", std::to_string(spec.open_files)});
  if (spec.address_space) add({"--as", std::to_string(spec.address_space)});
  if (spec.cpu_seconds) add({"--cpu", std::to_string(spec.cpu_seconds)});
  add({"--"});
  return a;
}

std::vector<std::string> confine_command(isolation level, const confinement& spec) {
  switch (level) {
    case isolation::full:
      return bwrap_command(spec);
    case isolation::restricted:
      return restricted_command(spec);
    case isolation::none:
      break;
  }
  return {};
}

// Each level is probed once, when first asked about: where bubblewrap works, a grade
// never starts grader-confine's probe (20 ms of every re-grade).
std::string unavailable_reason(isolation level) {
  static std::array<std::once_flag, 3> once;
  static std::array<std::string, 3> reasons;
  const int i = static_cast<int>(level);
  std::call_once(once[i], [level, &why = reasons[i]] {
    if (level == isolation::full) {
      if (!on_path("bwrap"))
        why = "bubblewrap (bwrap) is not installed";
      else if (!on_path("/usr/bin/prlimit"))
        why = "prlimit (util-linux) is not installed";
      else if (const std::string failed = probe(isolation::full); !failed.empty())
        why = "bubblewrap cannot start a sandbox here (" + failed + "; user namespaces blocked?)";
    } else if (level == isolation::restricted) {
      if (!fs::exists(confine_helper()))
        why = "grader-confine is not beside the grader (" + confine_helper().string() + ")";
      else if (const std::string failed = probe(isolation::restricted); !failed.empty())
        why = "grader-confine cannot start here (" + failed + ")";
    }
  });
  return reasons[i];
}

std::string isolation_detail(isolation level) {
  if (level == isolation::full)
    return "bubblewrap: its own user, pid, network and IPC namespaces, uid 65534, no course files";
  if (level == isolation::none) return "";
  static std::once_flag once;
  static std::string detail;
  std::call_once(once, [] {
    run_options opts;
    opts.timeout = std::chrono::seconds(20);
    const run_result r = run_process({confine_helper().string(), "--probe"}, opts);
    detail = "grader-confine: " + std::string(trim_ascii(r.output));
  });
  return detail;
}

isolation strongest_isolation() {
  for (isolation l : {isolation::full, isolation::restricted})
    if (unavailable_reason(l).empty()) return l;
  return isolation::none;
}

}  // namespace grader
