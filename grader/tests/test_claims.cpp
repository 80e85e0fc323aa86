// Unit tests for how the lesson13 key uses claims (answers.cpp over the reader): its key
// points earned by the solution and by students' paraphrases, keyword lists and lists of
// terms that earn nothing. The reader's own: grader/reader/tests/.
//   build/dev/bin/grader_tests "[claims]"
#include <catch2/catch.hpp>

#include <chrono>
#include <random>
#include <string>
#include <vector>

#include "lesson13_key.hpp"

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
