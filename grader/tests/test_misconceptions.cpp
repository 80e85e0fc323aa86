// Unit tests for the lesson13 key's misconceptions stated in free text (answers.cpp over
// the reader): vetoes raised provisionally, denied, or lifted by the right reason.
//   build/dev/bin/grader_tests "[claims]"
#include <catch2/catch.hpp>

#include <set>
#include <string>
#include <utility>
#include <vector>

#include "lesson13_key.hpp"

namespace {

// Sentences that state each misconception (at least five in English and five in Chinese),
// and sentences that deny it.
struct misconception_case {
  std::string veto;
  std::vector<std::string> stated, denied;
};
const std::vector<misconception_case> misconception_cases = {
    {"flops-reduced",
     {"FlashAttention does fewer FLOPs.",
      "FlashAttention reduces the number of floating-point operations.",
      "FA lowers the FLOPs of attention.", "FA cuts the amount of computation needed.",
      "Because of tiling, FA needs less compute.", "FA reduces the FLOPs and the memory.",
      "FlashAttention 减少了计算量。", "FA 通过分块降低了 FLOPs。", "FlashAttention 的计算量更少。",
      "FA 让注意力的计算量变少了。", "FlashAttention 省掉了大量乘加，所以计算量下降。",
      "FA 使注意力的时间复杂度变成线性。"},
     {"FA does not reduce FLOPs.", "FA doesn't lower the FLOPs; it lowers HBM traffic.",
      "With FA, FLOPs are not reduced.", "FA reduces HBM traffic, not FLOPs.",
      "FA reduces memory traffic and the FLOPs stay the same.", "FlashAttention 不会减少计算量。",
      "FlashAttention 并没有降低 FLOPs。", "FA 降低了访存和显存，计算量不变。",
      "FA 降低的是访存而不是计算量。", "FLOPs 仍是 O(N²d)，显存降到 O(N)。"}},
    {"no-running-max",
     {"The running max is only a speed trick.", "The running max is just there to make it faster.",
      "We keep the running max for performance.", "The max is subtracted only to speed things up.",
      "The running max is not needed; it is only for readability.",
      "You can skip the running max, it is optional.", "running max 只是为了加速。",
      "维护 running max 是为了更快。", "running max 可有可无，只是让代码好读。",
      "不需要 running max，它只是一个优化技巧。", "减去最大值只是为了提高速度。"},
     {"The running max is not a speed trick: it keeps exp from overflowing.",
      "The running max is not just for speed; it is for numerical stability.",
      "The running max is needed for numerical stability, not for speed.",
      "running max 不是为了加速，而是为了数值稳定。",
      "running max 不只是为了加速，更是为了防止 exp 溢出。",
      "running max 不可省略，否则 exp 会溢出。", "FA 不需要物化 S，但 running max 必须维护。"}},
    {"blockwise-softmax-concat",
     {"Softmax each block and concatenate, it is exactly the same.",
      "You can softmax each K block separately and just concatenate the results.",
      "Per-block softmax, concatenated, gives the same result as the full-row softmax.",
      "Taking softmax per block and joining them is equivalent to the full softmax.",
      "No rescaling is needed: the blocks can simply be concatenated.",
      "分块 softmax 后直接拼接结果一样。", "每个块分别做 softmax 再拼起来，和整行 softmax 相同。",
      "对每个 K 块分别 softmax 后拼接即可，不需要重新缩放。",
      "分块做 softmax 再拼接，结果等价于整行 softmax。", "每块 softmax 完直接拼接就行。"},
     {"Per-block softmax concatenated is not the same as the full softmax.",
      "You cannot just concatenate the per-block softmax results.",
      "If you just concatenate per-block softmax results, the rows no longer sum to 1.",
      "分块 softmax 后直接拼接结果不一样。", "不能直接拼接，必须按 exp(m_old − m_new) 重新缩放。",
      "分块 softmax 再直接拼接，结果与整行 softmax 不同。"}},
    {"hbm-smem-bandwidth",
     {"Shared memory and HBM are both about 3 TB/s.",
      "Shared memory has about the same bandwidth as HBM.", "SRAM is roughly as fast as HBM.",
      "The bandwidth of shared memory is similar to HBM's.",
      "SRAM is only slightly faster than HBM.",
      "Shared memory is a thousand times faster than HBM.", "HBM is faster than shared memory.",
      "共享内存和 HBM 带宽差不多。", "SRAM 跟 HBM 差不多快。",
      "共享内存的带宽和 HBM 在同一数量级。", "共享内存比 HBM 快一千倍。", "共享内存比 HBM 慢。",
      "共享内存和 HBM 都是约 3 TB/s。"},
     {"Shared memory is about ten times faster than HBM.",
      "SRAM bandwidth is an order of magnitude higher than HBM, not about the same.",
      "Shared memory is not about the same as HBM: it is ~10x faster.",
      "共享内存带宽差不多是 HBM 的 10 倍。", "共享内存和 HBM 带宽并不差不多，前者约高一个数量级。",
      "共享内存带宽远高于 HBM，不在同一数量级。"}},
};

}  // namespace

TEST_CASE("a misconception stated in free text raises its veto provisionally; denied, it does not",
          "[claims]") {
  for (const auto& c : misconception_cases) {
    CHECK(c.stated.size() >= 10);
    for (const auto& text : c.stated) {
      INFO(c.veto << ": " << text);
      // In an explanation's answer, and in the prose under a choice's boxes.
      for (const auto& g : {grade_part("q1.h", text), grade_part("q1.a", "", text, {"c"})}) {
        REQUIRE(g.vetoes.size() == 1);
        CHECK(g.vetoes[0].id == c.veto);
        CHECK(g.vetoes[0].provisional);
        CHECK_THAT(g.vetoes[0].reason, Catch::Matchers::Contains(text.substr(0, 20)));
        CHECK(g.needs_review);
      }
    }
    for (const auto& text : c.denied) {
      INFO(c.veto << ": " << text);
      CHECK(grade_part("q1.h", text).vetoes.empty());
      CHECK(grade_part("q1.a", "", text, {"c"}).vetoes.empty());
    }
  }
  // Only the first misconception of a veto, quoted and named, zh or en.
  const part_grade en =
      grade_part("q1.a", "", "FA does fewer FLOPs. It also lowers the FLOPs.", {"c"});
  REQUIRE(en.vetoes.size() == 1);
  CHECK(en.vetoes[0].reason ==
        "q1.a: \"FA does fewer FLOPs.\" states a misconception: FlashAttention lowers the FLOPs "
        "(provisional, for review)");
  CHECK(en.points == Approx(0.2));  // the tick still earns its points
  const part_grade zh = grade_part("q1.h", "FA 减少了计算量。", "", {}, lang::zh);
  REQUIRE(zh.vetoes.size() == 1);
  CHECK(zh.vetoes[0].reason ==
        "q1.h：“FA 减少了计算量。”表达了一个误解：FlashAttention "
        "降低了计算量（FLOPs）（暂定，待复核）");
  // A long sentence is cut in the quote.
  const std::string long_one = "FlashAttention does fewer FLOPs " + std::string(300, 'x') + ".";
  CHECK(grade_part("q1.h", long_one).vetoes[0].reason.size() < 250);
  // A number's answer is free text too.
  CHECK(ids(grade_part("q2.f", "3.35 TB/s; shared memory has about the same bandwidth as HBM")
                .vetoes) == std::set<std::string>{"hbm-smem-bandwidth"});
  // Outside its parts a misconception is not read: FA-2 does cut non-matmul FLOPs.
  CHECK(grade_part("q2.h", "Coalescing reduces the FLOPs.").vetoes.empty());
  CHECK(
      grade_part("q3.c", "", "FA-2 reduces the FLOPs outside the matmuls.", {"b"}).vetoes.empty());
  // The solution's explanations state none.
  for (const char* id : {"q1.h", "q2.h", "q3.e"})
    CHECK(grade_part(id, solution_answer(id)).vetoes.empty());
}

TEST_CASE("a wrong tick whose own text gives the right reason has its veto lifted", "[claims]") {
  struct lift_case {
    std::string part;
    std::set<std::string> ticks;
    std::string veto, reason, wrong_reason;
  };
  const std::vector<lift_case> cases = {
      {"q1.d",
       {"a", "b", "c"},
       "flops-reduced",
       "I ticked (a) too, but the FLOPs stay the same; FlashAttention reduces HBM traffic.",
       "FlashAttention is faster."},
      {"q1.d", {"a", "b"}, "flops-reduced", "FA 的计算量不变，降低的是 HBM 访存。", "FA 更快。"},
      {"q1.f",
       {"b"},
       "no-running-max",
       "Numerical stability: after subtracting the max, exp's argument is <= 0 and cannot "
       "overflow.",
       "It makes the loop shorter."},
      {"q1.f",
       {"c"},
       "no-running-max",
       "为了数值稳定，减去最大值后 exp 不会溢出。",
       "为了少算一点。"},
      {"q1.f", {}, "no-running-max", "The max keeps exp from overflowing.", ""},
      {"q1.g",
       {"a"},
       "blockwise-softmax-concat",
       "Each block used its own max, so the old blocks must be rescaled by exp(m_old - m_new).",
       "It is the same."},
      {"q1.g",
       {"a"},
       "blockwise-softmax-concat",
       "每块用了自己的 max 与和，必须重新缩放。",
       "一样的。"},
      {"q2.g",
       {"a"},
       "hbm-smem-bandwidth",
       "Shared memory is about ten times faster than HBM.",
       "Both are fast."},
      {"q2.g",
       {"c"},
       "hbm-smem-bandwidth",
       "共享内存带宽约比 HBM 高一个数量级。",
       "共享内存很快。"},
      {"q3.d",
       {"a"},
       "flops-reduced",
       "FA-3 does not reduce the FLOPs; it uses Hopper's TMA and FP8.",
       "FA-3 is for Hopper."},
  };
  for (const auto& c : cases) {
    INFO(c.part << " ticked " << c.ticks.size() << ": " << c.reason);
    const part_grade plain = grade_part(c.part, "", "", c.ticks);
    CHECK(ids(plain.vetoes).count(c.veto) == 1);
    CHECK(plain.lifted.empty());
    const part_grade lifted = grade_part(c.part, "", c.reason, c.ticks);
    CHECK(lifted.vetoes.empty());
    REQUIRE_FALSE(lifted.lifted.empty());
    CHECK(ids(lifted.lifted) == ids(plain.vetoes));
    for (const auto& v : lifted.lifted) CHECK(v.provisional);
    CHECK(lifted.needs_review);
    CHECK(lifted.points == Approx(plain.points));  // points stay as the ticks earned
    if (!c.wrong_reason.empty()) {
      const part_grade wrong = grade_part(c.part, "", c.wrong_reason, c.ticks);
      CHECK(ids(wrong.vetoes) == ids(plain.vetoes));
      CHECK(wrong.lifted.empty());
    }
  }
  // The reason says what lifted it.
  const part_grade g = grade_part("q1.g", "", "The blocks must be rescaled.", {"a"});
  REQUIRE(g.lifted.size() == 1);
  CHECK(g.lifted[0].reason ==
        "q1.g: ticked (a); lifted: the part's own text gives the right reason: \"The blocks must "
        "be rescaled.\" (provisional, for review)");
  // The right reason beside the misconception lifts nothing: the veto stays, now provisional too.
  const part_grade both =
      grade_part("q1.d", "", "FA reduces HBM traffic. It also reduces the FLOPs.", {"a", "b", "c"});
  CHECK(ids(both.vetoes) == std::set<std::string>{"flops-reduced"});
  CHECK(both.lifted.empty());
  // A right tick raises nothing to lift.
  const part_grade right = grade_part("q1.f", "", "Numerical stability.", {"a"});
  CHECK(right.vetoes.empty());
  CHECK(right.lifted.empty());
  CHECK_FALSE(right.needs_review);
}

TEST_CASE("the lesson13 key: conditional truths raise no veto; the misses found are caught",
          "[claims]") {
  for (const char* right :
       {"Only after rescaling by exp(m_old - m_new) are the concatenated blocks the same as the "
        "full softmax.",
        "每块用的是自己的最大值，拼接之前必须按 exp(m_old − m_new) 重新缩放，缩放之后才和整行 "
        "softmax 一样。"}) {
    INFO(right);
    CHECK(grade_part("q1.h", right).vetoes.empty());
  }
  const std::pair<const char*, const char*> wrong[] = {
      {"each block's softmax can simply be concatenated with the others",
       "blockwise-softmax-concat"},
      {"The running max isn't really needed; it just makes the kernel a bit faster.",
       "no-running-max"},
      {"We could drop the running max entirely, it is just an optimization.", "no-running-max"},
  };
  for (const auto& [text, veto] : wrong) {
    INFO(text);
    CHECK(ids(grade_part("q1.h", text).vetoes) == std::set<std::string>{veto});
  }
}

TEST_CASE("the lesson13 key: never materialising S, in other constructions", "[claims]") {
  const std::string rest =
      " S 是 N×N 的，写回 HBM 再读出来，带宽成了瓶颈，这是激活公式里的 N² 二次项。";
  for (const char* never :
       {"FlashAttention 从来不把 S 写到 HBM 里。", "FlashAttention 不需要把完整的 S 存到显存。",
        "FlashAttention 不用把整个 S 存下来。"}) {
    INFO(never);
    const auto g = grade_part("q1.h", std::string(never) + rest);
    CHECK(g.points == Approx(g.max_points));
  }
  for (const char* never : {"With FlashAttention the full S never exists anywhere.",
                            "FlashAttention never keeps the whole N×N matrix around."}) {
    INFO(never);
    const auto g = grade_part(
        "q1.h", std::string(never) +
                    " The N×N scores S are written to HBM and read back, so it is memory-bound. "
                    "It is the quadratic N² term of the activation memory.");
    CHECK(g.points == Approx(g.max_points));
  }
}

TEST_CASE("lesson13: bandwidth misconceptions as comparisons and magnitudes raise their veto",
          "[claims]") {
  for (const std::string text : {
           "Shared memory and HBM are both DRAM, the same order of bandwidth.",
           "Shared memory and HBM are both DRAM.",
           "Shared memory is off-chip DRAM like HBM, so tiling only saves a little.",
           "Staging tiles pays off because shared memory has thousands of times HBM's bandwidth.",
           "Shared memory is about a thousand times faster than HBM.",
           "Shared memory bandwidth is only 10% higher than HBM's.",
           "共享内存和 HBM 都是 DRAM，带宽同一数量级。",
           "共享内存也是片外的 DRAM，跟 HBM 差不多。",
           "共享内存的带宽是 HBM 的几千倍。",
           "共享内存比 HBM 快上千倍，所以 tiling 很有用。",
           "共享内存和 HBM 的带宽是一个数量级的。",
       }) {
    INFO(text);
    CHECK(ids(grade_part("q2.h", text).vetoes) == std::set<std::string>{"hbm-smem-bandwidth"});
  }
  for (const std::string text : {
           "Shared memory is about 10× faster than HBM.",
           "Shared memory has roughly an order of magnitude more bandwidth than HBM.",
           "Shared memory and registers are both on-chip; HBM is off-chip DRAM.",
           "Shared memory is on-chip SRAM, while HBM is off-chip DRAM.",
           "The FLOPs are the same; the tiles in shared memory only cut the HBM traffic.",
           "Shared memory and HBM are not the same order of magnitude: SRAM is about 10x faster.",
           "Without tiling each element is read from HBM 4096 times, with shared-memory tiles 128 "
           "times.",
           "共享内存带宽比 HBM 高一个数量级，约 10 倍。",
           "共享内存和寄存器都在片上，HBM 在片外。",
           "共享内存是片上 SRAM，HBM 是片外 DRAM，带宽差一个数量级。",
           "SRAM 和 HBM 的带宽根本不是一个数量级。",
           "分块后共享内存复用数据，FLOPs 相同，HBM 读取次数少 32 倍。",
           "FA 把 tile 放进 SRAM，S 从来不落到 HBM，FLOPs 跟原来一样。",  // the same FLOPs
           "Tiles stay in SRAM and never go to HBM, and the FLOPs are the same.",
           // loose "much faster": no definite figure, no veto (two orders would be one)
           "Shared memory is orders of magnitude faster than HBM, so tiles are reused there.",
       }) {
    INFO(text);
    CHECK(grade_part("q2.h", text).vetoes.empty());
  }
}

TEST_CASE("lesson13: 'simply concatenated' and 'apart from rounding' are the concat misconception",
          "[claims]") {
  for (const std::string text : {
           "Per-block softmax results, simply concatenated, give the full-row softmax apart from "
           "rounding.",
           "The per-block softmax results are simply concatenated, apart from rounding.",
           "Each block's softmax is just concatenated with the others.",
           "每个块各自做 softmax 后直接拼接，除了舍入误差以外和整行一样。",
           "分块 softmax 直接拼接就是整行 softmax。",
           "各块的 softmax 简单拼接起来，只有舍入误差。",
       }) {
    INFO(text);
    CHECK(ids(grade_part("q1.h", text).vetoes) ==
          std::set<std::string>{"blockwise-softmax-concat"});
  }
  for (const std::string text : {
           "FlashAttention doesn't simply concatenate per-block softmaxes; it rescales the old "
           "blocks by exp(m_old - m_new).",
           "You cannot just concatenate the blocks: each used its own max.",
           "If you simply concatenated per-block softmaxes the rows would not sum to 1.",
           "不能把每块的 softmax 直接拼接，因为每块的最大值不同。",
           "如果直接拼接每块的 softmax，结果是错的。",
           "直接拼接的各块和不为 1，要先按 exp(m_old − m_new) 重新缩放。",
       }) {
    INFO(text);
    CHECK(grade_part("q1.h", text).vetoes.empty());
  }
}
