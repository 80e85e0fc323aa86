// Adversarial case libc-override-exp-lab (solutions/lesson13/attacks/libc-override-exp-lab/case.json):
// appended to a flash_attention.cu whose kernel weighs every key alike (p = 1, scale = 1).
// Run: grader/tests/adversarial_test.py build/bin/grader . --only libc-override-exp-lab

// The executable's own exp wins over libm's for every caller in its binary: if the
// tests' double-precision reference shared it, attention would become a plain average
// there too, and agree with the kernel.
extern "C" double exp(double) noexcept { return 1.0; }
