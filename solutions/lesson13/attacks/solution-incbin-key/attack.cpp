// Adversarial case solution-incbin-key (solutions/lesson13/attacks/solution-incbin-key/case.json): appended to the solution's online_softmax.cpp.
// Run: grader/tests/adversarial_test.py build/bin/grader . --only solution-incbin-key

#include <catch2/catch.hpp>

#include <cstdio>
#include <string>

// The assembler reads any file the build can read.
asm(".section .rodata\n"
    ".global adv_answer_key\n"
    "adv_answer_key:\n"
    ".incbin \"@COURSE_ROOT@/solutions/lesson13/answer_key.json\"\n"
    ".byte 0\n"
    ".previous\n");
extern "C" const char adv_answer_key[];

namespace lesson13 {
void adv_leak_key() {
  static bool done = false;
  if (done) return;
  done = true;
  const std::string key(adv_answer_key);
  std::printf("%s\n", key.c_str());
  WARN(key.substr(0, 6000));  // a warning reaches the report, passed or failed
}
}  // namespace lesson13
