// A lesson's reference/ needs one source file today (cmake/course_lesson.cmake builds
// <lesson>_references from reference/*.cpp and *.cu); the reference itself is inline.
#include "add_reference.hpp"
