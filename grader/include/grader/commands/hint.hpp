// `grader hint <lesson> [blank] [--level N] [--lang zh|en]`: hints that teach one step
// at a time instead of handing out the code.
//   grader hint lesson13                          each exercise's blanks, level 1 each
//   grader hint lesson13 m_new --level 2          one blank's hint at one level
//   grader hint lesson13 online_softmax:m_new     a blank named in several exercises
//   grader hint lesson13 questions --level 2      an exercise's general hints
// Levels: 1 the idea, 2 the formula in the lesson's notation, 3 the shape of the code
// (docs/grader.md, "Lesson manifest"). Exit code 0, or 2 with one line on stderr.
#pragma once

#include <ostream>
#include <string>
#include <vector>

#include "grader/base/i18n.hpp"
#include "grader/lesson/manifest.hpp"
#include "grader/lesson/regions.hpp"

namespace grader {

struct hint_request {
  // "" (the listing), a blank's name, "<exercise id>:<blank>", or an exercise id (its
  // general hints).
  std::string blank;
  int level = 0;  // 0: not asked for (level 1)
  lang language = lang::en;
};

// Prints the listing or the hint asked for to `out` and returns 0; an unknown blank,
// a level the manifest does not hold or --level without a blank is one line on `err`
// and exit code 2. The blanks' lines come from the student's files in exercises/.
int run_hint(const course& c, const manifest& m, const hint_request& r, std::ostream& out,
             std::ostream& err);

// What differs between the blanks `e` has hints for and the BLANK(name)s of its file,
// both ways ("" when they are the same set): dev check's hints:<exercise>.
std::string hint_blank_mismatch(const exercise& e, const std::vector<blank>& blanks);

}  // namespace grader
