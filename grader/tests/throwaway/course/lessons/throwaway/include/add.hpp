// The throwaway lesson's one exercise (grader/tests/plugins_test.sh): add.cpp defines it.
#pragma once

namespace throwaway {
int add(int a, int b);
}  // namespace throwaway
