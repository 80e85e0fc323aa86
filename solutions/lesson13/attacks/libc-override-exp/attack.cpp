// Adversarial case libc-override-exp (solutions/lesson13/attacks/libc-override-exp/case.json): appended to an online_softmax.cpp whose update never re-bases (scale = 1).
// Run: grader/tests/adversarial_test.py build/bin/grader . --only libc-override-exp

// The executable's own definitions win over libm's for every caller in the binary,
// the tests' double-precision reference included: softmax becomes a plain average.
extern "C" double exp(double) noexcept { return 1.0; }
extern "C" float expf(float) noexcept { return 1.0f; }
