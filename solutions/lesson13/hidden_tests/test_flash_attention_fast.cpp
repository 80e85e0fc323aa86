// Hidden tests of lab 3 part 2 (flash_attention_fast.cu): compiled into marking mode's judge
// only (grader mark), never shipped to students. Shapes the public tests do not use: a query
// tile's last row and the row after it, more splits than key tiles, splits of one tile,
// scores of larger magnitude, so a kernel tuned to the public shapes meets new ones.
// Run by hand: the lesson13_flash_attention_fast_judge binary of a dev build.
#include <catch2/catch.hpp>

#include "flash_attention_fast_support.hpp"

using namespace lesson13::labs;

TEST_CASE("hidden: register-tiled FlashAttention on two query tiles of d = 128",
          "[fast.correct]") {
  auto rng = course::test_rng("lab3b-hidden-correct");
  INFO(course::seed_note());
  check_fast(rng, {{256, 128, 1}});
}

TEST_CASE("hidden: register-tiled FlashAttention around a query tile's edge, larger scores",
          "[fast.edges]") {
  auto rng = course::test_rng("lab3b-hidden-edges");
  INFO(course::seed_note());
  check_fast(rng, {{127, 64, 1}, {129, 64, 1}, {2, 128, 1}, {31, 128, 1}});
  check_fast(rng, {{100, 128, 1, 400.0}}, 2e-3);
}

TEST_CASE("hidden: register-tiled FlashAttention with more splits than key tiles, one tile each",
          "[fast.splits]") {
  auto rng = course::test_rng("lab3b-hidden-splits");
  INFO(course::seed_note());
  check_fast(rng, {{100, 64, 9}, {96, 128, 3}, {320, 64, 0}});
  check_fast(rng, {{130, 128, 5, 400.0}}, 2e-3);
}
