// Adversarial case compiler-bomb-constexpr (solutions/lesson13/attacks/compiler-bomb-constexpr/case.json): appended to the solution's online_softmax.cpp.
// Run: grader/tests/adversarial_test.py build/bin/grader . --only compiler-bomb-constexpr

constexpr long adv_spin() {
  long s = 0;
  for (long i = 0; i < 200000; ++i)
    for (long j = 0; j < 200000; ++j) s += i ^ j;
  return s;
}
static_assert(adv_spin() != 42, "never decided in time");
