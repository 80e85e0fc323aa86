// Unit tests for sentences (sentences.cpp, term_lists.cpp): where they end, and the
// questions and lists that state nothing.
//   build/dev/bin/grader_reader_tests "[claims]"
#include <catch2/catch.hpp>

#include "claims_test.hpp"

TEST_CASE("decimals, abbreviations and dotted names do not end a sentence", "[claims]") {
  const claim c = make_claim({{"hbm"}, {"3.35"}, {"lower"}});
  CHECK(status("HBM gives 3.35 TB/s, e.g. on H100, i.e. lower than SRAM.", c) ==
        claim_status::stated);
  CHECK(status("HBM gives 3.35 TB/s. It is lower than SRAM.", c) == claim_status::absent);
  const claim tc = make_claim({{"torch.compile"}, {"easiest"}});
  CHECK(status("torch.compile is the easiest.", tc) == claim_status::stated);
  // English prose wrapped over lines is one sentence; Chinese lines are sentences.
  CHECK(status("FlashAttention does\nfewer FLOPs than before.", flops) == claim_status::stated);
  CHECK(status("FA 降低了\n计算量很大", flops) == claim_status::absent);
}

TEST_CASE("questions and keyword lists state nothing; '$' anchors to a clause's end", "[claims]") {
  CHECK(status("Does FA reduce FLOPs? No.", flops) == claim_status::absent);
  CHECK(status("FA 减少了计算量吗？", flops) == claim_status::absent);
  CHECK(status("reduce, FLOPs, HBM, SRAM, tiling", flops) == claim_status::absent);
  CHECK(status("关键词：减少、计算量、带宽、分块、SRAM", flops) == claim_status::absent);
  const claim same = make_claim({{"共享内存"}, {"hbm"}, {"差不多$"}});
  CHECK(status("共享内存和 HBM 带宽差不多。", same) == claim_status::stated);
  CHECK(status("共享内存和 HBM 差不多，都很快", same) == claim_status::stated);
  CHECK(status("共享内存带宽差不多是 HBM 的 10 倍。", same) == claim_status::absent);
}
