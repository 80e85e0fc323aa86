// Adversarial case early-exit-static-ctor (solutions/lesson13/attacks/early-exit-static-ctor/case.json): appended to a wrong online_softmax.cpp.
// Run: grader/tests/adversarial_test.py build/bin/grader . --only early-exit-static-ctor

#include <cstdlib>

namespace {
// Runs before main(): no test can fail if none runs, and the status says success.
const int adv_leave_early = (std::exit(0), 0);
}  // namespace
