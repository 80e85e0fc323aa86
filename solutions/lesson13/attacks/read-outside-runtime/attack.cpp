// Adversarial case read-outside-runtime (solutions/lesson13/attacks/read-outside-runtime/case.json): appended to the solution's online_softmax.cpp.
// Run: grader/tests/adversarial_test.py build/bin/grader . --only read-outside-runtime

#include <catch2/catch.hpp>
#include <unistd.h>

#include <climits>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iterator>
#include <string>

namespace lesson13 {
namespace {

// Everything it found goes back through the report: WARN() (shown even when the test
// passes), stdout and stderr.
void adv_leak(const std::string& what) {
  std::printf("%s\n", what.c_str());
  std::fprintf(stderr, "%s\n", what.c_str());
  WARN(what.substr(0, 3000));
}

std::string adv_read(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return {};
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  for (char& c : text)
    if (c == '\0') c = '\n';
  return path + ":\n" + text.substr(0, 20000);
}

}  // namespace

void adv_snoop() {
  static bool done = false;
  if (done) return;
  done = true;
  const char* home = std::getenv("HOME");
  char exe[PATH_MAX] = {};
  const ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
  std::string here = n > 0 ? std::string(exe, static_cast<size_t>(n)) : std::string();
  here = here.substr(0, here.rfind('/'));
  const std::string paths[] = {
      "@HOME@/adv-home-secret.txt",
      "@COURSE_ROOT@/solutions/lesson13/answer_key.json",
      "@COURSE_ROOT@/solutions/lesson13/online_softmax.cpp",
      std::string(home ? home : "/nonexistent") + "/adv-home-secret.txt",
      here + "/../../../solutions/lesson13/answer_key.json",
      here + "/../../solutions/lesson13/answer_key.json",
      "/home/runner/work/course/course/solutions/lesson13/answer_key.json",
  };
  for (const std::string& p : paths)  // one warning per file found
    if (const std::string text = adv_read(p); !text.empty()) adv_leak(text);
}
}  // namespace lesson13
