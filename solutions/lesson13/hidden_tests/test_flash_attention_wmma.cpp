// Hidden tests of lab 4 (flash_attention_wmma.cu): compiled into marking mode's judge only
// (grader mark), never shipped to students. Shapes the public tests do not use: a query
// tile's last row and the row after it, a head of one row, d = 128 off the tiles, more heads
// and larger scores, so a kernel tuned to the public shapes meets new ones.
// Run by hand: the lesson13_flash_attention_wmma_judge binary of a dev build.
#include <catch2/catch.hpp>

#include "flash_attention_wmma_support.hpp"

using namespace lesson13::labs;

TEST_CASE("hidden: bf16 tensor-core FlashAttention on two query tiles of d = 128, two heads",
          "[wmma.correct]") {
  auto rng = course::test_rng("lab4-hidden-correct");
  INFO(course::seed_note());
  check_wmma(rng, {{2, 128, 128}});
}

TEST_CASE("hidden: bf16 tensor-core FlashAttention around a query tile's edge, larger scores",
          "[wmma.edges]") {
  auto rng = course::test_rng("lab4-hidden-edges");
  INFO(course::seed_note());
  check_wmma(rng, {{1, 63, 64}, {1, 65, 128}, {1, 2, 64}, {1, 17, 128}});
  check_wmma(rng, {{1, 70, 128, 48.0}});
}

TEST_CASE("hidden: bf16 tensor-core FlashAttention with one-row heads and many heads",
          "[wmma.heads]") {
  auto rng = course::test_rng("lab4-hidden-heads");
  INFO(course::seed_note());
  check_wmma(rng, {{4, 1, 64}, {5, 33, 64}});
}
