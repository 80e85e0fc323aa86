// Adversarial case forged-records-scratch (solutions/lesson13/attacks/forged-records-scratch/case.json): appended to a wrong flash_attention.cu.
// Run: grader/tests/adversarial_test.py build/bin/grader . --only forged-records-scratch

#include <dirent.h>
#include <fcntl.h>
#include <signal.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

namespace {

// The test binary's own command line: the grader names the records file (--out FILE).
std::vector<std::string> adv_argv() {
  std::ifstream in("/proc/self/cmdline", std::ios::binary);
  const std::string all((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  std::vector<std::string> args;
  std::string cur;
  for (char c : all) {
    if (c == '\0') {
      args.push_back(cur);
      cur.clear();
    } else {
      cur += c;
    }
  }
  return args;
}

std::string adv_out_file() {
  const std::vector<std::string> args = adv_argv();
  for (size_t i = 0; i + 1 < args.size(); ++i)
    if (args[i] == "--out") return args[i + 1];
  return {};
}

// Same length, so the writer's own file offset stays right: JSON allows the space.
void adv_flip(const std::string& path) {
  const int fd = open(path.c_str(), O_RDWR);
  if (fd < 0) return;
  std::string text;
  char buf[65536];
  ssize_t n;
  while ((n = read(fd, buf, sizeof buf)) > 0) text.append(buf, static_cast<size_t>(n));
  const std::string from = "\"passed\":false", to = "\"passed\":true ";
  for (size_t p = text.find(from); p != std::string::npos; p = text.find(from, p + 1))
    if (pwrite(fd, to.data(), to.size(), static_cast<off_t>(p)) < 0) break;
  close(fd);
}

void adv_each_file(const std::string& dir, void (*f)(const std::string&)) {
  DIR* d = opendir(dir.c_str());
  if (!d) return;
  while (dirent* e = readdir(d))
    if (e->d_type == DT_REG) f(dir + "/" + e->d_name);
  closedir(d);
}

void adv_vandalise(const std::string& path) {
  if (FILE* f = std::fopen(path.c_str(), "a")) {
    std::fputs("\nadv-was-here\n", f);
    std::fclose(f);
  }
}

struct adv_flipper {
  adv_flipper() {
    const std::string out = adv_out_file();
    if (out.empty()) return;
    const std::string dir = out.substr(0, out.rfind('/'));
    adv_each_file(".", adv_vandalise);
    // Catch2 exits with the number of failed tests; the last exit handler says 0 instead.
    std::atexit([] { _exit(0); });
    const pid_t parent = getpid();
    if (fork() != 0) return;  // the test process carries on
    // The helper: flip every records file it can see until the test process is gone,
    // then once more (the grader reads the file after the process exits).
    while (kill(parent, 0) == 0 && getppid() == parent) {
      adv_each_file(dir, adv_flip);
      adv_each_file(".", adv_flip);
      usleep(2000);
    }
    adv_each_file(dir, adv_flip);
    _exit(0);
  }
} adv_flip_records;
}  // namespace
