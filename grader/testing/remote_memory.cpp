// The judge's /proc measure of a compute process tree's peak memory (remote_memory.hpp).
// VmHWM is the kernel's own high-water mark of a process's resident set; writing "5" to
// /proc/<pid>/clear_refs resets it to the present use, so the mark after a call is that
// call's peak. Nothing here asks the measured process anything.
#include "remote_memory.hpp"

#include <dirent.h>
#include <fcntl.h>
#include <unistd.h>

#include <charconv>
#include <set>
#include <string_view>
#include <vector>

namespace course::remote {
namespace {

constexpr std::uint64_t kMiB = 1u << 20;

std::string read_file(const std::string& path) {
  std::string text;
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return text;
  char buf[4096];
  for (ssize_t n; (n = ::read(fd, buf, sizeof buf)) > 0;)
    text.append(buf, static_cast<std::size_t>(n));
  ::close(fd);
  return text;
}

std::uint64_t number(std::string_view s) {
  std::uint64_t v = 0;
  std::from_chars(s.data(), s.data() + s.size(), v);
  return v;
}

// The fields after the command's closing parenthesis in /proc/<pid>/stat (state first).
std::vector<std::string_view> stat_fields(const std::string& stat) {
  std::vector<std::string_view> out;
  const std::size_t close = stat.rfind(')');
  if (close == std::string::npos) return out;
  std::string_view rest(stat);
  rest.remove_prefix(close + 1);
  while (!rest.empty()) {
    while (!rest.empty() && (rest.front() == ' ' || rest.front() == '\n')) rest.remove_prefix(1);
    const std::size_t end = std::min(rest.find(' '), rest.size());
    if (end > 0) out.push_back(rest.substr(0, end));
    rest.remove_prefix(end);
  }
  return out;
}

// `root` and every process below it, through the parent links in /proc/*/stat.
std::set<pid_t> processes_below(pid_t root) {
  std::vector<std::pair<pid_t, pid_t>> links;  // (pid, parent)
  if (DIR* dir = opendir("/proc")) {
    while (const dirent* e = readdir(dir)) {
      const std::string_view name = e->d_name;
      if (name.empty() || name.find_first_not_of("0123456789") != std::string_view::npos) continue;
      const std::string stat = read_file("/proc/" + std::string(name) + "/stat");
      const auto f = stat_fields(stat);  // views into `stat`
      if (f.size() > 1)
        links.push_back({static_cast<pid_t>(number(name)), static_cast<pid_t>(number(f[1]))});
    }
    closedir(dir);
  }
  std::set<pid_t> tree = {root};
  for (bool grew = true; grew;) {
    grew = false;
    for (const auto& [pid, parent] : links)
      if (tree.count(parent) && tree.insert(pid).second) grew = true;
  }
  return tree;
}

// VmRSS and VmHWM in bytes; false when the process is gone or a zombie (no memory lines).
bool memory_of(pid_t pid, std::uint64_t& rss, std::uint64_t& hwm) {
  const std::string status = read_file("/proc/" + std::to_string(pid) + "/status");
  bool have_rss = false, have_hwm = false;
  for (std::size_t at = 0; at < status.size();) {
    const std::size_t end = std::min(status.find('\n', at), status.size());
    const std::string_view line(status.data() + at, end - at);
    auto kib = [&line](std::string_view key, std::uint64_t& v) {
      if (!line.starts_with(key)) return false;
      std::string_view rest = line.substr(key.size());
      while (!rest.empty() && (rest.front() == ' ' || rest.front() == '\t')) rest.remove_prefix(1);
      v = number(rest) * 1024;
      return true;
    };
    have_rss = kib("VmRSS:", rss) || have_rss;
    have_hwm = kib("VmHWM:", hwm) || have_hwm;
    at = end + 1;
  }
  return have_rss && have_hwm;
}

// CPU ticks of the children a process has waited for: a helper that ran and was reaped
// during the call shows here, though it is no longer in the tree.
std::uint64_t child_ticks(pid_t pid) {
  const std::string stat = read_file("/proc/" + std::to_string(pid) + "/stat");
  const auto f = stat_fields(stat);  // views into `stat`
  return f.size() > 14 ? number(f[13]) + number(f[14]) : 0;
}

bool reset_peak(pid_t pid) {
  const int fd =
      ::open(("/proc/" + std::to_string(pid) + "/clear_refs").c_str(), O_WRONLY | O_CLOEXEC);
  if (fd < 0) return false;
  const bool ok = ::write(fd, "5", 1) == 1;
  ::close(fd);
  return ok;
}

}  // namespace

void memory_watch::start(pid_t root) {
  tree_.clear();
  void_.clear();
  for (pid_t pid : processes_below(root)) {
    const bool reset = reset_peak(pid);
    std::uint64_t rss = 0, hwm = 0;
    if (!memory_of(pid, rss, hwm)) {
      void_ = "its memory figures could not be read before the call";
      return;
    }
    // A peak that could not be reset counts from where it stands; one that stands well
    // above the process's use could hide the call's peak beneath it.
    if (!reset && hwm > rss + kMiB) {
      void_ = "it kept the judge from resetting its peak memory before the call";
      return;
    }
    tree_[pid] = {reset ? rss : hwm, child_ticks(pid)};
  }
}

std::uint64_t memory_watch::peak_above(pid_t root, std::string& why) const {
  why = void_;
  if (!why.empty()) return 0;
  const std::set<pid_t> now = processes_below(root);
  std::uint64_t sum = 0;
  for (pid_t pid : now) {
    const auto p = tree_.find(pid);
    std::uint64_t rss = 0, hwm = 0;
    if (p == tree_.end() || !memory_of(pid, rss, hwm) ||
        child_ticks(pid) != p->second.child_ticks) {
      why =
          "it started a process of its own during the call, whose memory the judge cannot "
          "measure";
      return 0;
    }
    if (hwm > p->second.base) sum += hwm - p->second.base;
  }
  if (now.size() != tree_.size()) {
    why = "a process of its own ended during the call, whose memory the judge cannot measure";
    return 0;
  }
  return sum;
}

}  // namespace course::remote
