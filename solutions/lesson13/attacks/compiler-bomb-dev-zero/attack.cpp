// Adversarial case compiler-bomb-dev-zero (solutions/lesson13/attacks/compiler-bomb-dev-zero/case.json): appended to the solution's online_softmax.cpp.
// Run: grader/tests/adversarial_test.py build/bin/grader . --only compiler-bomb-dev-zero

#include "/dev/zero"
