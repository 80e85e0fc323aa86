// Adversarial case solution-include-absolute (solutions/lesson13/attacks/solution-include-absolute/case.json): the whole student file.
// Run: grader/tests/adversarial_test.py build/bin/grader . --only solution-include-absolute
#if __has_include("@COURSE_ROOT@/solutions/lesson13/online_softmax.cpp")
#include "@COURSE_ROOT@/solutions/lesson13/online_softmax.cpp"
#elif __has_include("/home/runner/work/course/course/solutions/lesson13/online_softmax.cpp")
#include "/home/runner/work/course/course/solutions/lesson13/online_softmax.cpp"
#else
#include "../../../solutions/lesson13/online_softmax.cpp"
#endif
