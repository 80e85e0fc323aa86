// Unit tests for claims in free text (claims.cpp) and how the lesson13 key uses them:
// explanations judged as claims, misconceptions, and vetoes lifted by the right reason.
//   build/bin/grader_tests "[claims]"
#include <catch2/catch.hpp>

#include <chrono>
#include <fstream>
#include <iterator>
#include <random>
#include <set>
#include <string>
#include <vector>

#include "grader/lesson/answers.hpp"
#include "grader/lesson/claims.hpp"
#include <nlohmann/json.hpp>

using grader::answer_key;
using grader::answers_doc;
using grader::claim;
using grader::claim_status;
using grader::claim_text;
using grader::lang;
using grader::make_claim;
using grader::part_grade;

namespace {

const std::filesystem::path source_dir{COURSE_SOURCE_DIR};

const answer_key& real_key() {
  static const answer_key key =
      grader::load_answer_key(source_dir / "solutions/lesson13/answer_key.json");
  return key;
}

claim_status status(std::string_view text, const claim& c) {
  return claim_text(text).find(c).status;
}

// "FlashAttention lowers the FLOPs", as the examples below use it.
const claim flops = make_claim({{"reduc", "lower", "fewer", "减少", "降低", "少"},
                                {"flops", "计算量", "floating-point operations"}});

// One part of the lesson13 key, answered: `answer` below answer:, `prose` elsewhere in the
// part (a reason under the boxes), `ticks` for a choice.
part_grade grade_part(const std::string& id, const std::string& answer,
                      const std::string& prose = "", const std::set<std::string>& ticks = {},
                      lang l = lang::en) {
  answers_doc doc;
  auto& p = doc.parts[id];
  p.id = id;
  p.answer = answer;
  p.prose = prose;
  p.ticked = ticks;
  for (const auto& k : real_key().parts)
    if (k.id == id) p.options = k.options;
  for (const part_grade& g : grader::grade_answers(doc, real_key(), l))
    if (g.id == id) return g;
  FAIL("no part " << id);
  return {};
}

std::set<std::string> ids(const std::vector<grader::veto_hit>& v) {
  std::set<std::string> out;
  for (const auto& h : v) out.insert(h.id);
  return out;
}

}  // namespace

// ==== matching
// ==========================================================================================

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

TEST_CASE("Traditional characters are read as Simplified, in the text and in the key", "[claims]") {
  CHECK(status("FA 減少了計算量", flops) == claim_status::stated);
  CHECK(status("FA 沒有減少計算量", flops) == claim_status::denied);
  // Both sides are folded: a key written in Traditional meets Simplified text too.
  CHECK(status("相邻线程读连续地址", make_claim({{"相鄰"}, {"連續"}})) == claim_status::stated);
  // The quote is the student's own text, not the folded one.
  CHECK(claim_text("FA 減少了計算量。").find(flops).sentence == "FA 減少了計算量。");
}

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

TEST_CASE("claims never throw, on any bytes, in time linear in the text", "[claims]") {
  std::vector<claim> all;
  for (const auto& m : real_key().misconceptions)
    all.insert(all.end(), m.claims.begin(), m.claims.end());
  std::mt19937 rng(13);
  std::string bytes(1 << 20, '\0');
  for (char& c : bytes) c = static_cast<char>(rng());
  // Words the matcher reacts to, in random order, with invalid UTF-8 between them.
  const std::vector<std::string> words = {
      "not ", "no ",    "FLOPs ",       "reduce ", "计算量",       "减少",     "不",
      "没有", ", ",     "。",           ". ",      "\n",           "\xE4\xB8", "\xFF",
      "but ", "max ",   "只是为了加速", "不变",    "is the same ", "3.35",     "共享内存",
      "HBM ", "差不多", "? ",           "e.g. ",   "n't "};
  std::string soup;
  while (soup.size() < (1 << 18)) soup += words[rng() % words.size()];
  // One sentence of 256 KiB: many cues and matches in one clause.
  std::string one_sentence;
  while (one_sentence.size() < (1 << 18)) one_sentence += "not FLOPs reduce 不减少计算量 ";
  for (const std::string* text : {&bytes, &soup, &one_sentence}) {
    const auto start = std::chrono::steady_clock::now();
    CHECK_NOTHROW([&] {
      const claim_text t(*text);
      t.find(all);
      t.find_point(all);
    }());
    CHECK(std::chrono::steady_clock::now() - start < std::chrono::seconds(60));
  }
  CHECK_NOTHROW(claim_text(std::string_view("\xE4", 1)).find(flops));
  CHECK_NOTHROW(claim_text(std::string_view("\0\0\r\r\n", 5)).find(flops));
}

// ==== the lesson13 key
// ===================================================================================

namespace {

// The text under a part's answer: in solutions/lesson13/answers.md, up to the next heading.
std::string solution_answer(const std::string& id) {
  std::ifstream in(source_dir / "solutions/lesson13/answers.md");
  const std::string md((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  const size_t part = md.find("### [" + id + "]");
  REQUIRE(part != std::string::npos);
  const size_t b = md.find("answer:", part) + 7;
  const size_t e = md.find("\n#", b);
  return md.substr(b, e == std::string::npos ? std::string::npos : e - b);
}

// Students' own words, zh and en, that make every key point of the part (the first answer of
// each is the solution's).
const std::vector<std::string> q1h_right = {
    "The N×N score matrix S is written to HBM and read back, so the three kernels are "
    "memory-bound. Its memory grows with N², the quadratic seq² term of lesson 2. FlashAttention "
    "keeps Q, K, V tiles in SRAM and never materialises S.",
    "S and P are N x N matrices that have to go through HBM, so attention is bandwidth-bound. S "
    "takes memory quadratic in the sequence length, which is the seq^2 term in the activation "
    "formula. FA computes S block by block in shared memory instead.",
    "标准实现把 S、P 写进显存再读回来，大部分时间花在访存上而不是计算。S 的大小是 N²，对应第 2 "
    "课激活中的二次项。FA 把 Q、K、V 分块载入 SRAM，不把 S 写回 HBM。",
    "Each kernel writes the N*N scores to global memory and the next kernel reads them back; the "
    "GPU waits on memory, not on math. The activation memory for S grows quadratically with N "
    "(lesson 2's 5·n_heads·seq²·bs term). FlashAttention fuses everything into one kernel and the "
    "tiles stay on chip.",
    "Computing all of S first means the whole N×N matrix is stored in HBM and read again by "
    "softmax and by PV, and HBM bandwidth limits the speed. The storage is O(N²), the quadratic "
    "term. FlashAttention doesn't materialize S: it loads blocks of K and V into SRAM.",
    "中间矩阵 S 和 P 要在 HBM 里来回读写，受显存带宽限制，算得再快也要等数据。\n它们占的显存是 N "
    "的平方，就是第 2 课公式里的 seq² 项。\nFlashAttention 把分块放在片上 SRAM 里计算，从不物化 "
    "S。",
    "S 是 N×N 的矩阵，写回全局内存再读出来，带宽是瓶颈。S "
    "的显存随序列长度平方增长，对应第二课激活公式中的二次项。FlashAttention 不需要物化 "
    "S，在共享内存中按块计算。",
    "For long sequences S and P are huge (N x N) and are written to HBM and read back, so the "
    "computation is memory-bound. They take memory that grows quadratically, the seq² term from "
    "lesson 2. FlashAttention tiles the computation in SRAM and never writes S to HBM.",
    "注意力分数矩阵是 N×N，需要写入 HBM 再读回，这个过程是访存受限的。它的显存是 O(N²)，即第 2 "
    "课激活公式的二次项。FA 用 online softmax 分块，把块留在 SRAM 里，不生成完整的 S。",
    "The naive version stores S and P in HBM between three kernels; moving N² elements through HBM "
    "dominates the time. The memory for S is quadratic in N, like the 5·n_heads·seq² term. "
    "FlashAttention avoids materializing S by working on tiles that fit in SRAM.",
    "三个内核之间 S、P 都写到 HBM，再读回来，时间主要花在 HBM 访存上。S 的显存随 N "
    "二次增长，就是激活公式里的平方项。FlashAttention 把 Q、K、V 切成小块装进 SRAM，不写回 S。",
    "S/P are N×N and live in HBM, so every kernel reads and writes them; this is limited by HBM "
    "bandwidth. Their size grows as N^2, the quadratic activation term. FA keeps the blocks "
    "on-chip in shared memory and never forms the full S.",
};
const std::vector<std::string> q2h_right = {
    "With the 1-D mapping, adjacent threads in a warp read consecutive columns of B, so their "
    "loads coalesce into a few 32-byte transactions. In the naive mapping each thread's address is "
    "a whole row apart (stride K), so every load needs its own transaction and most of the "
    "bandwidth is wasted.",
    "Consecutive threads now access contiguous addresses, and the hardware merges the warp's 32 "
    "requests into 4 sectors. Before, the accesses were strided by K elements, so most bytes of "
    "each sector were thrown away.",
    "一维映射让相邻线程访问连续的地址，一个 warp 的访问被合并成一次 128 "
    "字节的事务。原来的二维映射是跨步访问，每个线程单独一个事务，总线利用率很低，带宽被浪费。",
    "Threads next to each other in a warp now read neighbouring elements, so the memory accesses "
    "are coalesced into few transactions. The naive kernel's threads read addresses K floats "
    "apart, which wastes most of each burst.",
    "相邻线程读相邻的列，地址是连续的，32 个线程的请求合并为少数 sector。naive "
    "版本里线程访问的地址相隔 K 个元素，是跨步访问，大部分带宽浪费了。",
    "Because threadIdx.x now maps to the column, adjacent lanes load contiguous floats of B and "
    "the loads coalesce into 128-byte transactions. With the old mapping the addresses were "
    "strided (a row apart), so each thread needed a separate transaction and bandwidth was wasted.",
    "warp "
    "里相邻的线程现在访问连续内存，硬件能把请求合并成少量内存事务。之前每个线程访问的地址跨一整行，"
    "不连续，每次访问都要单独的事务，浪费了带宽。",
    "The speedup comes from coalescing: adjacent threads read adjacent addresses, so one warp's "
    "reads become a few sector transactions instead of 32. In the naive mapping the stride between "
    "threads is a whole row, so most fetched bytes are wasted.",
    "改成 1D 后同一 warp 的相邻线程访问 B "
    "的连续地址，访存被合并（coalesced）成几个事务；原来的映射下地址相隔一整行，每个线程都要单独的"
    "事务，带宽利用率只有十分之一左右，大部分被浪费。",
    "Adjacent threads access consecutive memory locations, so the 32 loads of a warp combine into "
    "a single transaction or a few sectors. The original 2-D mapping gave strided accesses K "
    "elements apart, which wasted bandwidth.",
    "线程 x 相邻时读的地址也相邻，连续的访问会被合并为一次 burst；naive 映射中相邻线程的地址相隔 K "
    "个元素（跨步），每个线程单独发请求，浪费带宽。",
};
const std::vector<std::string> q3e_right = {
    "torch.compile is the easiest: one line, and it fuses ops automatically, but it gives the "
    "least control. Triton is moderately hard, reaches close to hand-written CUDA performance and "
    "is fairly flexible. CUDA is the hardest to write but has the highest performance ceiling and "
    "full control over registers and shared memory.",
    "In difficulty: torch.compile < Triton < CUDA. Triton performance is close to CUDA, and "
    "torch.compile is usually slower than hand-tuned kernels. CUDA gives the most flexibility, "
    "torch.compile the least.",
    "torch.compile 上手最简单，但性能一般、几乎无法控制底层；Triton "
    "难度适中，性能较高，灵活性中等；CUDA 最难，但性能最好、最灵活。",
    "torch.compile is easy to use but a black box, so you have little control. Triton is harder "
    "but much more flexible and almost as fast as CUDA. CUDA is the most difficult and gives the "
    "best performance and complete control.",
    "从易到难依次是 torch.compile、Triton、CUDA；性能上 CUDA 最高，Triton 接近 CUDA，torch.compile "
    "较低；灵活性也是 CUDA 最强，torch.compile 最弱。",
    "torch.compile needs the least effort; Triton is in the middle; CUDA takes the most effort. "
    "CUDA can be the fastest, Triton gets about 90% of it, torch.compile is less fast. CUDA is the "
    "most flexible, Triton is flexible at the block level, torch.compile is not flexible.",
    "torch.compile 最容易，性能较好但不如手写；Triton 比 CUDA 简单，性能接近 CUDA；CUDA "
    "最复杂，但能榨干硬件、可以完全控制寄存器和 TMA，灵活性最高。",
    "Using torch.compile is trivial (a decorator) and gives decent speed but no low-level control. "
    "Triton is a middle ground: harder than torch.compile, faster than it in custom kernels, and "
    "more flexible. CUDA is the hardest, the fastest and the most flexible.",
    "易用性：torch.compile 最好，Triton 次之，CUDA 最难。性能：CUDA 上限最高，Triton "
    "接近，torch.compile 较低。灵活性：CUDA 完全可控，Triton 较灵活，torch.compile 不够灵活。",
    "torch.compile: easiest, good performance, least flexible. Triton: medium difficulty, "
    "near-CUDA performance, more flexible. CUDA: hardest, top performance, full control.",
    "CUDA 最难写但性能最高、控制最精细；Triton 难度中等、性能接近 CUDA、比较灵活；torch.compile "
    "最简单，性能不错，但灵活性最差。",
};

void check_full_marks(const std::string& id, const std::string& answer) {
  INFO(id << ": " << answer);
  for (const lang l : {lang::en, lang::zh}) {
    const part_grade g = grade_part(id, answer, "", {}, l);
    CHECK(g.points == Approx(g.max_points));
    CHECK(g.feedback.empty());
    CHECK(g.vetoes.empty());
    CHECK(g.needs_review);
  }
}

}  // namespace

TEST_CASE("the solution's explanations, and students' paraphrases, earn every key point",
          "[claims]") {
  for (const char* id : {"q1.h", "q2.h", "q3.e"}) check_full_marks(id, solution_answer(id));
  CHECK(q1h_right.size() >= 10);
  CHECK(q2h_right.size() >= 10);
  CHECK(q3e_right.size() >= 10);
  for (const auto& a : q1h_right) check_full_marks("q1.h", a);
  for (const auto& a : q2h_right) check_full_marks("q2.h", a);
  for (const auto& a : q3e_right) check_full_marks("q3.e", a);
}

TEST_CASE("keyword lists and loose words earn nothing", "[claims]") {
  const std::vector<std::pair<std::string, std::string>> lists = {
      {"q1.h", "bandwidth, quadratic, SRAM, tiling, N^2"},
      {"q1.h", "HBM, memory-bound, N², quadratic, SRAM, tiling, materialise, lesson 2"},
      {"q1.h", "带宽、二次、SRAM、分块、N²、物化"},
      {"q1.h", "关键词：HBM，带宽，平方，显存，SRAM，分块"},
      {"q1.h", "Bandwidth.\nQuadratic.\nSRAM.\nTiling.\nN^2."},
      {"q1.h", "It is slow and uses a lot of memory. FlashAttention is better."},
      {"q2.h", "coalescing, consecutive, stride, bandwidth, transactions, warp"},
      {"q2.h", "合并访存、连续地址、跨步、带宽、事务"},
      {"q2.h", "Coalescing. Strides. Bandwidth."},
      {"q3.e", "difficulty, performance, flexibility"},
      {"q3.e", "torch.compile, Triton, CUDA, difficulty, performance, flexibility"},
      {"q3.e", "难度、性能、灵活性、torch.compile、Triton、CUDA"},
      {"q3.e", "Triton. Hard. Fast. Flexible."},
  };
  for (const auto& [id, answer] : lists) {
    INFO(id << ": " << answer);
    const part_grade g = grade_part(id, answer);
    CHECK(g.points == 0);
    CHECK(g.vetoes.empty());
  }
}

TEST_CASE("part of an explanation earns part of the points; a contradiction costs its point",
          "[claims]") {
  const part_grade one =
      grade_part("q1.h", "S and P are N×N and are written to HBM and read back.");
  CHECK(one.points == Approx(0.4 / 3));
  CHECK(one.feedback ==
        "q1.h: does not mention: the N² (quadratic) term of activation memory (lesson 2's "
        "formula); FA keeps the blocks in SRAM (on chip) and never materialises S");
  const part_grade denied = grade_part(
      "q1.h",
      "S grows with N², the quadratic term of lesson 2. It is not memory-bound. FlashAttention "
      "keeps the tiles in SRAM.");
  CHECK(denied.points == Approx(0.4 * 2 / 3));
  CHECK(denied.feedback ==
        "q1.h: contradicts: S/P (N×N) are written to and read back from HBM: memory-bound "
        "(\"It is not memory-bound.\")");
  const part_grade zh = grade_part(
      "q2.h",
      "相邻线程访问的地址并不连续。请求被合并成少数几个事务。naive 映射是跨步访问，浪费带宽。", "",
      {}, lang::zh);
  CHECK(zh.points == Approx(0.35 * 2 / 3));
  CHECK(zh.feedback ==
        "q2.h：与要点相反：warp 内相邻线程访问连续地址（“相邻线程访问的地址并不连续。”）");
}

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

// ==== unless, and phrasings found by independently written answers
// ==========================================================================================

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

// ==== magnitudes and lists of terms (issue 21, classes 4 and 5)
// ==========================================================================================

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

TEST_CASE("a list of terms states nothing: no points, no veto", "[claims]") {
  CHECK(status("FLOPs, running max, concatenation", flops) == claim_status::absent);
  CHECK(status("FLOPs reduced", flops) == claim_status::stated);  // a verb: a statement
  const claim bottleneck = make_claim({{"带宽", "bandwidth"}, {"瓶颈", "bottleneck"}});
  CHECK(status("- HBM 带宽瓶颈\n- N² 显存", bottleneck) == claim_status::absent);
  CHECK(status("HBM bandwidth bottleneck; N² memory", bottleneck) == claim_status::absent);
  CHECK(status("关键词：带宽瓶颈", bottleneck) == claim_status::absent);
  CHECK(status("HBM 带宽是瓶颈。", bottleneck) == claim_status::stated);
  CHECK(status("慢：HBM 带宽瓶颈", bottleneck) == claim_status::stated);  // a colon says "is"
  CHECK(status("The bandwidth is the bottleneck.", bottleneck) == claim_status::stated);
  const std::vector<std::pair<std::string, std::string>> lists = {
      {"q1.h", "FLOPs, running max, concatenation"},
      {"q1.h", "SRAM；HBM；带宽"},
      {"q1.h", "- HBM 带宽瓶颈\n- N² 显存\n- 二次项\n- SRAM 分块"},
      {"q1.h", "* HBM bandwidth bottleneck\n* N² memory\n* quadratic activation term\n* tiling"},
      {"q1.h", "1. memory wall\n2. N² scores\n3. lesson 2 quadratic term"},
      {"q1.h", "HBM bandwidth bottleneck\nN² score matrix\nquadratic activation term"},
      {"q1.h", "FLOPs、running max、拼接"},
      {"q2.h", "coalescing, strided addresses, sectors"},
      {"q2.h", "- 合并访存\n- 相邻线程\n- 连续地址"},
      {"q2.h", "SRAM / HBM / bandwidth gap"},
      {"q3.e", "torch.compile; Triton; CUDA"},
      {"q3.e", "- 难度\n- 性能\n- 灵活性"},
  };
  for (const auto& [id, answer] : lists) {
    INFO(id << ": " << answer);
    const part_grade g = grade_part(id, answer);
    CHECK(g.points == 0);
    CHECK(g.vetoes.empty());
  }
}
