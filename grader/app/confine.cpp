// grader-confine: the fallback sandbox, for machines where bubblewrap cannot start
// (user namespaces blocked, as on many Docker CI runners). It runs one program under
// rlimits, no_new_privs, a seccomp filter (no network sockets, no ptrace, no mounts or
// namespaces), Landlock where the kernel has it (files: an allowlist; no TCP; no signals
// or abstract sockets out of the sandbox), and, when started as root, a uid of its own
// with no capabilities. It stays outside as the supervisor: a subreaper that kills
// whatever the program leaves behind. The grader builds its command line
// (grader/base/sandbox.hpp); by hand:
//   grader-confine --ro /usr --ro /lib --tmp DIR --nproc 64 -- /bin/sh -c 'id'
//   grader-confine --probe      prints what this machine allows, exit 1 if too little
//   grader-confine --guard [--ro P] -- bwrap ...   only the supervisor's part, in front of
//                               bubblewrap (whose --die-with-parent lets the sandbox's init
//                               outlive a killed bwrap now and then), and as root a uid of
//                               its own for bwrap, which must reach the --ro/--rw paths
#include <fcntl.h>
#include <grp.h>
#include <linux/capability.h>
#include <linux/landlock.h>
#include <sched.h>
#include <seccomp.h>
#include <signal.h>
#include <sys/ioctl.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

namespace {

// Landlock's ABI grows by version; the constants past Debian 12's header are the
// kernel's (include/uapi/linux/landlock.h).
constexpr std::uint64_t fs_execute = 1ull << 0, fs_write_file = 1ull << 1, fs_read_file = 1ull << 2,
                        fs_read_dir = 1ull << 3, fs_refer = 1ull << 13, fs_truncate = 1ull << 14,
                        fs_ioctl_dev = 1ull << 15;
constexpr std::uint64_t net_bind_tcp = 1ull << 0, net_connect_tcp = 1ull << 1;
constexpr std::uint64_t scope_abstract_unix = 1ull << 0, scope_signal = 1ull << 1;

struct ruleset_attr {  // landlock_ruleset_attr as of ABI 6; shorter sizes for older ABIs
  std::uint64_t handled_access_fs, handled_access_net, scoped;
};

struct options {
  std::vector<std::string> read_only, writable, env;
  std::string tmp, cwd;
  rlim_t processes = 256, file_bytes = 64ull << 20, open_files = 256, address_space = 0,
         cpu_seconds = 0;
  bool probe = false, keep_uid = false, guard = false;
  char** program = nullptr;
};

[[noreturn]] void die(const std::string& what) {
  std::fprintf(stderr, "grader-confine: %s\n", what.c_str());
  std::_Exit(125);
}

[[noreturn]] void die_errno(const std::string& what) {
  die(what + ": " + std::strerror(errno));
}

int landlock_abi() {
  const long v = syscall(SYS_landlock_create_ruleset, nullptr, 0, LANDLOCK_CREATE_RULESET_VERSION);
  return v < 0 ? 0 : static_cast<int>(v);
}

std::uint64_t fs_rights(int abi) {
  std::uint64_t all = (1ull << 13) - 1;  // ABI 1: execute .. make_sym
  if (abi >= 2) all |= fs_refer;
  if (abi >= 3) all |= fs_truncate;
  if (abi >= 5) all |= fs_ioctl_dev;
  return all;
}

// A ruleset that allows reading the system's and `o.read_only`'s files, writing
// `o.writable`'s and the private folder's, and nothing else; -1 without Landlock.
int landlock_ruleset(const options& o, int abi) {
  if (abi == 0) return -1;
  const std::uint64_t all = fs_rights(abi);
  ruleset_attr attr{all, abi >= 4 ? net_bind_tcp | net_connect_tcp : 0,
                    abi >= 6 ? scope_abstract_unix | scope_signal : 0};
  const size_t size = abi >= 6   ? sizeof attr
                      : abi >= 4 ? 2 * sizeof(std::uint64_t)
                                 : sizeof(std::uint64_t);
  const int fd = static_cast<int>(syscall(SYS_landlock_create_ruleset, &attr, size, 0));
  if (fd < 0) die_errno("landlock_create_ruleset");
  const std::uint64_t file_only = fs_execute | fs_write_file | fs_read_file |
                                  (abi >= 3 ? fs_truncate : 0) | (abi >= 5 ? fs_ioctl_dev : 0);
  auto allow = [&](const std::string& path, std::uint64_t rights, bool optional) {
    const int p = open(path.c_str(), O_PATH | O_CLOEXEC);
    if (p < 0) {
      if (optional) return;
      die_errno("cannot open " + path);
    }
    struct stat st {};
    fstat(p, &st);
    landlock_path_beneath_attr rule{};
    rule.allowed_access = S_ISDIR(st.st_mode) ? rights & all : rights & file_only;
    rule.parent_fd = p;
    if (syscall(SYS_landlock_add_rule, fd, LANDLOCK_RULE_PATH_BENEATH, &rule, 0) != 0)
      die_errno("landlock_add_rule " + path);
    close(p);
  };
  const std::uint64_t read = fs_execute | fs_read_file | fs_read_dir;
  for (const char* p : {"/usr", "/bin", "/lib", "/lib64", "/lib32", "/etc/ld.so.cache",
                        "/etc/ld.so.conf", "/etc/ld.so.conf.d", "/etc/alternatives", "/proc"})
    allow(p, read, true);
  for (const char* p : {"/dev/null", "/dev/zero", "/dev/random", "/dev/urandom"})
    allow(p, fs_read_file | fs_write_file, true);
  for (const auto& p : o.read_only) allow(p, read, false);
  for (const auto& p : o.writable) allow(p, all, false);
  if (!o.tmp.empty()) allow(o.tmp, all, false);
  return fd;
}

// Denies what a test or a compiler never needs and an attack would: sockets other than
// Unix ones, mounts and namespaces, kernel keys, modules and BPF, and reading or writing
// other processes unless something else already keeps that inside the sandbox
// (`ptrace_contained`: Landlock, or a uid of its own); LeakSanitizer needs ptrace on its
// own threads. Other architectures' system calls (int 0x80) kill the process.
void load_seccomp(bool ptrace_contained) {
  scmp_filter_ctx ctx = seccomp_init(SCMP_ACT_ALLOW);
  if (!ctx) die("seccomp_init failed");
  auto deny = [&](int nr, int err) {
    if (nr != __NR_SCMP_ERROR && seccomp_rule_add(ctx, SCMP_ACT_ERRNO(err), nr, 0) != 0)
      die("seccomp_rule_add failed");
  };
  if (!ptrace_contained)
    for (const char* name : {"ptrace", "process_vm_readv", "process_vm_writev"})
      deny(seccomp_syscall_resolve_name(name), EPERM);
  for (const char* name : {"mount",
                           "umount2",
                           "pivot_root",
                           "chroot",
                           "unshare",
                           "setns",
                           "bpf",
                           "perf_event_open",
                           "keyctl",
                           "add_key",
                           "request_key",
                           "kexec_load",
                           "kexec_file_load",
                           "init_module",
                           "finit_module",
                           "delete_module",
                           "reboot",
                           "swapon",
                           "swapoff",
                           "acct",
                           "userfaultfd",
                           "open_by_handle_at",
                           "name_to_handle_at",
                           "fanotify_init",
                           "iopl",
                           "ioperm",
                           "quotactl",
                           "mount_setattr",
                           "move_mount",
                           "open_tree",
                           "fsopen",
                           "fsmount",
                           "fspick",
                           "io_uring_setup",
                           "io_uring_enter",
                           "io_uring_register",
                           "kcmp",
                           "pidfd_getfd"})
    deny(seccomp_syscall_resolve_name(name), EPERM);
  // clone3's flags sit in memory a filter cannot read: ENOSYS makes glibc use clone.
  deny(seccomp_syscall_resolve_name("clone3"), ENOSYS);
  // Namespaces: clone with any CLONE_NEW* flag.
  for (std::uint64_t flag : {CLONE_NEWUSER, CLONE_NEWNS, CLONE_NEWPID, CLONE_NEWNET, CLONE_NEWIPC,
                             CLONE_NEWUTS, CLONE_NEWCGROUP})
    if (seccomp_rule_add(ctx, SCMP_ACT_ERRNO(EPERM), SCMP_SYS(clone), 1,
                         SCMP_A0(SCMP_CMP_MASKED_EQ, flag, flag)) != 0)
      die("seccomp clone rule failed");
  if (seccomp_rule_add(ctx, SCMP_ACT_ERRNO(EACCES), SCMP_SYS(socket), 1,
                       SCMP_A0(SCMP_CMP_NE, AF_UNIX)) != 0 ||
      seccomp_rule_add(ctx, SCMP_ACT_ERRNO(EPERM), SCMP_SYS(ioctl), 1,
                       SCMP_A1(SCMP_CMP_MASKED_EQ, 0xffffffffu, TIOCSTI)) != 0)
    die("seccomp argument rules failed");
  if (seccomp_load(ctx) != 0) die("seccomp_load failed");
  seccomp_release(ctx);
}

// Root without its powers: every capability out of the bounding, ambient, inheritable,
// permitted and effective sets, so that execve cannot give them back.
void drop_capabilities() {
  for (int cap = 0; cap <= CAP_LAST_CAP; ++cap) prctl(PR_CAPBSET_DROP, cap, 0, 0, 0);
  prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0);
  __user_cap_header_struct header{_LINUX_CAPABILITY_VERSION_3, 0};
  __user_cap_data_struct data[2]{};
  if (syscall(SYS_capset, &header, data) != 0) die_errno("capset");
}

// A uid no account uses, unique among the running supervisors (it holds our pid): its
// processes count against RLIMIT_NPROC alone (the kernel exempts root's), and can signal
// nobody else's. 0 (root without capabilities) when that uid could not reach the program
// or its folders (a course under /root, say), with --keep-uid (a compiler writing into our
// tree), or, for bubblewrap (`needs_userns`), where that uid cannot make a user namespace.
uid_t own_uid(const options& o, bool needs_userns) {
  if (o.keep_uid) return 0;
  const uid_t uid = 0x40000000u + static_cast<uid_t>(getpid());
  const pid_t checker = fork();
  if (checker == 0) {
    bool ok = setgroups(0, nullptr) == 0 && setresgid(uid, uid, uid) == 0 &&
              setresuid(uid, uid, uid) == 0;
    const std::string program = o.program[0];
    ok = ok && (program.find('/') == std::string::npos || access(program.c_str(), X_OK) == 0);
    for (const auto& p : o.read_only) ok = ok && access(p.c_str(), R_OK) == 0;
    for (const auto& p : o.writable) ok = ok && access(p.c_str(), W_OK) == 0;
    ok = ok && (!needs_userns || unshare(CLONE_NEWUSER) == 0);
    std::_Exit(ok ? 0 : 1);
  }
  int status = 1;
  if (checker < 0 || waitpid(checker, &status, 0) < 0) return 0;
  return WIFEXITED(status) && WEXITSTATUS(status) == 0 ? uid : 0;
}

// Becomes `uid` (no-op for 0), or dies saying why.
void become(uid_t uid) {
  if (uid != 0 && (setgroups(0, nullptr) != 0 || setresgid(uid, uid, uid) != 0 ||
                   setresuid(uid, uid, uid) != 0))
    die_errno("cannot change to uid " + std::to_string(uid));
}

// The grader's pipes on fds 3 and 4 (test records, the compute protocol) are opened
// again by path (/dev/fd/3): that needs them to be the sandbox uid's.
void hand_pipes(uid_t uid) {
  for (int fd : {3, 4}) {
    struct stat st {};
    if (uid != 0 && fstat(fd, &st) == 0 && S_ISFIFO(st.st_mode)) fchown(fd, uid, uid);
  }
}

[[noreturn]] void run_child(const options& o, int abi, bool as_root, uid_t uid) {
  setsid();  // no controlling terminal to push input into
  prctl(PR_SET_PDEATHSIG, SIGKILL);
  const int ruleset = landlock_ruleset(o, abi);
  clearenv();
  setenv("PATH", "/usr/bin:/bin", 1);
  setenv("LANG", "C.UTF-8", 1);
  if (!o.tmp.empty()) {
    setenv("HOME", o.tmp.c_str(), 1);
    setenv("TMPDIR", o.tmp.c_str(), 1);
  }
  for (const auto& kv : o.env) putenv(const_cast<char*>(kv.c_str()));
  const std::string cwd = !o.cwd.empty() ? o.cwd : !o.tmp.empty() ? o.tmp : "/";
  if (chdir(cwd.c_str()) != 0) die_errno("cannot enter " + cwd);
  auto limit = [](int resource, rlim_t value) {
    const rlimit r{value, value};
    if (setrlimit(resource, &r) != 0) die_errno("setrlimit");
  };
  limit(RLIMIT_NPROC, o.processes);
  limit(RLIMIT_FSIZE, o.file_bytes);
  limit(RLIMIT_NOFILE, o.open_files);
  limit(RLIMIT_CORE, 0);
  if (o.address_space) limit(RLIMIT_AS, o.address_space);
  if (o.cpu_seconds) limit(RLIMIT_CPU, o.cpu_seconds);
  if (as_root) {
    become(uid);
    drop_capabilities();
  }
  if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0) die_errno("no_new_privs");
  if (ruleset >= 0) {
    if (syscall(SYS_landlock_restrict_self, ruleset, 0) != 0) die_errno("landlock_restrict_self");
    close(ruleset);
  }
  syscall(SYS_close_range, 5u, ~0u, 0u);  // 0-2, and the grader's pipes on 3 and 4
  const bool ptrace_contained = ruleset >= 0 || uid != 0;
  if (!ptrace_contained) {  // LeakSanitizer cannot stop its threads without ptrace
    const char* asan = std::getenv("ASAN_OPTIONS");
    const std::string options = std::string(asan ? asan : "") + ":detect_leaks=0";
    setenv("ASAN_OPTIONS", options.c_str(), 1);
  }
  load_seccomp(ptrace_contained);
  execvp(o.program[0], o.program);
  std::fprintf(stderr, "grader-confine: cannot run %s: %s\n", o.program[0], std::strerror(errno));
  std::_Exit(127);
}

// Asked to stop (SIGTERM, SIGINT, SIGHUP), we kill the program and still clear up what it
// left: killed outright, we would hand those orphans to whoever is above us.
volatile pid_t program_pid = 0;
void on_stop_request(int) {
  if (program_pid > 0) kill(program_pid, SIGKILL);
}

// The stop requests are held from before the fork until their handler knows the program
// (one that came between would kill us alone); the child lets them through again.
constexpr int kStopSignals[] = {SIGTERM, SIGINT, SIGHUP};
void hold_stop_requests(bool hold) {
  sigset_t set;
  sigemptyset(&set);
  for (const int sig : kStopSignals) sigaddset(&set, sig);
  sigprocmask(hold ? SIG_BLOCK : SIG_UNBLOCK, &set, nullptr);
}

// Our parent's death is a stop request too: a judge killed outright would otherwise leave
// us running the sandbox for no one. Called while the requests are held.
void stop_with_parent(pid_t parent) {
  prctl(PR_SET_PDEATHSIG, SIGTERM);
  if (getppid() != parent) raise(SIGTERM);  // it died before the prctl
}

// Our children: the program, and (we are a subreaper) whatever it left behind.
std::vector<pid_t> children() {
  std::vector<pid_t> out;
  std::ifstream in("/proc/self/task/" + std::to_string(getpid()) + "/children");
  for (pid_t p; in >> p;) out.push_back(p);
  return out;
}

void kill_leftovers(uid_t uid) {
  if (uid != 0) {  // everything of the run's own uid, wherever it went
    if (const pid_t killer = fork(); killer == 0) {
      if (setresuid(uid, uid, uid) == 0) kill(-1, SIGKILL);
      std::_Exit(0);
    } else if (killer > 0) {
      waitpid(killer, nullptr, 0);
    }
  }
  for (int round = 0; round < 100; ++round) {
    const auto left = children();
    if (left.empty()) break;
    for (pid_t p : left) kill(p, SIGKILL);
    while (waitpid(-1, nullptr, 0) > 0) {
    }
  }
}

options parse(int argc, char** argv) {
  options o;
  auto number = [](const char* s) { return static_cast<rlim_t>(std::strtoull(s, nullptr, 10)); };
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--") {
      o.program = argv + i + 1;
      break;
    }
    if (a == "--probe" || a == "--keep-uid" || a == "--guard") {
      (a == "--probe" ? o.probe : a == "--guard" ? o.guard : o.keep_uid) = true;
      continue;
    }
    if (i + 1 >= argc) die("missing value for " + a);
    const char* v = argv[++i];
    if (a == "--ro")
      o.read_only.push_back(v);
    else if (a == "--rw")
      o.writable.push_back(v);
    else if (a == "--env")
      o.env.push_back(v);
    else if (a == "--tmp")
      o.tmp = v;
    else if (a == "--chdir")
      o.cwd = v;
    else if (a == "--nproc")
      o.processes = number(v);
    else if (a == "--fsize")
      o.file_bytes = number(v);
    else if (a == "--nofile")
      o.open_files = number(v);
    else if (a == "--as")
      o.address_space = number(v);
    else if (a == "--cpu")
      o.cpu_seconds = number(v);
    else
      die("unknown option " + a);
  }
  if (!o.probe && (!o.program || !o.program[0]))
    die("usage: grader-confine [options] -- program [args]");
  return o;
}

// Waits for the program, asked to stop or not, then kills what it left (our children, we
// being a subreaper, and with a uid of its own everything of that uid), and ends as it did.
int supervise(pid_t child, uid_t uid) {
  program_pid = child;
  struct sigaction stop_request {};
  stop_request.sa_handler = on_stop_request;
  for (const int sig : kStopSignals) sigaction(sig, &stop_request, nullptr);
  hold_stop_requests(false);
  int status = 0;
  while (waitpid(child, &status, 0) < 0 && errno == EINTR) {
  }
  kill_leftovers(uid);
  if (WIFSIGNALED(status)) {  // die the same way, so the grader's verdict names the signal
    signal(WTERMSIG(status), SIG_DFL);
    kill(getpid(), WTERMSIG(status));
  }
  return WIFEXITED(status) ? WEXITSTATUS(status) : 125;
}

// Starts `in_child` (it never returns) as our one child, a subreaper's, with the stop
// requests and our parent's death handled, and supervises it until it ends.
template <class Child>
int run_supervised(pid_t parent, uid_t uid, Child&& in_child) {
  if (prctl(PR_SET_CHILD_SUBREAPER, 1) != 0) die_errno("subreaper");
  hold_stop_requests(true);
  stop_with_parent(parent);
  const pid_t child = fork();
  if (child < 0) die_errno("fork");
  if (child == 0) {
    hold_stop_requests(false);
    in_child();
  }
  return supervise(child, uid);
}

// --guard: the program (bwrap) runs as given; as root, under a uid of its own where that
// can make bubblewrap's user namespace, so that prlimit's process cap binds inside (the
// sandbox's uid 65534 is root outside otherwise). Killed or not, the sandbox's init it
// leaves is reparented to us, and killing that init ends its whole pid namespace.
int guard(const options& o, pid_t parent) {
  const uid_t uid = geteuid() == 0 ? own_uid(o, true) : 0;
  hand_pipes(uid);
  return run_supervised(parent, uid, [&o, uid] {
    become(uid);
    prctl(PR_SET_PDEATHSIG, SIGKILL);  // after the uid change, which clears it
    execvp(o.program[0], o.program);
    std::fprintf(stderr, "grader-confine: cannot run %s: %s\n", o.program[0], std::strerror(errno));
    std::_Exit(127);
  });
}

}  // namespace

int main(int argc, char** argv) {
  const pid_t parent = getppid();
  const options o = parse(argc, argv);
  if (o.guard) return guard(o, parent);
  const int abi = landlock_abi();
  const bool as_root = geteuid() == 0;
  if (o.probe) {  // one line for the report: what this level holds here
    std::printf("seccomp, no_new_privs, rlimits, %s, %s\n",
                abi ? ("Landlock ABI " + std::to_string(abi)).c_str()
                    : "no Landlock (files readable by every user are visible)",
                as_root ? "a uid of its own" : "the grader's uid");
    return 0;
  }
  const uid_t uid = as_root ? own_uid(o, false) : 0;
  if (!o.tmp.empty() && uid != 0 &&
      (chown(o.tmp.c_str(), uid, uid) != 0 || chmod(o.tmp.c_str(), 0700) != 0))
    die_errno("cannot hand " + o.tmp + " to the sandbox");
  hand_pipes(uid);
  const rlimit no_core{0, 0};
  setrlimit(RLIMIT_CORE, &no_core);
  return run_supervised(parent, uid, [&] { run_child(o, abi, as_root, uid); });
}
