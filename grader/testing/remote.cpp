// The two sides of a remote call (course/remote.hpp): the judge's client, which starts
// the compute process and checks everything it sends back, and the compute process's
// loop. The wire format is private to this file: length-prefixed native-endian fields.
#include "course/remote.hpp"

#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <set>
#include <string_view>

#include "course/alloc_count.hpp"
#include "course/blank.hpp"
#include "remote_memory.hpp"

namespace course::remote {
namespace {

enum class status : std::uint8_t { ok = 0, blank = 1, exception = 2 };
constexpr std::uint32_t kMagic = 0x43524d31;  // "CRM1": one reply
constexpr std::size_t kMaxText = 4096;        // a blank's name or an exception's message
constexpr int kRequestFd = 3, kReplyFd = 4;   // the compute process's protocol fds
constexpr std::uint64_t kMaxFloats = std::uint64_t{1} << 30;
constexpr std::uint32_t kMaxRequestBytes = 1u << 20, kMaxReplyBytes = 64u << 20;  // exchange
// Resident memory a call of correct code adds beyond its heap, measured (docs/grader.md).
constexpr std::uint64_t kResidentSlack = std::uint64_t{1} << 20;

// Whole reads and writes; false at EOF or on an error.
bool write_all(int fd, const void* data, std::size_t n) {
  const char* p = static_cast<const char*>(data);
  while (n > 0) {
    const ssize_t w = ::write(fd, p, n);
    if (w < 0 && errno == EINTR) continue;
    if (w <= 0) return false;
    p += w;
    n -= static_cast<std::size_t>(w);
  }
  return true;
}
bool read_all(int fd, void* data, std::size_t n) {
  char* p = static_cast<char*>(data);
  while (n > 0) {
    const ssize_t r = ::read(fd, p, n);
    if (r < 0 && errno == EINTR) continue;
    if (r <= 0) return false;
    p += r;
    n -= static_cast<std::size_t>(r);
  }
  return true;
}

template <class T>
bool put(int fd, T v) {
  return write_all(fd, &v, sizeof v);
}
template <class T>
bool get(int fd, T& v) {
  return read_all(fd, &v, sizeof v);
}
bool put_text(int fd, std::string_view s) {
  s = s.substr(0, kMaxText);
  return put(fd, static_cast<std::uint32_t>(s.size())) && write_all(fd, s.data(), s.size());
}
bool get_text(int fd, std::string& s, std::uint32_t most = kMaxText) {
  std::uint32_t n = 0;
  if (!get(fd, n) || n > most) return false;
  s.resize(n);
  return read_all(fd, s.data(), n);
}
// An exchange's bytes: never cut short (a truncated record would parse as another).
bool put_bytes(int fd, std::string_view s) {
  return put(fd, static_cast<std::uint32_t>(s.size())) && write_all(fd, s.data(), s.size());
}

// ---- judge side --------------------------------------------------------------------

struct compute_process {
  pid_t pid = -1;
  int to = -1, from = -1;

  // How it ended, once it has (reaped here), for the failure message.
  std::string ending() {
    if (pid < 0) return "it never started";
    int st = 0;
    pid_t r;
    for (int i = 0; i < 200 && (r = waitpid(pid, &st, WNOHANG)) == 0; ++i) usleep(5000);
    if (r != pid && waitpid(pid, &st, 0) != pid) return "it stopped answering";
    pid = -1;
    if (WIFSIGNALED(st)) {
      const char* name = sigabbrev_np(WTERMSIG(st));
      return name ? std::string("killed by SIG") + name
                  : "killed by signal " + std::to_string(WTERMSIG(st));
    }
    const int code = WEXITSTATUS(st);
    if (code == 86) return "a sanitizer stopped it (exit code 86; its report is in the output)";
    return "it exited with code " + std::to_string(code) +
           (code == 0 ? ": the student's code ended the process" : "");
  }
  void close_pipes() {
    if (to >= 0) ::close(to);
    if (from >= 0) ::close(from);
    to = from = -1;
  }
  // Asked first (SIGTERM): grader-confine then kills the program and clears what it left
  // running, which SIGKILL would hand to whoever is above the judge; killed after 1 s.
  void stop() {
    close_pipes();
    if (pid <= 0) return;
    ::kill(pid, SIGTERM);
    for (int i = 0; i < 1000; ++i) {
      if (waitpid(pid, nullptr, WNOHANG) == pid) {
        pid = -1;
        return;
      }
      usleep(1000);
    }
    ::kill(pid, SIGKILL);
    waitpid(pid, nullptr, 0);
    pid = -1;
  }
  // Ends a process that answered in protocol as the judge's own exit would: its requests
  // end (EOF), so serve() returns and the sandbox around it clears what the student's code
  // left running (grader-confine cannot, once killed); killed after 2 s all the same.
  void finish() {
    close_pipes();
    for (int i = 0; pid > 0 && i < 2000; ++i) {
      if (waitpid(pid, nullptr, WNOHANG) == pid) {
        pid = -1;
        return;
      }
      usleep(1000);
    }
    stop();
  }
  // The judge's exit waits for it too: the grader kills the judge's process group once the
  // judge has gone, and grader-confine, still clearing up in that group, must not be in it.
  compute_process() = default;
  compute_process(const compute_process&) = delete;
  compute_process& operator=(const compute_process&) = delete;
  ~compute_process() { finish(); }
};

compute_process& current() {
  static compute_process p;
  return p;
}

// The compute process's command line; `measured`: the one whose memory the judge measures.
// Where the grader gave none (an unconfined run, which inherits this environment), the plain
// one under env(1), its AddressSanitizer keeping no freed blocks aside.
std::vector<std::string> compute_command(bool measured) {
  const char* spec = measured ? std::getenv(protocol::compute_measured_variable) : nullptr;
  std::vector<std::string> argv;
  if (measured && (!spec || !*spec)) {
    const char* asan = std::getenv("ASAN_OPTIONS");
    argv = {"/usr/bin/env", std::string("ASAN_OPTIONS=") +
                                (asan && *asan ? std::string(asan) + ":" : "") +
                                "quarantine_size_mb=0:thread_local_quarantine_size_kb=0"};
  }
  if (!spec || !*spec) spec = std::getenv(compute_variable);
  if (!spec || !*spec)
    throw compute_failed(std::string(compute_variable) +
                         " is not set: a judge binary runs only under the grader's marking mode");
  std::string_view s(spec);
  for (std::size_t start = 0;;) {
    const std::size_t end = s.find('\x1f', start);
    argv.emplace_back(s.substr(start, end - start));
    if (end == std::string_view::npos) break;
    start = end + 1;
  }
  return argv;
}

void start(compute_process& p, bool measured) {
  const std::vector<std::string> argv = compute_command(measured);
  int request[2], reply[2];
  if (pipe2(request, O_CLOEXEC) != 0) throw compute_failed("cannot create a pipe");
  if (pipe2(reply, O_CLOEXEC) != 0) {
    ::close(request[0]);
    ::close(request[1]);
    throw compute_failed("cannot create a pipe");
  }
  std::vector<char*> args;
  for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  const pid_t pid = fork();
  if (pid == 0) {
    // The protocol on fds 3 (requests) and 4 (replies); stdin reads nothing and stdout
    // goes to stderr, so what the student's code prints (even from a static
    // constructor, before serve()) never mixes with the replies.
    const int in = fcntl(request[0], F_DUPFD_CLOEXEC, 10),
              out = fcntl(reply[1], F_DUPFD_CLOEXEC, 10);
    if (in < 0 || out < 0 || dup2(in, kRequestFd) < 0 || dup2(out, kReplyFd) < 0) _exit(127);
    const int null = open("/dev/null", O_RDONLY);
    if (null >= 0) dup2(null, 0);
    dup2(2, 1);
    close_range(kReplyFd + 1, ~0U, 0);  // the judge's records pipe above all
    execvp(args[0], args.data());
    _exit(127);
  }
  ::close(request[0]);
  ::close(reply[1]);
  if (pid < 0) {
    ::close(request[1]);
    ::close(reply[0]);
    throw compute_failed("cannot start the compute process");
  }
  p.pid = pid;  // fields one by one: a temporary compute_process would finish() on its way out
  p.to = request[1];
  p.from = reply[0];
}

// Throws compute_failed with the process's ending, and forgets it (the next call
// starts a new one).
[[noreturn]] void died(compute_process& p, const char* during) {
  p.close_pipes();
  const std::string why = p.ending();
  p.stop();
  throw compute_failed(std::string(protocol::compute_failure_prefix) +
                       "ended without sending its outputs (" + during + "; " + why + ")");
}

[[noreturn]] void malformed(compute_process& p, const std::string& what) {
  p.stop();
  throw compute_failed(std::string(protocol::compute_failure_prefix) +
                       "answered out of protocol: " + what);
}

// The heap a call's resident peak in the compute process stands for: less the arrays it
// was handed (the caller's own in one process) and their sanitizer shadow (an eighth),
// and less the resident memory's own overhead (pages, the allocator's regions), so that
// what is left compares with course_alloc_count's exact figure.
std::uint64_t heap_of_resident(std::uint64_t resident, const std::vector<array_ref>& arrays) {
  std::uint64_t shipped = 0;
  for (const array_ref& a : arrays) shipped += a.count * sizeof(float);
  const std::uint64_t overhead = shipped + shipped / 8 + kResidentSlack;
  return resident > overhead ? resident - overhead : 0;
}

// A request for no function: once its answer is in, the process has started, run its
// static constructors and waits in serve(), so what it holds is its idle level.
void ping(compute_process& p) {
  const bool sent = put_text(p.to, "") && put(p.to, std::uint32_t{0}) &&
                    put(p.to, std::uint32_t{0}) && put_bytes(p.to, "");
  if (!sent) died(p, "while starting");
  std::uint32_t magic = 0;
  std::uint8_t st = 0;
  std::string text;
  if (!get(p.from, magic) || !get(p.from, st) || !get_text(p.from, text)) died(p, "while starting");
  if (magic != kMagic || st != static_cast<std::uint8_t>(status::exception))
    malformed(p, "an answer to a request for no function");
}

// Blank names outlive the exception (unfilled_blank keeps a const char*).
const char* interned(const std::string& name) {
  static std::set<std::string> names;
  return names.insert(name).first->c_str();
}

}  // namespace

void call(const char* function, std::initializer_list<std::int64_t> ints,
          std::initializer_list<array_ref> arrays) {
  exchange none;
  call(function, std::vector<std::int64_t>(ints), std::vector<array_ref>(arrays), none);
}

void call(const char* function, const std::vector<std::int64_t>& ints,
          const std::vector<array_ref>& arrays, exchange& x) {
  if (x.request.size() > kMaxRequestBytes)
    throw std::length_error("remote::call: request too large");
  x.reply.clear();
  signal(SIGPIPE, SIG_IGN);  // a dead compute process shows up as a failed write
  compute_process& p = current();
  // With an alloc_scope open, the caller asks for the call's peak memory: measured here,
  // from /proc, in a fresh process (memory an earlier call freed and the process kept
  // resident would hide this call's growth), never taken from its reply.
  const bool measured = alloc_scope_open();
  memory_watch watch;
  if (measured) {
    p.finish();
    start(p, true);
    ping(p);
    watch.start(p.pid);
  } else if (p.pid < 0) {
    start(p, false);
  }
  bool sent = put_text(p.to, function) && put(p.to, static_cast<std::uint32_t>(ints.size()));
  for (std::int64_t v : ints) sent = sent && put(p.to, v);
  sent = sent && put(p.to, static_cast<std::uint32_t>(arrays.size()));
  for (const array_ref& a : arrays)
    sent = sent && put(p.to, static_cast<std::uint64_t>(a.count)) &&
           write_all(p.to, a.data, a.count * sizeof(float));
  sent = sent && put_bytes(p.to, x.request);
  if (!sent) died(p, "while receiving its inputs");

  std::uint32_t magic = 0;
  std::uint8_t st = 0;
  if (!get(p.from, magic) || !get(p.from, st)) died(p, "before answering");
  if (magic != kMagic) malformed(p, "a reply must start with the protocol's mark");
  if (st == static_cast<std::uint8_t>(status::blank) ||
      st == static_cast<std::uint8_t>(status::exception)) {
    std::string text;
    if (!get_text(p.from, text)) died(p, "while reporting an exception");
    if (st == static_cast<std::uint8_t>(status::blank)) throw unfilled_blank(interned(text));
    throw std::runtime_error(text);
  }
  if (st != static_cast<std::uint8_t>(status::ok)) malformed(p, "unknown status");
  std::uint32_t n = 0;
  if (!get(p.from, n)) died(p, "while sending its outputs");
  if (n != arrays.size()) malformed(p, "wrong number of arrays");
  for (const array_ref& a : arrays) {
    std::uint64_t count = 0;
    if (!get(p.from, count)) died(p, "while sending its outputs");
    if (count != a.count) malformed(p, "an array of the wrong size");
    // The judge's own buffer, which the student's function was handed.
    if (!read_all(p.from, const_cast<float*>(a.data), a.count * sizeof(float)))
      died(p, "while sending its outputs");
  }
  std::uint64_t claimed_peak = 0, allocations = 0;  // the process's own word: not used
  if (!get(p.from, claimed_peak) || !get(p.from, allocations)) died(p, "while sending its outputs");
  if (!get_text(p.from, x.reply, kMaxReplyBytes)) died(p, "while sending its outputs");
  if (measured) {
    std::string why;
    const std::uint64_t peak = watch.peak_above(p.pid, why);
    if (!why.empty()) {
      p.finish();
      throw compute_failed(std::string(protocol::compute_failure_prefix) +
                           "hid its memory from the judge's measure (" + why + ")");
    }
    note_remote_peak(static_cast<std::size_t>(heap_of_resident(peak, arrays)), allocations);
  }
}

int serve(const std::map<std::string, handler>& table) {
  // The protocol's pipes (fds 3 and 4, set up by the judge) move out of the way, so no
  // child of the student's code inherits them.
  const int in = fcntl(kRequestFd, F_DUPFD_CLOEXEC, 10), out = fcntl(kReplyFd, F_DUPFD_CLOEXEC, 10);
  if (in < 0 || out < 0) return 3;
  ::close(kRequestFd);
  ::close(kReplyFd);
  for (;;) {
    std::string name;
    if (!get_text(in, name)) return 0;  // the judge is done
    std::uint32_t n_ints = 0, n_arrays = 0;
    if (!get(in, n_ints) || n_ints > 64) return 4;
    std::vector<std::int64_t> ints(n_ints);
    for (auto& v : ints)
      if (!get(in, v)) return 4;
    if (!get(in, n_arrays) || n_arrays > 64) return 4;
    std::vector<std::vector<float>> arrays(n_arrays);
    for (auto& a : arrays) {
      std::uint64_t count = 0;
      if (!get(in, count) || count > kMaxFloats) return 4;
      a.resize(count);
      if (!read_all(in, a.data(), count * sizeof(float))) return 4;
    }
    exchange x;
    if (!get_text(in, x.request, kMaxRequestBytes)) return 4;
    const auto h = table.find(name);
    status st = status::ok;
    std::string text;
    std::size_t peak = 0;
    std::uint64_t allocations = 0;
    if (h == table.end()) {
      st = status::exception;
      text = "no remote function named " + name;
    } else {
      try {
        alloc_scope scope;
        h->second(ints, arrays, x);
        peak = scope.peak_bytes();
        allocations = scope.allocations();
      } catch (const unfilled_blank& b) {
        st = status::blank;
        text = b.name();
      } catch (const std::exception& e) {
        st = status::exception;
        text = e.what();
      } catch (...) {
        st = status::exception;
        text = "an exception that is not a std::exception";
      }
    }
    bool ok = put(out, kMagic) && put(out, static_cast<std::uint8_t>(st));
    if (st != status::ok) {
      ok = ok && put_text(out, text);
    } else {
      ok = ok && put(out, static_cast<std::uint32_t>(arrays.size()));
      for (const auto& a : arrays)
        ok = ok && put(out, static_cast<std::uint64_t>(a.size())) &&
             write_all(out, a.data(), a.size() * sizeof(float));
      ok = ok && put(out, static_cast<std::uint64_t>(peak)) && put(out, allocations) &&
           x.reply.size() <= kMaxReplyBytes && put_bytes(out, x.reply);
    }
    if (!ok) return 5;
  }
}

}  // namespace course::remote
