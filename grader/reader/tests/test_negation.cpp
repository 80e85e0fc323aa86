// Unit tests for negation (negation.cpp, judge.cpp): a claim denied, and negation that
// leaves it stated.
//   build/dev/bin/grader_reader_tests "[claims]"
#include <catch2/catch.hpp>

#include "claims_test.hpp"

TEST_CASE("a claim under negation is denied, in English and Chinese", "[claims]") {
  for (const char* text : {"FA does not reduce FLOPs.",
                           "FA doesn't lower the FLOPs.",
                           "FA doesn’t lower the FLOPs.",
                           "With FA, FLOPs are not reduced.",
                           "FA gives no fewer FLOPs.",
                           "FA speeds attention up without reducing FLOPs.",
                           "FA never reduces FLOPs.",
                           "FlashAttention 不会减少计算量。",
                           "FlashAttention 并没有降低 FLOPs。",
                           "FA 的计算量没有减少。",
                           "FA 计算量并未减少",
                           "FA 计算量减少不了",
                           "并非减少了计算量",
                           "FA reduces HBM traffic, not FLOPs.",
                           "FA 降低的是访存，不是计算量。",
                           "FA reduces HBM traffic rather than FLOPs.",
                           "FA 降低了访存和显存，计算量不变。",
                           "FA reduces memory traffic and the FLOPs stay the same.",

                           "It is a myth that FA reduces FLOPs.",
                           "A common misconception is that FA reduces FLOPs.",
                           "FA reduces FLOPs, but it doesn't.",
                           "说 FA 减少了计算量是错误的。",
                           "很多人误以为 FA 减少了计算量。"}) {
    INFO(text);
    const auto m = claim_text(text).find(flops);
    CHECK(m.status == claim_status::denied);
    CHECK(m.sentence == text);
    CHECK(m.denial == text);
  }
}

TEST_CASE("negation elsewhere in the sentence leaves a claim stated", "[claims]") {
  for (const char* text :
       {"It is not just memory: FA does fewer FLOPs.",
        "FA doesn't write S to HBM, so it does fewer FLOPs.",
        "Rather than reducing memory, FA reduces FLOPs.", "FA 不物化 S，所以计算量也减少了。",
        "FA not only cuts memory, it also lowers the FLOPs.", "不仅访存减少了，计算量也减少了。",
        "FA lowers the FLOPs because S never goes to HBM.",
        "Nothing changes in memory; FA reduces the FLOPs."}) {
    INFO(text);
    CHECK(status(text, flops) == claim_status::stated);
  }
  // Across clauses the groups come in the claim's order.
  CHECK(status("Same FLOPs, fewer HBM reads.", flops) == claim_status::absent);
  CHECK(status("The FLOPs are O(N^2 d), and memory drops to O(N).", flops) == claim_status::absent);
  CHECK(status("FLOPs 仍是 O(N²d)，显存降到 O(N)。", flops) == claim_status::absent);
  CHECK(status("FLOPs 减少了", flops) == claim_status::stated);  // one clause: any order
}

TEST_CASE("negation words inside the claim are part of it", "[claims]") {
  const claim unchanged = make_claim(
      {{"flops", "计算量"}, {"unchanged", "not reduce", "n't reduce", "不变", "没有减少"}});
  CHECK(status("FLOPs are not reduced.", unchanged) == claim_status::stated);
  CHECK(status("FA doesn't reduce the FLOPs.", unchanged) == claim_status::stated);
  CHECK(status("计算量不变。", unchanged) == claim_status::stated);
  CHECK(status("计算量没有减少。", unchanged) == claim_status::stated);
  CHECK(status("FLOPs are unchanged.", unchanged) == claim_status::stated);
  // "not only" negates only a claim that starts with the "only".
  const claim only = make_claim({{"max"}, {"only for speed", "for speed", "只是为了加速"}});
  CHECK(status("The max is only for speed.", only) == claim_status::stated);
  CHECK(status("The max is not only for speed.", only) == claim_status::denied);
  CHECK(status("The max is not just for speed.", only) ==
        claim_status::stated);  // "just" is no alternative
  CHECK(status("max 不只是为了加速。", only) == claim_status::denied);
}
