// Catch2's implementation and main(), in a translation unit of their own: it is the
// largest compile of a fresh grading tree (25 s of one core at -O3, 13 s at -O1), and
// apart from the course-json reporter (catch_main.cpp) the two compile at once.
#define CATCH_CONFIG_MAIN
#include <catch2/catch.hpp>
