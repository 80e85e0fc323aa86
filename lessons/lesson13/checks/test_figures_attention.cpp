// Checks every `attn.` figure marked in the lesson 13 notes (chapter 00 and chapter 04,
// zh and en): each is recomputed here from first principles and compared with the
// number written before its <!-- fig:attn.NAME --> marker, within the rounding the text
// uses. A marked number that drifts, a marker without a computation, or a figure
// missing from one language fails the test.
//
// Built by CMake into lesson13_checks (in a dev build: ctest --preset dev -R lesson13.checks).
// By hand, from the repository root (one line):
//   g++ -std=c++20 -O1 -DLESSON_DIR='"lessons/lesson13"' -Igrader/testing/include
//   -Ilessons/lesson13/checks lessons/lesson13/checks/test_figures_attention.cpp
//   build/grader/testing/libcourse_testing.a -o /tmp/figures_attn && /tmp/figures_attn
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <limits>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "course/figures.hpp"
#include "figure_inputs.hpp"

namespace {

using lesson_checks::exact;
using lesson_checks::figure;
using lesson_checks::rounded;

constexpr double kKiB = 1024.0;
constexpr double kMiB = 1024.0 * 1024.0;
constexpr double kGiB = 1024.0 * 1024.0 * 1024.0;

// softmax(scores) . values for one query row, by the definition (max subtracted).
double softmax_dot(const std::vector<double>& scores, const std::vector<double>& values) {
  double m = -std::numeric_limits<double>::infinity();
  for (double s : scores) m = std::max(m, s);
  double l = 0.0, o = 0.0;
  for (size_t k = 0; k < scores.size(); ++k) {
    l += std::exp(scores[k] - m);
    o += std::exp(scores[k] - m) * values[k];
  }
  return o / l;
}

// The misconception of section 4.5: softmax inside each key block, blocks concatenated.
// Returns {sum of the concatenated weights, output summed over blocks, output averaged}.
struct blockwise_result {
  double weight_sum, summed, averaged;
};
blockwise_result blockwise_softmax(const std::vector<double>& scores,
                                   const std::vector<double>& values, size_t block) {
  blockwise_result r{0.0, 0.0, 0.0};
  int blocks = 0;
  for (size_t j = 0; j < scores.size(); j += block, ++blocks) {
    const size_t end = std::min(scores.size(), j + block);
    double m = -std::numeric_limits<double>::infinity(), l = 0.0;
    for (size_t k = j; k < end; ++k) m = std::max(m, scores[k]);
    for (size_t k = j; k < end; ++k) l += std::exp(scores[k] - m);
    for (size_t k = j; k < end; ++k) {
      const double w = std::exp(scores[k] - m) / l;
      r.weight_sum += w;
      r.summed += w * values[k];
    }
  }
  r.averaged = r.summed / blocks;
  return r;
}

// Section 4.3's worked trace: online softmax, one query row with d = 1, on the scores, values
// and block size of figures/figures.json (notes/figures/online-softmax-trace.svg is drawn from
// the same file). After block j (from 1): the running max m, the rescale exp(m_old - m_new),
// the running sum l and the unnormalised output O; then O / l and the direct softmax.
void add_trace_figures(std::map<std::string, figure>& computed) {
  const std::vector<double> scores = lesson13_figures::input_list("trace", "scores");
  const std::vector<double> values = lesson13_figures::input_list("trace", "values");
  const auto block = static_cast<size_t>(lesson13_figures::input("trace", "block_size"));
  REQUIRE(!scores.empty());
  REQUIRE(scores.size() == values.size());
  REQUIRE(block > 0);
  double m = -std::numeric_limits<double>::infinity(), l = 0.0, o = 0.0;
  for (size_t j = 0, n = 1; j < scores.size(); j += block, ++n) {
    const size_t end = std::min(scores.size(), j + block);
    double m_new = m;
    for (size_t k = j; k < end; ++k) m_new = std::max(m_new, scores[k]);
    const double scale = std::exp(m - m_new);  // exactly 0 on the first block
    l *= scale;
    o *= scale;
    for (size_t k = j; k < end; ++k) {
      l += std::exp(scores[k] - m_new);
      o += std::exp(scores[k] - m_new) * values[k];
    }
    m = m_new;
    const std::string at = std::to_string(n);
    computed["attn.trace_m" + at] = exact(m);
    computed["attn.trace_scale" + at] = scale == 0.0 ? exact(0.0) : rounded(scale, 4);
    computed["attn.trace_l" + at] = rounded(l, 4);
    computed["attn.trace_o" + at] = rounded(o, 4);
  }
  computed["attn.trace_out"] = rounded(o / l, 4);
  computed["attn.trace_direct"] = rounded(softmax_dot(scores, values), 4);
}

}  // namespace

TEST_CASE("attention figures in the lesson 13 notes match their computation", "[figures]") {
  // The worked example: one head, N = 4096, d = 128, BF16 (2 bytes), 32 heads x 32 layers.
  const double N = 4096, d = 128, bf16 = 2, heads = 32, layers = 32;
  const double s_elems = N * N;
  const double s_bytes = s_elems * bf16;
  const double sp_mib = 2 * s_bytes / kMiB;  // S and P
  const double total_mib = heads * layers * sp_mib;

  // Standard attention's three kernels: read Q, K, write S; read S, write P; read P, V, write O.
  const double std_fwd_elems = (2 * N * d + N * N) + (N * N + N * N) + (N * N + N * d + N * d);
  // ... over every head of every layer, in bytes, and the time it takes at the H100's HBM rate.
  const double std_fwd_model_bytes = heads * layers * std_fwd_elems * bf16;
  const double h100_hbm_bytes_per_s = 3.35e12;

  // N = 16k, and the decimal 16,000 that gives "2.56e8".
  const double n16k = 16384, n16000 = 16000;

  // Tiles of B_r = B_c = 64 rows.
  const double tile = 64;
  const double tile_kib = tile * tile * bf16 / kKiB;   // one S_ij block
  const double qkv_tile_kib = tile * d * bf16 / kKiB;  // one Q_i, K_j or V_j block
  const double ex_n = 100, ex_block = 32;              // the grader's partial-block shape
  const double ex_blocks = std::ceil(ex_n / ex_block);

  // Overflow thresholds of exp: ln(largest finite value) of each format.
  const double fp16_max = (2.0 - std::pow(2.0, -10)) * std::pow(2.0, 15);  // 65504
  const double bf16_max = (2.0 - std::pow(2.0, -7)) * std::pow(2.0, 127);  // 8 significand bits
  static_assert(std::numeric_limits<float>::max_exponent == 128);

  // Section 4.5's counterexample: three keys, blocks of 2, all scores 0, values (0, 0, 3);
  // then scores (0 | 10).
  const std::vector<double> cex_scores{0, 0, 0}, cex_values{0, 0, 3};
  const blockwise_result cex = blockwise_softmax(cex_scores, cex_values, 2);
  const double cex2_small_weight = softmax_dot({0, 10}, {1, 0});  // weight of the first key

  // HBM traffic, in elements. M = 128 KiB of BF16 on chip for one thread block; also 228 KiB.
  const double m_elems = 128 * kKiB / bf16, m228_elems = 228 * kKiB / bf16;
  const double std_traffic = N * d + N * N;           // Theta(Nd + N^2)
  const double fa_traffic = N * N * d * d / m_elems;  // Theta(N^2 d^2 / M)
  const double fa_traffic_228 = N * N * d * d / m228_elems;
  // With constants, the exercise's loop order and B_r = 128: Q once, O once, K and V per Q block.
  const double br = 128;
  const double fa_fwd_elems = N * d + N * d + 2 * N * d * (N / br);

  // FLOPs: S = QK^T and O = PV, 2 N^2 d each; FlashAttention's rescaling adds N^2 d / B_c.
  const double fwd_flops = 2 * N * N * d + 2 * N * N * d;
  const double rescale_flops = (N / tile) * (N / tile) * tile * d;  // T_r T_c blocks of B_r x d
  // Training: forward 2 matmuls, backward 4 (dV, dP, dQ, dK), FlashAttention recomputes S.
  const double train_std = 2 + 2 + 4 * 2, train_fa = train_std + 2;

  // The FlashAttention-1 paper's GPT-2 medium measurements (Figure 2).
  const double paper_gflop_std = 66.6, paper_gflop_fa = 75.2;
  const double paper_hbm_std = 40.3, paper_hbm_fa = 4.4;
  const double paper_ms_std = 41.7, paper_ms_fa = 7.3;
  // The NeurIPS proceedings version of Figure 2 (key-padding mask, no dropout, same shape).
  const double proc_hbm_std = 35.3, proc_hbm_fa = 4.4;
  const double proc_ms_std = 35.1, proc_ms_fa = 11.7;

  // Extra memory: one FP32 log-sum-exp per row.
  const double lse_bytes = N * 4;

  // The exercise's own example: n = 256.
  const double ex_s_elems = 256.0 * 256;

  std::map<std::string, figure> computed = {
      {"attn.softmax_intensity", exact(5.0 / 4.0)},  // 5 ops per element over 2 + 2 bytes
      {"attn.s_elems", exact(s_elems)},
      {"attn.s_bytes", exact(s_bytes)},
      {"attn.s_mib", exact(s_bytes / kMiB)},
      {"attn.s_mb", rounded(s_bytes / 1e6, 1)},
      {"attn.sp_mib", exact(sp_mib)},
      {"attn.total_mib", exact(total_mib)},
      {"attn.total_gib", exact(total_mib * kMiB / kGiB)},
      {"attn.total_gb", rounded(total_mib * kMiB / 1e9, 1)},
      {"attn.std_fwd_elems", exact(std_fwd_elems)},
      {"attn.std_fwd_mib", exact(std_fwd_elems * bf16 / kMiB)},
      {"attn.std_fwd_model_gib", exact(std_fwd_model_bytes / kGiB)},
      {"attn.std_fwd_model_gb", rounded(std_fwd_model_bytes / 1e9, 1)},
      {"attn.std_fwd_model_ms", rounded(1e3 * std_fwd_model_bytes / h100_hbm_bytes_per_s, 0)},
      {"attn.l2_layer_gib", exact(5 * heads * N * N / kGiB)},  // lesson 2's 5 a s^2 b, b = 1
      {"attn.l2_total_gib", exact(layers * 5 * heads * N * N / kGiB)},
      {"attn.s16k_elems", exact(n16k * n16k)},
      {"attn.s16000_elems", exact(n16000 * n16000)},
      {"attn.s16k_mib", exact(n16k * n16k * bf16 / kMiB)},
      {"attn.s16k_total_gib", exact(heads * layers * 2 * n16k * n16k * bf16 / kGiB)},
      {"attn.tile_bytes", exact(tile * tile * bf16)},
      {"attn.tile_kib", exact(tile_kib)},
      {"attn.qkv_tile_kib", exact(qkv_tile_kib)},
      {"attn.working_set_kib", exact(3 * qkv_tile_kib + tile_kib)},
      {"attn.ex_partial_rows", exact(ex_n - (ex_blocks - 1) * ex_block)},
      {"attn.fp32_exp_max", rounded(std::log(double(std::numeric_limits<float>::max())), 2)},
      {"attn.fp64_exp_max", rounded(std::log(std::numeric_limits<double>::max()), 2)},
      {"attn.fp16_exp_max", rounded(std::log(fp16_max), 2)},
      {"attn.bf16_exp_max", rounded(std::log(bf16_max), 2)},
      {"attn.cex_o_true", exact(softmax_dot(cex_scores, cex_values))},
      {"attn.cex_row_sum", exact(cex.weight_sum)},
      {"attn.cex_o_concat", exact(cex.summed)},
      {"attn.cex_o_mean", exact(cex.averaged)},
      {"attn.cex2_small_weight", rounded(cex2_small_weight, 7)},
      {"attn.m_elems", exact(m_elems)},
      {"attn.nd_elems", exact(N * d)},
      {"attn.std_traffic_elems", exact(std_traffic)},
      {"attn.fa_traffic_elems", exact(fa_traffic)},
      {"attn.traffic_ratio", rounded(std_traffic / fa_traffic, 1)},
      {"attn.m_over_d2", exact(m_elems / (d * d))},
      {"attn.m228_elems", exact(m228_elems)},
      {"attn.traffic_ratio_228", rounded(std_traffic / fa_traffic_228, 1)},
      {"attn.d2_kib", exact(d * d * bf16 / kKiB)},
      {"attn.kv_passes", exact(N / br)},
      {"attn.fa_fwd_elems", exact(fa_fwd_elems)},
      {"attn.fa_fwd_mib", exact(fa_fwd_elems * bf16 / kMiB)},
      {"attn.fwd_count_ratio", exact(std_fwd_elems / fa_fwd_elems)},
      {"attn.kv_head_mib", exact(N * d * bf16 / kMiB)},
      {"attn.paper_hbm_ratio", rounded(paper_hbm_std / paper_hbm_fa, 1)},
      {"attn.paper_speedup", rounded(paper_ms_std / paper_ms_fa, 1)},
      {"attn.paper_proc_hbm_ratio", rounded(proc_hbm_std / proc_hbm_fa, 1)},
      {"attn.paper_proc_speedup", rounded(proc_ms_std / proc_ms_fa, 1)},
      {"attn.lse_kib", exact(lse_bytes / kKiB)},
      {"attn.sp_over_lse", exact(sp_mib * kMiB / lse_bytes)},
      {"attn.fwd_flops", exact(fwd_flops)},
      {"attn.fwd_gflop", rounded(fwd_flops / 1e9, 2)},
      {"attn.rescale_flops", exact(rescale_flops)},
      {"attn.rescale_pct", rounded(100 * rescale_flops / fwd_flops, 2)},
      {"attn.train_flops_ratio", rounded(train_fa / train_std, 2)},
      {"attn.paper_flops_ratio", rounded(paper_gflop_fa / paper_gflop_std, 2)},
      {"attn.ex_s_elems", exact(ex_s_elems)},
  };

  add_trace_figures(computed);
  lesson_checks::check_figures(std::filesystem::path(LESSON_DIR) / "notes", "attn.", computed);
}
