// Adversarial case compiler-bomb-templates (solutions/lesson13/attacks/compiler-bomb-templates/case.json): appended to the solution's online_softmax.cpp.
// Run: grader/tests/adversarial_test.py build/bin/grader . --only compiler-bomb-templates

template <int N, long K>
struct adv_blowup {
  static constexpr long value = adv_blowup<N - 1, 2 * K>::value + adv_blowup<N - 1, 2 * K + 1>::value;
};
template <long K>
struct adv_blowup<0, K> {
  static constexpr long value = K & 1;
};
static_assert(adv_blowup<40, 0>::value >= 0, "never decided");
