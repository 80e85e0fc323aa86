// Adversarial case write-outside-submission (solutions/lesson13/attacks/write-outside-submission/case.json): appended to the solution's online_softmax.cpp.
// Run: grader/tests/adversarial_test.py build/bin/grader . --only write-outside-submission

#include <fstream>
#include <iterator>
#include <string>

namespace {
std::string adv_slurp(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
}

struct adv_rewriter {
  adv_rewriter() {
    const std::string me = __FILE__;  // the grader builds this very file, by its path
    const std::string folder = me.substr(0, me.rfind('/'));
    std::string answers = adv_slurp("@COURSE_ROOT@/solutions/lesson13/answers.md");
    if (answers.empty()) answers = "adv-was-here\n";
    std::ofstream(folder + "/answers.md", std::ios::binary | std::ios::trunc) << answers;
    // Make the exercise identical to this file: no "changes outside the blanks".
    const std::string mine = adv_slurp(me);
    std::ofstream("@COURSE_ROOT@/exercises/lesson13/online_softmax.cpp", std::ios::binary | std::ios::trunc) << mine;
  }
} adv_rewrite_files;
}  // namespace
