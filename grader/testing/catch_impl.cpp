// Catch2's implementation, in a translation unit of its own: it is the largest compile of a
// fresh grading tree (one core: 20 s at -O1, 11.7 s at -O0), and it is built once, as the
// shared library course_catch (grader/testing/CMakeLists.txt). main() is in catch_main.cpp,
// beside the course-json reporter, so that wherever main() is linked the reporter is too.
#define CATCH_CONFIG_RUNNER
#include <catch2/catch.hpp>

// What catch_main.cpp's main() runs (Catch::Session is declared only where the
// implementation is).
int course_catch_main(int argc, char* argv[]) {
  return Catch::Session().run(argc, argv);
}
