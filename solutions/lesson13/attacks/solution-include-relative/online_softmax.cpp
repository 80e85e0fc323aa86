// Adversarial case solution-include-relative (solutions/lesson13/attacks/solution-include-relative/case.json): the whole student file.
// Run: grader/tests/adversarial_test.py build/bin/grader . --only solution-include-relative
// lessons/lesson13/include is on the include path: three folders up is the course root.
#include "../../../solutions/lesson13/online_softmax.cpp"
