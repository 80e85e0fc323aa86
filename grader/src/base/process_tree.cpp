// /proc-based sampling of a process tree (see process_tree.hpp).
#include "grader/base/process_tree.hpp"

#include <dirent.h>
#include <fcntl.h>
#include <signal.h>
#include <unistd.h>

#include <algorithm>
#include <charconv>
#include <functional>
#include <limits>
#include <string_view>
#include <unordered_map>

namespace grader {
namespace {

// At most `limit` bytes of a /proc file ("" when it cannot be read): plain read(2), since a
// fork bomb's table means thousands of these a sample.
std::string read_proc(const std::string& path, std::size_t limit) {
  std::string text;
  const int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return text;
  text.resize(limit);
  std::size_t got = 0;
  while (got < limit) {
    const ssize_t n = read(fd, text.data() + got, limit - got);
    if (n <= 0) break;
    got += static_cast<std::size_t>(n);
  }
  close(fd);
  text.resize(got);
  return text;
}

std::uint64_t number(std::string_view s) {
  std::uint64_t v = 0;
  std::from_chars(s.data(), s.data() + s.size(), v);
  return v;
}

// The blank-separated fields of `s`.
std::vector<std::string_view> fields(std::string_view s) {
  std::vector<std::string_view> out;
  std::size_t i = 0;
  while (i < s.size()) {
    while (i < s.size() && (s[i] == ' ' || s[i] == '\n' || s[i] == '\t')) ++i;
    const std::size_t from = i;
    while (i < s.size() && s[i] != ' ' && s[i] != '\n' && s[i] != '\t') ++i;
    if (i > from) out.push_back(s.substr(from, i - from));
  }
  return out;
}

// The value (in kB) of the line `key` ("Pss:", "MemAvailable:") of a /proc file.
bool kb_field(const std::string& text, std::string_view key, std::uint64_t& kb) {
  for (std::size_t at = 0; at < text.size();) {
    const std::size_t end = std::min(text.find('\n', at), text.size());
    const std::string_view line(text.data() + at, end - at);
    if (line.starts_with(key)) {
      const auto f = fields(line.substr(key.size()));
      if (f.empty()) return false;
      kb = number(f[0]);
      return true;
    }
    at = end + 1;
  }
  return false;
}

}  // namespace

std::vector<proc_entry> process_table() {
  std::vector<proc_entry> table;
  DIR* dir = opendir("/proc");
  if (!dir) return table;
  while (const dirent* d = readdir(dir)) {
    const std::string_view name = d->d_name;
    if (name.empty() || name.find_first_not_of("0123456789") != std::string_view::npos) continue;
    const std::string stat = read_proc("/proc/" + std::string(name) + "/stat", 1024);
    const auto close = stat.rfind(')');  // the command may hold blanks and parentheses
    if (close == std::string::npos) continue;
    const auto f = fields(std::string_view(stat).substr(close + 1));
    if (f.size() < 20 || f[0].empty()) continue;
    proc_entry e;
    e.pid = static_cast<pid_t>(number(name));
    e.state = f[0][0];
    e.parent = static_cast<pid_t>(number(f[1]));
    e.start = number(f[19]);  // field 22 of proc(5): starttime
    table.push_back(e);
  }
  closedir(dir);
  return table;
}

std::vector<proc_entry> tree_below(pid_t root, const std::vector<proc_entry>& table) {
  std::unordered_multimap<pid_t, const proc_entry*> children;
  for (const auto& e : table) children.emplace(e.parent, &e);
  std::vector<proc_entry> out;
  std::vector<pid_t> todo = {root};
  while (!todo.empty()) {
    const pid_t p = todo.back();
    todo.pop_back();
    const auto [from, to] = children.equal_range(p);
    for (auto it = from; it != to; ++it) {
      if (it->second->pid == root) continue;  // pid 0's children include pid 0 itself
      out.push_back(*it->second);
      todo.push_back(it->second->pid);
    }
  }
  return out;
}

std::uint64_t resident_bytes(pid_t pid) {
  const std::string statm = read_proc("/proc/" + std::to_string(pid) + "/statm", 256);
  const auto f = fields(statm);  // views into statm
  return f.size() > 1 ? number(f[1]) * static_cast<std::uint64_t>(sysconf(_SC_PAGESIZE)) : 0;
}

std::uint64_t proportional_bytes(pid_t pid) {
  std::uint64_t kb = 0;
  kb_field(read_proc("/proc/" + std::to_string(pid) + "/smaps_rollup", 8192), "Pss:", kb);
  return kb << 10;
}

std::uint64_t tree_memory(const std::vector<pid_t>& pids, std::size_t most) {
  std::vector<pid_t> measured = pids;
  if (measured.size() > most) {
    std::vector<std::pair<std::uint64_t, pid_t>> by_size;
    for (pid_t p : pids) by_size.push_back({resident_bytes(p), p});
    std::partial_sort(by_size.begin(), by_size.begin() + static_cast<std::ptrdiff_t>(most),
                      by_size.end(), std::greater<>());
    measured.clear();
    for (std::size_t i = 0; i < most; ++i) measured.push_back(by_size[i].second);
  }
  std::uint64_t total = 0;
  for (pid_t p : measured) total += proportional_bytes(p);
  return total;
}

std::uint64_t memory_available() {
  std::uint64_t kb = 0;
  if (!kb_field(read_proc("/proc/meminfo", 8192), "MemAvailable:", kb))
    return std::numeric_limits<std::uint64_t>::max();
  return kb << 10;
}

std::string command_line(pid_t pid, std::size_t limit) {
  std::string raw = read_proc("/proc/" + std::to_string(pid) + "/cmdline", 64 << 10);
  for (char& c : raw)
    if (c == '\0' || c == '\n' || c == '\t') c = ' ';
  std::string out;
  for (const auto& word : fields(raw)) {
    if (!out.empty()) out += ' ';
    out += word;
    if (out.size() >= limit) break;
  }
  return out.substr(0, limit);
}

void stop_and_kill(const std::vector<pid_t>& pids) {
  for (const int sig : {SIGSTOP, SIGKILL})
    for (pid_t p : pids)
      if (p > 1) kill(p, sig);
}

}  // namespace grader
