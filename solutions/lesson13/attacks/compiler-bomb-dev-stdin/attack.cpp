// Adversarial case compiler-bomb-dev-stdin (solutions/lesson13/attacks/compiler-bomb-dev-stdin/case.json): appended to the solution's online_softmax.cpp.
// Run: grader/tests/adversarial_test.py build/bin/grader . --only compiler-bomb-dev-stdin

#include "/dev/stdin"
