// Adversarial case libc-override-memcmp (solutions/lesson13/attacks/libc-override-memcmp/case.json): appended to a wrong online_softmax.cpp.
// Run: grader/tests/adversarial_test.py build/bin/grader . --only libc-override-memcmp

#include <cstddef>

// Every byte comparison in the test binary now says "equal".
extern "C" int memcmp(const void*, const void*, std::size_t) noexcept { return 0; }
extern "C" int bcmp(const void*, const void*, std::size_t) noexcept { return 0; }
extern "C" int strcmp(const char*, const char*) noexcept { return 0; }
extern "C" int strncmp(const char*, const char*, std::size_t) noexcept { return 0; }
