// Unit tests for claims in free text (claims.cpp, judge.cpp): groups that meet in one
// sentence, quotes, the key's claims as JSON, magnitudes as claims.
//   build/dev/bin/grader_reader_tests "[claims]"
#include <catch2/catch.hpp>

#include <nlohmann/json.hpp>
#include <stdexcept>

#include "claims_test.hpp"

TEST_CASE("a claim's groups must meet in one sentence", "[claims]") {
  CHECK(status("FlashAttention does fewer FLOPs.", flops) == claim_status::stated);
  CHECK(status("FlashAttention does fewer FLOPS", flops) == claim_status::stated);  // any case
  CHECK(status("FA 减少了计算量", flops) == claim_status::stated);
  CHECK(status("It does fewer passes. FLOPs are what they are.", flops) == claim_status::absent);
  CHECK(status("少一点。计算量很大！", flops) == claim_status::absent);
  CHECK(status("FA is fewer\n\nFLOPs are big", flops) == claim_status::absent);  // a paragraph
  CHECK(status("- FA is faster\n- it has lower FLOPs", flops) == claim_status::stated);
  CHECK(status("- it is lower\n- FLOPs are big", flops) == claim_status::absent);  // list items
  CHECK(status("", flops) == claim_status::absent);
}

TEST_CASE("a misconception's words meet within one part: while, but, whereas, 而, 但 divide",
          "[claims]") {
  // Found by independently written answers: the memory drop and the unchanged FLOPs of
  // one sentence read as "FLOPs drop", SRAM and HBM plus "the same" as "same bandwidth".
  CHECK(status("The extra memory drops to O(N), while the FLOPs are what they were.", flops) ==
        claim_status::absent);
  CHECK(status("额外内存降低到 O(N)，而计算量保持原样。", flops) == claim_status::absent);
  CHECK(status("Memory use drops, but the FLOPs are as before.", flops) == claim_status::absent);
  const claim same = make_claim({{"sram", "shared memory"}, {"hbm"}, {"the same$"}});
  CHECK(status("Blocks sit in SRAM and S never reaches HBM, while the FLOPs stay the same.",
               same) == claim_status::absent);
  CHECK(status("SRAM, like HBM, is about the same.", same) == claim_status::stated);
  // Still stated: within one part, or joined by "but also" / 而且 / 从而.
  CHECK(status("It lowers memory traffic, and the FLOPs too.", flops) == claim_status::stated);
  CHECK(status("It lowers not only memory but also FLOPs.", flops) == claim_status::stated);
  CHECK(status("它不但省内存，而且减少计算量。", flops) == claim_status::stated);
  // A key point is judged leniently: its words may cross a part.
  const claim point = make_claim({{"sram"}, {"hbm"}});
  CHECK(claim_text("Blocks stay in SRAM, while Q lives in HBM.").find_point({point}).status ==
        claim_status::stated);
  CHECK(claim_text("Blocks stay in SRAM, while Q lives in HBM.").find(point).status ==
        claim_status::absent);
}

TEST_CASE("the quoted sentence is the student's own, trimmed", "[claims]") {
  const auto m = claim_text("First line.\n- FlashAttention does FEWER flops!  \nLast.").find(flops);
  CHECK(m.status == claim_status::stated);
  CHECK(m.sentence == "FlashAttention does FEWER flops!");
  CHECK(grader::quote_excerpt("abc", 5) == "abc");
  CHECK(grader::quote_excerpt("计算量减少", 7) == "计算…");  // cut at a character
}

TEST_CASE("make_claim refuses what would match every answer", "[claims]") {
  CHECK_THROWS_AS(make_claim({}), std::invalid_argument);
  CHECK_THROWS_AS(make_claim({{}}), std::invalid_argument);
  CHECK_THROWS_AS(make_claim({{"ok"}, {" "}}), std::invalid_argument);
  CHECK_THROWS_AS(make_claim({{"$"}}), std::invalid_argument);
}

TEST_CASE("a claim with `unless` does not hold in a sentence that states its condition",
          "[claims]") {
  const auto claims = grader::claims_from_json(nlohmann::json::parse(R"([
    {"all": [["block"], ["concatenat"], ["same"]], "unless": ["rescal", "only after"]}])"));
  REQUIRE(claims.size() == 1);
  const claim_text plain("Softmax per block, then concatenated, is the same.");
  CHECK(plain.find(claims).status == claim_status::stated);
  CHECK(claim_text("Only after rescaling are the concatenated blocks the same.")
            .find(claims)
            .status == claim_status::absent);
  // Another sentence without the condition still states it.
  CHECK(claim_text("Rescale first. Softmax per block, then concatenated, is the same.")
            .find(claims)
            .status == claim_status::stated);
  CHECK_THROWS(grader::claims_from_json(nlohmann::json::parse(R"([{"all": [["a"]], "if": []}])")));
  CHECK_THROWS(grader::claims_from_json(nlohmann::json::parse(R"([{"unless": ["x"]}])")));
}

TEST_CASE("a {ratio} alternative matches a stated magnitude, negated like any word", "[claims]") {
  const claim big = make_claim({{"shared memory", "共享内存"}, {"{ratio>=50}"}});
  const claim same = make_claim({{"shared memory", "共享内存"}, {"hbm"}, {"{ratio<2}"}});
  CHECK(status("Shared memory has thousands of times HBM's bandwidth.", big) ==
        claim_status::stated);
  CHECK(status("共享内存的带宽是 HBM 的几千倍。", big) == claim_status::stated);
  CHECK(status("共享内存比 HBM 快两个数量级。", big) == claim_status::stated);
  CHECK(status("Shared memory is about 10× faster than HBM.", big) == claim_status::absent);
  CHECK(status("共享内存比 HBM 高一个数量级。", big) == claim_status::absent);
  CHECK(status("共享内存带宽是 HBM 的几十倍。", big) == claim_status::absent);  // [20, 90]
  CHECK(status("Shared memory is not 1000× faster, more like 10×.", big) == claim_status::denied);
  CHECK(status("Each element is read 4096 times from shared memory.", big) ==
        claim_status::absent);  // a count, not a magnitude
  CHECK(status("Shared memory and HBM are the same order of magnitude.", same) ==
        claim_status::stated);
  CHECK(status("共享内存和 HBM 的带宽在同一数量级。", same) == claim_status::stated);
  CHECK(status("Shared memory is only 10% faster than HBM.", same) == claim_status::stated);
  CHECK(status("Shared memory and HBM are not the same order of magnitude.", same) ==
        claim_status::denied);
  CHECK(status("共享内存和 HBM 根本不是一个数量级。", same) == claim_status::denied);
  CHECK(status("Shared memory is an order of magnitude faster than HBM.", same) ==
        claim_status::absent);
  CHECK_THROWS_AS(make_claim({{"{ratio=10}"}}), std::invalid_argument);
  CHECK_THROWS_AS(make_claim({{"{ratio>=x}"}}), std::invalid_argument);
  CHECK_THROWS_AS(make_claim({{"{ratio>=0.5}"}}), std::invalid_argument);  // factors are >= 1
}
