// Unit tests for zh/en normalisation (normalise.cpp): Traditional characters, full-width
// forms, spaces by Chinese, and whole words.
//   build/dev/bin/grader_reader_tests "[claims]"
#include <catch2/catch.hpp>

#include "claims_test.hpp"

TEST_CASE("Traditional characters are read as Simplified, in the text and in the key", "[claims]") {
  CHECK(status("FA 減少了計算量", flops) == claim_status::stated);
  CHECK(status("FA 沒有減少計算量", flops) == claim_status::denied);
  // Both sides are folded: a key written in Traditional meets Simplified text too.
  CHECK(status("相邻线程读连续地址", make_claim({{"相鄰"}, {"連續"}})) == claim_status::stated);
  // The quote is the student's own text, not the folded one.
  CHECK(claim_text("FA 減少了計算量。").find(flops).sentence == "FA 減少了計算量。");
}

TEST_CASE("short English alternatives match whole words; spaces by Chinese do not count",
          "[claims]") {
  const claim tile = make_claim({{"tile"}, {"sram"}});
  CHECK(status("each tile sits in SRAM", tile) == claim_status::stated);
  CHECK(status("it is utile for SRAM", tile) == claim_status::absent);
  CHECK(status("tiles go to SRAMs", tile) == claim_status::absent);
  const claim stem = make_claim({{"coalesc"}, {"transaction"}});
  CHECK(status("loads are coalesced into transactions", stem) == claim_status::stated);
  CHECK(status("uncoalesced loads need many transactions", stem) == claim_status::absent);
  const claim zh = make_claim({{"写回 HBM"}});
  CHECK(status("S 要写回HBM", zh) == claim_status::stated);
  CHECK(status("S 要写回   HBM", zh) == claim_status::stated);
  CHECK(status("Ｓ 要写回ＨＢＭ，", zh) == claim_status::stated);  // full-width forms
}
