// Adversarial case secrets-token-compile (solutions/lesson13/attacks/secrets-token-compile/case.json): appended to the solution's online_softmax.cpp.
// Run: grader/tests/adversarial_test.py build/bin/grader . --only secrets-token-compile

namespace adv {
#include "/proc/self/environ"
}  // namespace adv
