// Adversarial case read-outside-key-compile-error (solutions/lesson13/attacks/read-outside-key-compile-error/case.json): appended to the solution's online_softmax.cpp.
// Run: grader/tests/adversarial_test.py build/bin/grader . --only read-outside-key-compile-error

namespace adv {
const char* key[] = {
#include "@COURSE_ROOT@/solutions/lesson13/answer_key.json"
};
}  // namespace adv
