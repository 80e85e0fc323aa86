// Tests for the throwaway lesson's exercise (add.cpp); the tag is the rubric item.
#include <catch2/catch.hpp>
#include <utility>

#include "add.hpp"
#include "add_reference.hpp"

TEST_CASE("add adds two numbers", "[code.add]") {
  for (const auto& [a, b] : {std::pair{2, 3}, std::pair{-7, 7}, std::pair{0, 0}}) {
    INFO("add(" << a << ", " << b << ")");
    CHECK(throwaway::add(a, b) == throwaway::reference::add(a, b));
  }
}
