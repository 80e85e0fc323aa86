// The throwaway lesson's exercise: fill in the BLANK, then grade with: grader throwaway
#include "add.hpp"

#include "course/blank.hpp"

namespace throwaway {

int add(int a, int b) {
  // BEGIN SOLUTION
  return a + b;
  // PROMPT return BLANK(sum);
  // END SOLUTION
}

}  // namespace throwaway
