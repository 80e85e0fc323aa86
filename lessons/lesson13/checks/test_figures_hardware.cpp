// Recomputes every `hw.` figure marked in lesson 13's notes (chapters 01-03: GPU hierarchy,
// kernel rules, tools) from first principles and checks it against the number written
// before its <!-- fig:hw.NAME --> marker, in both the zh and the en notes.
// Built into lesson13_checks by CMake (run: ctest -R lesson13.checks). By hand, from the
// repository root, as one line:
//   g++ -std=c++20 -O1 -DLESSON_DIR='"'$PWD'/lessons/lesson13"' -Igrader/testing/include
//       -Ilessons/lesson13/checks lessons/lesson13/checks/test_figures_hardware.cpp
//       build/grader/testing/libcourse_testing.a -o /tmp/figures_hw && /tmp/figures_hw
#include <catch2/catch.hpp>

#include "course/figures.hpp"
#include "figure_inputs.hpp"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <map>
#include <set>
#include <string>
#include <utility>

namespace {

// Datasheet and whitepaper inputs (decimal units: 1 TB/s = 1e12 B/s).
constexpr double kib = 1024.0;
constexpr double mib = 1024.0 * 1024.0;
constexpr double gib = 1024.0 * 1024.0 * 1024.0;

constexpr double a100_sms = 108;
constexpr double a100_clock_hz = 1.41e9;              // boost clock
constexpr double a100_tensor_flop_per_clk_sm = 2048;  // dense FP16/BF16: 1,024 FMA per clock per SM
constexpr double a100_bf16_flops = 312e12;            // dense
constexpr double a100_fp32_flops = 19.5e12;
constexpr double a100_l1_smem_kib_per_sm = 192;
constexpr double a100_fp32_lanes_per_sm = 64;        // "CUDA cores" per SM
constexpr double a100_l2_read_bytes_per_clk = 5120;  // whitepaper, per clock (clock unstated)
constexpr double v100_l2_read_bytes_per_clk = 2048;  // A100 whitepaper
constexpr double v100_clock_hz = 1.53e9;             // V100 SXM2 boost clock
constexpr double a100_40gb_bw = 1.555e12;
constexpr double a100_80gb_bw = 2.039e12;

constexpr double h100_sms = 132;
constexpr double h100_tensor_flop_per_clk_sm = 4096;
constexpr double h100_fp8_flops = 1978.9e12;  // SXM, dense
constexpr double h100_fp32_fma_per_clk_sm = 128;
constexpr double h100_regfile_kib_per_sm = 256;
constexpr double h100_smem_kib_per_sm = 228;
constexpr double h100_bw = 3.35e12;  // SXM, HBM3

// From figures/figures.json, which the roofline figure (notes/figures/roofline-h200.svg) is
// drawn from too: the H100 SXM's dense BF16 peak (989.4e12) and FP32 CUDA-core peak (67e12),
// which the H200 shares, and the H200's HBM3e bandwidth (4.8e12 B/s).
const double h100_bf16_flops = lesson13_figures::input("h100_sxm", "bf16_dense_flops");
const double h100_fp32_flops = lesson13_figures::input("h100_sxm", "fp32_flops");
const double h200_bw = lesson13_figures::input("h200", "hbm_bytes_per_s");

constexpr double smem_bytes_per_clk_sm = 32 * 4;  // 32 banks x 4 bytes
constexpr double smem_words_per_clk_sm = 32;
constexpr double smem_banks = 32;

// Compute capability 8.0 and 9.0 limits (CUDA C++ Programming Guide).
constexpr double regs_per_sm = 65536;
constexpr double max_threads_per_sm = 2048;
constexpr double max_warps_per_sm = 64;

// Measured on the course's H200 (see the notes): nvidia-smi capacity, pointer-chase HBM
// latency at the 1.98 GHz SM clock, strided-read useful bandwidth, BF16 GEMM throughput.
constexpr double h200_smi_mib = 143771;
constexpr double h200_hbm_latency_cycles = 660;
constexpr double h200_sm_clock_hz = 1.98e9;
constexpr double h200_stride1_gbs = 2535;
constexpr double h200_stride32_gbs = 238;
constexpr double h200_gemm_tflops = 790;

// Published measurements quoted in the notes.
constexpr double boehm_naive = 309, boehm_coalesced = 1986.5;    // GFLOP/s, A6000, 4096^2
constexpr double boehm_smem = 2980.3, boehm_1d_tiling = 8474.7;  // GFLOP/s
constexpr double fa2_h100_utilisation = 0.35;                    // FlashAttention-3 paper
constexpr double fa3_fp16_tflops = 740;                          // FlashAttention-3 paper

// Sectors touched when 32 lanes each read one 4-byte float at first_index + lane * stride.
double sectors_touched(long first_index, long stride) {
  std::set<long> sectors;
  for (long lane = 0; lane < 32; ++lane) sectors.insert((first_index + lane * stride) * 4 / 32);
  return static_cast<double>(sectors.size());
}

// Largest number of lanes of one warp that hit the same shared-memory bank with different
// words, when lane i reads 4-byte word i * row_words + col (a column of a row-major tile).
double bank_conflict_ways(long row_words, long col) {
  std::map<long, std::set<long>> words_per_bank;
  for (long lane = 0; lane < 32; ++lane) {
    const long word = lane * row_words + col;
    words_per_bank[word % static_cast<long>(smem_banks)].insert(word);
  }
  std::size_t worst = 0;
  for (const auto& [bank, words] : words_per_bank) worst = std::max(worst, words.size());
  return static_cast<double>(worst);
}

// Average SM utilisation of `tiles` equal tiles on `sms` SMs, one tile per SM at a time.
double waves(double tiles, double sms) {
  return std::ceil(tiles / sms);
}
double wave_utilisation_pct(double tiles, double sms) {
  return 100 * tiles / (waves(tiles, sms) * sms);
}

// Spacing between adjacent BF16 values (8 significant bits) in [2^e, 2^(e+1)).
double bf16_spacing(double x) {
  return std::pow(2.0, std::floor(std::log2(x)) - 7);
}

}  // namespace

TEST_CASE("hardware figures in lesson 13's notes are computed right", "[figures]") {
  using figure = std::pair<double, double>;  // value, relative tolerance
  const double exact = 1e-9;
  std::map<std::string, figure> computed;

  // ---- Chapter 1: hierarchy, memory wall, roofline ----
  computed["hw.a100_peak_bf16_tflops"] = {
      a100_sms * a100_tensor_flop_per_clk_sm * a100_clock_hz / 1e12, 0.001};
  computed["hw.h100_implied_clock_ghz"] = {
      h100_bf16_flops / (h100_sms * h100_tensor_flop_per_clk_sm) / 1e9, 0.005};
  const double h100_fp32_clock_hz = h100_fp32_flops / (h100_sms * h100_fp32_fma_per_clk_sm * 2);
  computed["hw.h100_fp32_implied_clock_ghz"] = {h100_fp32_clock_hz / 1e9, 0.005};
  computed["hw.a100_fp32_tflops_from_lanes"] = {
      a100_sms * a100_fp32_lanes_per_sm * 2 * a100_clock_hz / 1e12, 0.005};
  computed["hw.regs_per_thread_full_occ"] = {regs_per_sm / max_threads_per_sm, exact};
  computed["hw.warps_at_128_regs"] = {regs_per_sm / (128 * 32), exact};
  computed["hw.occupancy_128_regs_pct"] = {100 * regs_per_sm / (128 * 32) / max_warps_per_sm,
                                           exact};
  computed["hw.h200_smi_gib"] = {h200_smi_mib * mib / gib, 0.001};
  computed["hw.h200_smi_gb"] = {h200_smi_mib * mib / 1e9, 0.001};
  computed["hw.h100_reg_operand_tbs"] = {h100_fp32_flops / 2 * 3 * 4 / 1e12, 0.005};
  computed["hw.h100_regfile_total_mib"] = {h100_sms * h100_regfile_kib_per_sm * kib / mib, exact};
  const double a100_smem_bw = a100_sms * smem_bytes_per_clk_sm * a100_clock_hz;
  const double h100_clock_hz = h100_bf16_flops / (h100_sms * h100_tensor_flop_per_clk_sm);
  const double h100_smem_bw = h100_sms * smem_bytes_per_clk_sm * h100_clock_hz;
  computed["hw.a100_smem_bw_tbs"] = {a100_smem_bw / 1e12, 0.005};
  computed["hw.a100_sram_total_kib"] = {a100_sms * a100_l1_smem_kib_per_sm, exact};
  computed["hw.a100_sram_total_mib"] = {a100_sms * a100_l1_smem_kib_per_sm * kib / mib, exact};
  computed["hw.h100_smem_bw_tbs"] = {h100_smem_bw / 1e12, 0.005};
  computed["hw.h100_smem_bw_max_clock_tbs"] = {
      h100_sms * smem_bytes_per_clk_sm * h100_fp32_clock_hz / 1e12, 0.005};
  computed["hw.a100_l2_bw_tbs"] = {a100_l2_read_bytes_per_clk * a100_clock_hz / 1e12, 0.005};
  computed["hw.a100_v100_l2_ratio"] = {
      (a100_l2_read_bytes_per_clk * a100_clock_hz) / (v100_l2_read_bytes_per_clk * v100_clock_hz),
      0.01};
  computed["hw.h100_smem_total_mib"] = {h100_sms * h100_smem_kib_per_sm * kib / mib, 0.005};
  computed["hw.a100_smem_hbm_ratio"] = {a100_smem_bw / a100_80gb_bw, 0.01};
  computed["hw.h100_smem_hbm_ratio"] = {h100_smem_bw / h100_bw, 0.01};
  const double hbm_latency_s = h200_hbm_latency_cycles / h200_sm_clock_hz;
  computed["hw.hbm_latency_ns"] = {hbm_latency_s * 1e9, 0.005};
  computed["hw.littles_inflight_mb"] = {h200_bw * hbm_latency_s / 1e6, 0.01};
  computed["hw.littles_per_sm_kb"] = {h200_bw * hbm_latency_s / h100_sms / 1e3, 0.01};
  computed["hw.flops_growth_a100_h100"] = {h100_bf16_flops / a100_bf16_flops, 0.005};
  computed["hw.bw_growth_a100_h100"] = {h100_bw / a100_80gb_bw, 0.005};
  const double add_intensity = 1.0 / (3 * 4);  // 1 FLOP; read a, b and write c, 4 bytes each
  computed["hw.add_ai"] = {add_intensity, 0.005};
  computed["hw.add_attainable_tflops_h100"] = {add_intensity * h100_bw / 1e12, 0.01};
  computed["hw.add_pct_fp32_peak"] = {100 * add_intensity * h100_bw / h100_fp32_flops, 0.01};
  auto matmul_intensity = [](double n) { return 2 * n * n * n / (3 * 2 * n * n); };  // BF16
  computed["hw.matmul_ai_4096"] = {matmul_intensity(4096), 0.001};
  computed["hw.matmul_n_ridge_h100"] = {3 * h100_bf16_flops / h100_bw, 0.001};
  computed["hw.ridge_a100_40gb"] = {a100_bf16_flops / a100_40gb_bw, 0.005};
  computed["hw.ridge_a100_80gb"] = {a100_bf16_flops / a100_80gb_bw, 0.005};
  computed["hw.ridge_h100"] = {h100_bf16_flops / h100_bw, 0.005};
  computed["hw.ridge_h200"] = {h100_bf16_flops / h200_bw, 0.005};
  computed["hw.ridge_h100_fp8"] = {h100_fp8_flops / h100_bw, 0.005};
  computed["hw.ridge_h100_fp32"] = {h100_fp32_flops / h100_bw, 0.005};
  // The fp32 roofline of the H200 (notes/figures/roofline-h200.svg) and the compulsory
  // intensity of the course's kernels on it: matmul 2n^3 FLOP over A, B read and C written;
  // attention 4n^2 d FLOP over Q, K, V read and O written (fp32, 4 bytes).
  computed["hw.ridge_h200_fp32"] = {h100_fp32_flops / h200_bw, 0.005};
  computed["hw.roofline_matmul_ai"] = {2 * 4096.0 * 4096 * 4096 / (3 * 4096.0 * 4096 * 4), 0.001};
  computed["hw.roofline_attn_ai_16k"] = {4 * 16384.0 * 16384 * 64 / (4 * 16384.0 * 64 * 4), exact};
  computed["hw.ridge_a100_smem"] = {a100_tensor_flop_per_clk_sm / smem_bytes_per_clk_sm, exact};
  computed["hw.ridge_h100_smem"] = {h100_tensor_flop_per_clk_sm / smem_bytes_per_clk_sm, exact};
  computed["hw.h200_bw_ratio"] = {h200_bw / h100_bw, 0.005};
  computed["hw.h200_gemm_pct"] = {100 * h200_gemm_tflops * 1e12 / h100_bf16_flops, 0.01};

  // ---- Chapter 2: rules for fast kernels ----
  // Coalescing: one warp, 4-byte floats, 32-byte sectors.
  computed["hw.coalesced_bytes"] = {32 * 4, exact};
  computed["hw.coalesced_sectors"] = {sectors_touched(0, 1), exact};
  computed["hw.misaligned_sectors"] = {sectors_touched(1, 1), exact};
  computed["hw.stride2_sectors"] = {sectors_touched(0, 2), exact};
  computed["hw.stride2_efficiency_pct"] = {100 * 32 * 4 / (sectors_touched(0, 2) * 32), exact};
  computed["hw.strided_sectors"] = {sectors_touched(0, 32), exact};
  computed["hw.strided_bytes_moved"] = {sectors_touched(0, 32) * 32, exact};
  computed["hw.strided_efficiency_pct"] = {100 * 32 * 4 / (sectors_touched(0, 32) * 32), exact};
  computed["hw.strided_traffic_ratio"] = {sectors_touched(0, 32) / sectors_touched(0, 1), exact};
  computed["hw.strided_efficiency_bf16_pct"] = {100 * 2.0 / 32,
                                                exact};  // 2 useful bytes per 32-byte sector
  computed["hw.col_stride_bytes"] = {4096 * 4, exact};
  computed["hw.h200_stride32_slowdown"] = {h200_stride1_gbs / h200_stride32_gbs, 0.01};
  computed["hw.boehm_coalesce_speedup"] = {boehm_coalesced / boehm_naive, 0.01};
  // Tiling: N x N FP32 matmul, T x T tiles.
  const double n = 2048, t = 32;
  computed["hw.tiled_reads"] = {n / t, exact};
  computed["hw.tiling_ratio"] = {n / (n / t), exact};
  computed["hw.untiled_traffic_gb"] = {2 * n * n * n * 4 / 1e9, 0.005};
  computed["hw.tiled_traffic_gb"] = {2 * n * n * n * 4 / t / 1e9, 0.005};
  computed["hw.min_traffic_mb"] = {3 * n * n * 4 / 1e6, 0.005};
  computed["hw.untiled_ai"] = {2 * n * n * n / (2 * n * n * n * 4), exact};
  computed["hw.tiled_ai"] = {2 * n * n * n / (2 * n * n * n * 4 / t), exact};
  computed["hw.tile_smem_kib"] = {2 * t * t * 4 / kib, exact};
  // Bank conflicts: reading a column of float tile[32][32] versus the padded tile[32][33].
  computed["hw.bank_conflict_ways_unpadded"] = {bank_conflict_ways(32, 5), exact};
  computed["hw.bank_conflict_ways_padded"] = {bank_conflict_ways(33, 5), exact};
  computed["hw.smem_padding_pct"] = {100 * (32.0 * 33 - 32.0 * 32) / (32.0 * 32), 0.02};
  // Register tiling: shared-memory loads per FMA = (TM + TN) / (TM * TN).
  auto loads_per_fma = [](double tm, double tn) { return (tm + tn) / (tm * tn); };
  computed["hw.lds_per_fma_1x1"] = {loads_per_fma(1, 1), exact};
  computed["hw.lds_per_fma_8x8"] = {loads_per_fma(8, 8), exact};
  computed["hw.lds_reduction_8x8"] = {loads_per_fma(1, 1) / loads_per_fma(8, 8), exact};
  computed["hw.smem_cap_1x1_pct"] = {
      100 * smem_words_per_clk_sm / (loads_per_fma(1, 1) * h100_fp32_fma_per_clk_sm), exact};
  computed["hw.lds_words_per_clk_8x8"] = {loads_per_fma(8, 8) * h100_fp32_fma_per_clk_sm, exact};
  computed["hw.boehm_1d_speedup"] = {boehm_1d_tiling / boehm_smem, 0.005};
  // Divergence: `threadIdx.x % 2` splits every warp into two halves run one after the other.
  computed["hw.divergence_eff_pct"] = {100 * (16.0 + 16.0) / (32.0 + 32.0), exact};
  // Wave quantization.
  computed["hw.waves_120"] = {waves(120, a100_sms), exact};
  computed["hw.wave2_busy_pct"] = {100 * (120 - a100_sms) / a100_sms, 0.005};
  computed["hw.wave_util_120_pct"] = {wave_utilisation_pct(120, a100_sms), 0.005};
  computed["hw.wave_util_98_pct"] = {wave_utilisation_pct(98, a100_sms), 0.005};
  computed["hw.wave_tile_throughput_ratio"] = {
      (120 / waves(120, a100_sms)) / (98 / waves(98, a100_sms)), 0.01};
  computed["hw.h100_wave_util_120_pct"] = {wave_utilisation_pct(120, h100_sms), 0.005};
  computed["hw.h100_wave_util_133_pct"] = {wave_utilisation_pct(133, h100_sms), 0.005};
  // Padding nanoGPT's vocabulary.
  const double vocab = 50257, padded = std::ceil(vocab / 64) * 64;
  computed["hw.vocab_padded"] = {padded, exact};
  computed["hw.vocab_pad_rows"] = {padded - vocab, exact};
  computed["hw.vocab_pad_pct"] = {100 * (padded - vocab) / vocab, 0.01};
  computed["hw.vocab_pad_div128"] = {padded / 128, exact};
  computed["hw.vocab_row_bytes"] = {vocab * 2, exact};
  computed["hw.vocab_row_mod16"] = {std::fmod(vocab * 2, 16), exact};
  // Precision.
  computed["hw.add_bytes_per_flop_fp32"] = {3 * 4, exact};
  computed["hw.add_bytes_per_flop_bf16"] = {3 * 2, exact};
  computed["hw.weights_7b_fp32_gb"] = {7e9 * 4 / 1e9, exact};
  computed["hw.weights_7b_bf16_gb"] = {7e9 * 2 / 1e9, exact};
  computed["hw.h100_tensor_vs_fp32"] = {h100_bf16_flops / h100_fp32_flops, 0.005};
  computed["hw.a100_tensor_vs_fp32"] = {a100_bf16_flops / a100_fp32_flops, exact};
  computed["hw.bf16_spacing_at_256"] = {bf16_spacing(256), exact};
  // Fusion of sin^2 x + cos^2 x: kernels sin, pow, cos, pow, add.
  const double naive_reads = 1 + 1 + 1 + 1 + 2, naive_writes = 5;
  const double tensor_bytes = std::pow(2.0, 28) * 4;
  computed["hw.fusion_naive_kernels"] = {5, exact};
  computed["hw.fusion_naive_transfers"] = {naive_reads + naive_writes, exact};
  computed["hw.fusion_fused_transfers"] = {1 + 1, exact};
  computed["hw.fusion_ratio"] = {(naive_reads + naive_writes) / 2, exact};
  computed["hw.fusion_naive_ms"] = {(naive_reads + naive_writes) * tensor_bytes / h100_bw * 1e3,
                                    0.005};
  computed["hw.fusion_fused_ms"] = {2 * tensor_bytes / h100_bw * 1e3, 0.01};
  // Recomputation: backward = 2 forwards; full recomputation adds one forward.
  computed["hw.ckpt_overhead_pct"] = {100 * (1.0 + 2.0 + 1.0 - 3.0) / 3.0, 0.02};
  computed["hw.ckpt_sqrt_64"] = {std::sqrt(64.0), exact};

  // ---- Chapter 3: tools ----
  computed["hw.small_kernel_us"] = {1e6 * (4 + 4) / h100_bw * 1e6, 0.01};
  computed["hw.triton_elems_per_thread"] = {1024.0 / (4 * 32), exact};
  computed["hw.fa2_h100_tflops"] = {fa2_h100_utilisation * h100_bf16_flops / 1e12, 0.01};
  computed["hw.fa3_util_pct"] = {100 * fa3_fp16_tflops * 1e12 / h100_bf16_flops, 0.01};

  lesson_checks::check_figures(std::filesystem::path(LESSON_DIR) / "notes", "hw.", computed);
}
