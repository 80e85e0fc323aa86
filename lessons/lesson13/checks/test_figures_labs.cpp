// Checks every `labs.` figure marked in chapter 05 of the lesson 13 notes (the CUDA labs,
// zh and en). Each figure is recomputed here from first principles: the sector, request
// and bank counts come from a small model of one warp's addresses (warp_model.hpp: 32
// lanes, 4-byte floats, 32-byte sectors, 32 banks of 4-byte words), walked over the same
// launches the lab tests make (128 x 128 x 128 matmuls, attention with n = 256 and d = 32). The
// measured figures (section 6.6 on) are recomputed from the GPU runs' files that figures.json
// names by role ("measured"). A marked number that drifts, a marker without a computation, or
// a figure missing from one language fails; COURSE_FIGURES_WRITE=1 rewrites the drifted ones.
//
// Built by CMake into lesson13_checks (in a dev build: ctest --preset dev -R lesson13.checks).
// By hand, from the repository root (one line):
//   g++ -std=c++20 -O1 -DLESSON_DIR='"lessons/lesson13"' -Igrader/testing/include
//   -Ilessons/lesson13/checks lessons/lesson13/checks/test_figures_labs.cpp
//   build/grader/testing/libcourse_testing.a -o /tmp/figures_labs && /tmp/figures_labs
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <functional>
#include <map>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "course/figures.hpp"
#include "figure_inputs.hpp"
#include "warp_model.hpp"

using lesson_checks::exact;
using lesson_checks::figure;
using lesson_checks::rounded;
using namespace lesson13_warps;

TEST_CASE("lab figures in the lesson 13 notes match their computation", "[figures]") {
  // ---------------- Lab 1: coalescing (the sector test runs at n = 128) ----------------
  const long n1 = 128;
  const global_counts naive = matmul_one_per_thread(false, n1, n1, n1);
  const global_counts coal = matmul_one_per_thread(true, n1, n1, n1);

  // One warp, one k, first block: the naive warp is 32 rows of one column, the coalesced
  // warp one row of 32 columns.
  request naive_a, naive_b, coal_a, coal_b;
  for (long lane = 0; lane < kWarp; ++lane) {
    const long k = 5;
    naive_a.push_back(lane * n1 + k);  // A[row = lane][k]
    naive_b.push_back(k * n1 + 0);     // B[k][col = 0]
    coal_a.push_back(0 * n1 + k);      // A[row = 0][k]
    coal_b.push_back(k * n1 + lane);   // B[k][col = lane]
  }
  // N = 70 (not a multiple of 32): row k = 1 of B starts 280 bytes in, off a sector boundary.
  request misaligned_b;
  for (long lane = 0; lane < kWarp; ++lane) misaligned_b.push_back(1 * 70 + lane);

  // ---------------- Lab 2: tiling (T = 16) and coarsening ----------------
  const long T = 16;
  const double naive_load_bytes = 2.0 * n1 * n1 * n1 * kFloat;  // 2 floats per thread per k
  const double tiled_load_bytes = double(n1 / T) * (n1 / T) * (n1 / T) * (2 * T * T) * kFloat;
  auto tiled_shared_loads = [&](long n) { return (n * n / kWarp) * (n / T) * (2 * T); };
  auto tiled_shared_stores = [&](long n) { return (n * n / kWarp) * (n / T) * 2; };
  const long req64 = tiled_shared_loads(64) + tiled_shared_stores(64);

  // Bank patterns of the tiled kernel: blocks of 16 x 16 threads, a warp is two rows ty.
  long t16_a_words = 0, t16_b_words = 0, t16_store_banks = 32, t16_worst = 0;
  for (long w = 0; w < T * T / kWarp; ++w)
    for (long k = 0; k < T; ++k) {
      request a, b, st;
      for (long lane = 0; lane < kWarp; ++lane) {
        const thread_id t = lane_thread(w, lane, T);
        a.push_back(t.ty * T + k);      // As[ty][k]
        b.push_back(k * T + t.tx);      // Bs[k][tx]
        st.push_back(t.ty * T + t.tx);  // As[ty][tx] = ...
      }
      t16_a_words = std::max(t16_a_words, distinct_words(a));
      t16_b_words = std::max(t16_b_words, distinct_words(b));
      t16_store_banks = std::min(t16_store_banks, distinct_banks(st));
      t16_worst = std::max({t16_worst, wavefronts(a), wavefronts(b), wavefronts(st)});
    }
  // A column read, Bs[tx][k]: the lanes of a row on words T apart.
  request column;
  for (long lane = 0; lane < kWarp; ++lane) column.push_back(lane_thread(0, lane, T).tx * T + 3);
  // The same reads with T = 32 (a warp is one whole row ty).
  request t32_a, t32_b;
  for (long lane = 0; lane < kWarp; ++lane) {
    const thread_id t = lane_thread(3, lane, 32);
    t32_a.push_back(t.ty * 32 + 7);
    t32_b.push_back(7 * 32 + t.tx);
  }

  const coarse_counts strided = matmul_coarsened_model(true, n1);
  const coarse_counts blocked = matmul_coarsened_model(false, n1);
  const double coarse_load_bytes =
      double(n1 / 64) * (n1 / 64) * (n1 / 16) * (64 * 16 + 16 * 64) * kFloat;
  // Docs/emulator.md's 256 x 256 tiled matmul on an H200: 4 LDS.128 + 16 scalar loads per
  // warp per tile step with nvcc, against the 32 scalar loads of the source.
  const double warps256 = 256.0 * 256 / kWarp, steps256 = 256.0 / T;

  // ---------------- Lab 3: FlashAttention (the read test runs at n = 256, d = 32) -------------
  // One warp per query row, Br = 16 rows (warps) per block of 512 threads, Bc = 32 keys per
  // tile, one per lane; d is 32, 64 or 128 (lessons/lesson13/include/flash_attention_lab.hpp).
  const double n = 256, d = 32, Br = 16, Bc = 32, kMaxD = 128;
  const double n_nxn = 128;  // flash.no_nxn's size
  // An H100/H200 SM (chapter 1): 65,536 registers and at most 64 resident warps; 132 SMs.
  const double block_threads = Br * kWarp, regfile = 65536, sms = 132, max_warps_per_sm = 64;
  const double q_tiles = std::ceil(n / Br);
  const double q_floats = n * d, kv_floats = 2 * n * d * q_tiles;
  const double traffic_floats = 2 * q_floats + kv_floats;  // Q read, O written once
  // flash.global_reads' two bounds: loads (Q once, K and V once per query tile) and
  // stores (O, and each row's m and l as a sector each, at most once per key tile).
  const double load_bound = kFloat * (8 * q_floats + kv_floats);  // Q: a sector per float at worst
  const double store_bound = (kFloat * n * d + 2 * 32 * n) * std::ceil(n / Bc);
  const double k_twice = kFloat * (q_floats + kv_floats + n * d * q_tiles);  // one K tile more
  const double q_broadcast = kFloat * 8 * q_floats;  // Q read a float at a time by broadcasts
  const double m_floats = Br * d;                    // the "M ~ 16 d" of the bound
  const double per_warp_reads = 2 * q_floats + 2 * n * n * d;  // every warp reads all of K, V
  const flash_counts flash = flash_model(static_cast<long>(n), static_cast<long>(d), true);
  const flash_counts flash_unpadded =
      flash_model(static_cast<long>(n), static_cast<long>(d), false);
  // Lane c reading column k of K_tile, rows padded (P = d + 1) or not (P = d), for every d.
  long k_padded_worst = 0, k_unpadded_worst = kWarp;
  for (long dd : {32L, 64L, 128L})
    for (long k = 0; k < dd; ++k) {
      request padded, unpadded;
      for (long c = 0; c < kWarp; ++c) {
        padded.push_back(c * (dd + 1) + k);
        unpadded.push_back(c * dd + k);
      }
      k_padded_worst = std::max(k_padded_worst, wavefronts(padded));
      k_unpadded_worst = std::min(k_unpadded_worst, wavefronts(unpadded));
    }
  // The first version of the lab: lane r read row r of Q itself, rows d floats apart.
  request old_q;
  for (long lane = 0; lane < kWarp; ++lane) old_q.push_back(lane * static_cast<long>(d) + 3);
  // Registers: 512 threads share the SM's 65,536; at d = 128 a lane holds q[128] and o[4].
  const double regs_cap = regfile / block_threads;
  const double blocks_per_sm_d128 = std::floor(regfile / (regs_cap * block_threads));
  // The three shared tiles, sized for d = 128 (K rows padded): Q_tile, K_tile, V_tile.
  const double smem_bytes = (Br * kMaxD + Bc * (kMaxD + 1) + Bc * kMaxD) * kFloat;
  // n = 50: the last query block, with its idle warps, when they return early.
  const double blocks_50 = std::ceil(50 / Br), active_50 = 50 - (blocks_50 - 1) * Br;

  // ---------------- Section 5.6: ratios of the times measured on an H200 ----------------
  // Milliseconds from figures.json's measured runs (lesson13_gpu_bench --ladder: medians of
  // CUDA-event timings; the ladder role is fp32 on one NVIDIA H200, 2026-11-29).
  using lesson13_figures::measured;
  const std::string h200 = measured("ladder");
  using lesson13_figures::ladder_ms;
  const double ms_cublas = ladder_ms(h200, "cublas_sgemm", 4096),
               ms_naive = ladder_ms(h200, "matmul_naive", 4096),
               ms_coalesced = ladder_ms(h200, "matmul_coalesced", 4096),
               ms_tiled = ladder_ms(h200, "matmul_tiled", 4096),
               ms_coarsened = ladder_ms(h200, "matmul_coarsened", 4096);
  const double mm_flop = 2.0 * 4096 * 4096 * 4096;
  auto tflops = [&](double flop, double ms) { return flop / (ms * 1e-3) / 1e12; };
  auto pct_cublas = [&](double ms) { return 100.0 * ms_cublas / ms; };
  // Attention, n = 1k, 4k, 16k, 64k; the naive attention does not fit at 256k.
  const double ns[] = {1024, 4096, 16384, 65536, 262144};
  // One size list per run: n = 1k .. 64k (the naive attention and the eager one stop there).
  auto times = [](const std::string& file, const char* kernel, int d, int sizes) {
    std::vector<double> ms;
    for (int i = 0; i < sizes; ++i) ms.push_back(ladder_ms(file, kernel, 1024 << (2 * i), d));
    return ms;
  };
  const auto naive_d64 = times(h200, "attention_naive", 64, 4);
  const auto flash_d64 = times(h200, "flash_attention_forward", 64, 5);
  const auto naive_d128 = times(h200, "attention_naive", 128, 4);
  const auto flash_d128 = times(h200, "flash_attention_forward", 128, 5);
  auto attn_flop = [&](double nn, double dd) { return 4.0 * nn * nn * dd; };  // Q K^T and P V
  // The eager baseline (cuBLAS, softmax, cuBLAS) against the lab kernel and the naive
  // attention, n = 1k, 4k, 16k, 64k (the eager role: one NVIDIA H100 80GB HBM3, 2026-12-06).
  const std::string eager = measured("eager");
  const auto h100_naive_d64 = times(eager, "attention_naive", 64, 4);
  const auto h100_eager_d64 = times(eager, "attention_eager", 64, 4);
  const auto h100_flash_d64 = times(eager, "flash_attention_forward", 64, 4);
  const auto h100_eager_d128 = times(eager, "attention_eager", 128, 4);
  const auto h100_flash_d128 = times(eager, "flash_attention_forward", 128, 4);
  // The fast references (fast/*.cu) and the baselines, n = 4k and 16k (the fast role: a later
  // run on the same H100).
  const std::string fast = measured("fast");
  const double fast_d64[] = {ladder_ms(fast, "flash_attention_fast", 4096, 64),
                             ladder_ms(fast, "flash_attention_fast", 16384, 64)};
  const double fast_eager_d64[] = {ladder_ms(fast, "attention_eager", 4096, 64),
                                   ladder_ms(fast, "attention_eager", 16384, 64)};
  const double fast_d128[] = {ladder_ms(fast, "flash_attention_fast", 4096, 128),
                              ladder_ms(fast, "flash_attention_fast", 16384, 128)};
  const double fast_eager_d128[] = {ladder_ms(fast, "attention_eager", 4096, 128),
                                    ladder_ms(fast, "attention_eager", 16384, 128)};
  const double fast_lab_4k_d64 = ladder_ms(fast, "flash_attention_forward", 4096, 64);
  // bf16 on tensor cores (lab 4's solution) and the eager bf16 attention, 16 heads, n = 4096
  // (the bf16 role: `grader lesson13 --answers --gpu` on an H100), and lab 4's steps timed by
  // solutions/lesson13/bench/wmma_steps on the same machine (the steps role).
  const std::string bf16 = measured("bf16"), steps = measured("steps");
  auto step_ms = [&](const char* name, int dd) {
    return lesson13_figures::steps_ms(steps, name, 16, 4096, dd);
  };
  const double wmma_ms[] = {ladder_ms(bf16, "flash_attention_wmma", 4096, 64),
                            ladder_ms(bf16, "flash_attention_wmma", 4096, 128)};
  const double eager_bf16_ms[] = {ladder_ms(bf16, "attention_eager_bf16", 4096, 64),
                                  ladder_ms(bf16, "attention_eager_bf16", 4096, 128)};
  auto bf16_tflops = [&](double ms, double dd) { return 16 * attn_flop(4096, dd) / ms / 1e9; };
  const double fast_mm_ms = ladder_ms(fast, "matmul_fast", 4096),
               fast_mm_cublas_ms = ladder_ms(fast, "cublas_sgemm", 4096);
  // Its steps at n = 4096, d = 64, measured while the kernel was built (a scratch harness
  // not kept, the same H100, the same day): ms, and eager's ms on that run.
  const double fast_steps[][2] = {
      {0.3925, 0.2030}, {0.1618, 0.1980}, {0.1373, 0.1980}, {0.1352, 0.2038}};
  const double MiB = 1024.0 * 1024, GiB = 1024.0 * MiB;
  auto s_bytes = [&](double nn) { return nn * nn * kFloat; };
  auto kv_mib = [&](double nn, double dd) { return 2 * nn * dd * kFloat / MiB; };
  // HBM passes over S in reference/attention_naive.cu at d = 64: the score kernel writes it,
  // the softmax reads it three times and writes it, and each of the d / 32 column blocks of
  // the P V kernel reads it.
  const double s_passes_d64 = 1 + 3 + 1 + 64 / kWarp;
  // Chapter 1's figures, from figures/figures.json (the roofline figure reads them too).
  const double h200_hbm_bytes_per_s = lesson13_figures::input("h200", "hbm_bytes_per_s");
  const double fp32_peak_tflops = lesson13_figures::input("h100_sxm", "fp32_flops") / 1e12;

  std::map<std::string, figure> computed = {
      // Lab 1
      {"labs.naive_a_sectors", exact(sectors(naive_a))},
      {"labs.naive_b_sectors", exact(sectors(naive_b))},
      {"labs.naive_load_spr", exact(naive.load_per_request())},
      {"labs.naive_store_spr", exact(naive.store_per_request())},
      {"labs.coal_a_sectors", exact(sectors(coal_a))},
      {"labs.coal_b_sectors", exact(sectors(coal_b))},
      {"labs.coal_load_spr", exact(coal.load_per_request())},
      {"labs.coal_store_spr", exact(coal.store_per_request())},
      {"labs.load_requests_128", exact(coal.load_requests)},
      {"labs.naive_load_sectors_128", exact(naive.load_sectors)},
      {"labs.coal_load_sectors_128", exact(coal.load_sectors)},
      {"labs.load_sector_ratio", rounded(double(naive.load_sectors) / coal.load_sectors, 1)},
      {"labs.naive_excessive_sectors", exact(naive.excessive())},
      {"labs.naive_excessive_pct", rounded(100.0 * naive.excessive() / naive.total_sectors(), 0)},
      {"labs.naive_total_sectors", exact(naive.total_sectors())},
      {"labs.misaligned_b_sectors", exact(sectors(misaligned_b))},
      {"labs.naive_a_stride_bytes", exact(n1 * kFloat)},
      {"labs.warp_bytes", exact(kWarp * kFloat)},
      {"labs.warps_128", exact(n1 * n1 / kWarp)},
      {"labs.misaligned_row_offset", exact(70 * kFloat)},
      {"labs.naive_a_useful_pct",
       exact(100.0 * kWarp * kFloat / (sectors(naive_a) * kSectorBytes))},
      // Lab 2: tiling
      {"labs.tiled_load_ratio", exact(naive_load_bytes / tiled_load_bytes)},
      {"labs.tiled_load_ratio_needed", exact(T)},
      // one A tile more per block: 2 T tiles' worth becomes 2 T + 1 (n = 128: 16 -> 17)
      {"labs.tiled_extra_tile_ratio", rounded(T * (2.0 * (128 / T)) / (2.0 * (128 / T) + 1), 2)},
      {"labs.naive_load_bytes_128", exact(naive_load_bytes)},
      {"labs.tiled_load_bytes_128", exact(tiled_load_bytes)},
      {"labs.tile_smem_kib", exact(2.0 * T * T * kFloat / 1024)},
      {"labs.tiled_k_steps_128", exact(double(n1) / T)},
      {"labs.other_writers", exact(T - 1)},  // the other threads of a tile row (or column)
      {"labs.partial_k_29", exact(29 - T)},  // the test shape M = 37, N = 53, K = 29
      {"labs.partial_m_37", exact(37 - 2 * T)},
      {"labs.t16_a_words", exact(t16_a_words)},
      {"labs.t16_b_words", exact(t16_b_words)},
      {"labs.t16_store_banks", exact(t16_store_banks)},
      {"labs.t16_worst_wavefronts", exact(t16_worst)},
      {"labs.column_read_banks", exact(distinct_banks(column))},
      {"labs.column_read_ways", exact(wavefronts(column))},
      {"labs.t32_a_words", exact(distinct_words(t32_a))},
      {"labs.t32_b_banks", exact(distinct_banks(t32_b))},
      {"labs.shared_requests_64", exact(req64)},
      {"labs.conflict_budget_64", exact(req64 / 20)},
      // Lab 2: coarsening
      {"labs.coarse_threads", exact(16 * 16)},
      {"labs.coarse_outputs_per_thread", exact(4 * 4)},
      {"labs.coarse_register_floats", exact(4 * 4 + 4 + 4)},
      {"labs.coarse_smem_kib", exact((64.0 * 16 + 16 * 64) * kFloat / 1024)},
      {"labs.lds_per_fma_tiled", exact(2.0 / 1.0)},
      {"labs.lds_per_fma_coarse", exact((4.0 + 4.0) / (4.0 * 4.0))},
      {"labs.tiled_lds_128", exact(tiled_shared_loads(n1))},
      {"labs.coarse_lds_128", exact(strided.shared_load_requests)},
      {"labs.lds_ratio", exact(double(tiled_shared_loads(n1)) / strided.shared_load_requests)},
      {"labs.coarse_global_ratio", exact(naive_load_bytes / coarse_load_bytes)},
      {"labs.strided_store_spr", exact(strided.global.store_per_request())},
      {"labs.blocked_store_spr", exact(blocked.global.store_per_request())},
      {"labs.strided_read_wavefronts", exact(std::max(strided.a_read_worst, strided.b_read_worst))},
      {"labs.blocked_a_wavefronts", exact(blocked.a_read_worst)},
      {"labs.blocked_b_wavefronts", exact(blocked.b_read_worst)},
      {"labs.blocked_store_span_bytes",
       exact(blocked.global.store_per_request() / 2 * kSectorBytes)},
      {"labs.blocked_a_row_gap_words",
       exact(4 * 16)},                   // rows 4 ty + i and 4 (ty + 1) + i of As[64][16]
      {"labs.bs_row_words", exact(64)},  // Bs[16][64]: one row of the 64-wide block tile
      {"labs.coarse_bs_store_wavefronts", exact(strided.bs_store_worst)},
      {"labs.coarse_store_conflicts_128", exact(strided.store_conflicts)},
      {"labs.ncu_tiled_lds_256", exact((4 + 16) * steps256 * warps256)},
      {"labs.emu_tiled_lds_256", exact(2 * T * steps256 * warps256)},
      // Lab 3: the layout
      {"labs.flash_block_threads", exact(block_threads)},
      {"labs.flash_lane_cols_d128", exact(128 / kWarp)},
      {"labs.flash_shuffle_steps", exact(std::log2(double(kWarp)))},
      {"labs.flash_old_threads_4096", exact(4096)},  // one thread per row
      {"labs.flash_old_warps_4096", exact(4096 / kWarp)},
      {"labs.flash_threads_4096", exact(4096 * kWarp)},  // one warp per row
      {"labs.flash_blocks_4096", exact(4096 / Br)},
      {"labs.flash_warps_per_sm_4096", rounded(4096 / sms, 0)},
      {"labs.flash_blocks_1k", exact(1024 / Br)},
      // Lab 3: shared memory
      {"labs.flash_k_unpadded_passes", exact(k_unpadded_worst)},
      {"labs.flash_k_padded_passes", exact(k_padded_worst)},
      {"labs.flash_k_nopad_conflicts_256", exact(flash_unpadded.k_read_conflicts)},
      {"labs.flash_smem_bytes", exact(smem_bytes)},
      {"labs.flash_smem_kib", rounded(smem_bytes / 1024, 1)},
      // Lab 3: edges
      {"labs.flash_q_blocks_50", exact(blocks_50)},
      {"labs.flash_active_50", exact(active_50)},
      {"labs.flash_idle_50", exact(Br - active_50)},
      {"labs.flash_partial_50", exact(50 - Bc)},
      {"labs.flash_idle_lanes_7", exact(kWarp - 7)},
      {"labs.flash_partial_77",
       exact(77 - 4 * Br)},  // 77 - 64: both the query block and the key tile
      {"labs.flash_exited_50", exact((Br - active_50) * kWarp)},
      {"labs.flash_waiting_50", exact(active_50 * kWarp)},
      // Lab 3: global reads
      {"labs.flash_q_tiles_256", exact(q_tiles)},
      {"labs.flash_q_floats", exact(q_floats)},
      {"labs.flash_kv_floats", exact(kv_floats)},
      {"labs.flash_o_floats", exact(q_floats)},
      {"labs.flash_traffic_floats", exact(traffic_floats)},
      {"labs.flash_traffic_bytes", exact(traffic_floats * kFloat)},
      {"labs.flash_load_bound_bytes", exact(load_bound)},
      {"labs.flash_store_bound_bytes", exact(store_bound)},
      {"labs.flash_k_twice_bytes", exact(k_twice)},
      {"labs.flash_k_twice_pct", rounded(100 * (k_twice / load_bound - 1), 0)},
      {"labs.flash_min_load_bytes", exact(kFloat * (q_floats + kv_floats))},
      {"labs.flash_q_broadcast_bytes", exact(q_broadcast)},
      {"labs.flash_m_floats", exact(m_floats)},
      {"labs.flash_theta_kv", exact(n * n * d * d / m_floats)},
      {"labs.flash_per_warp_reads", exact(per_warp_reads)},
      {"labs.flash_per_warp_ratio", rounded(per_warp_reads / traffic_floats, 1)},
      {"labs.flash_kv_floats_br32", exact(2 * n * d * std::ceil(n / 32))},
      {"labs.flash_regs_cap_1024", exact(regfile / 1024)},
      {"labs.flash_regs_cap", exact(regs_cap)},
      // Lab 3: no n x n buffer, vetoes, coalescing
      {"labs.flash_s_bytes", exact(n_nxn * n_nxn * kFloat)},
      {"labs.flash_o_bytes", exact(n_nxn * d * kFloat)},
      {"labs.flash_alloc_limit", exact(n_nxn * n_nxn * kFloat / 8)},
      {"labs.flash_store_limit", exact(2 * n_nxn * d * kFloat)},
      {"labs.flash_local_limit", exact(1024 + kFloat * (2 * kMaxD + 2 * Bc))},
      {"labs.concat_tiles_96", exact(96 / Bc)},
      // flash.correct 3 + flash.no_nxn 3 + flash.global_reads 2: all but flash.edges
      {"labs.nomax_points", exact(3 + 3 + 2)},
      {"labs.flash_load_requests_256", exact(flash.global.load_requests)},
      {"labs.flash_spr",
       exact(std::max(flash.global.load_per_request(), flash.global.store_per_request()))},
      {"labs.flash_excessive_256", exact(flash.global.excessive())},
      {"labs.flash_old_q_spr", exact(sectors(old_q))},
      // Section 5.5: registers at d = 128
      {"labs.flash_lane_floats_d128", exact(128 + 128 / kWarp)},
      {"labs.flash_blocks_per_sm_d128", exact(blocks_per_sm_d128)},
      {"labs.flash_occupancy_pct_d128", exact(100 * blocks_per_sm_d128 * Br / max_warps_per_sm)},
      // Section 5.6: matmul at 4096^2
      {"labs.ladder_tflops_naive", rounded(tflops(mm_flop, ms_naive), 1)},
      {"labs.ladder_tflops_coalesced", rounded(tflops(mm_flop, ms_coalesced), 1)},
      {"labs.ladder_tflops_tiled", rounded(tflops(mm_flop, ms_tiled), 1)},
      {"labs.ladder_tflops_coarsened", rounded(tflops(mm_flop, ms_coarsened), 1)},
      {"labs.ladder_tflops_cublas", rounded(tflops(mm_flop, ms_cublas), 1)},
      {"labs.ladder_pct_naive", rounded(pct_cublas(ms_naive), 1)},
      {"labs.ladder_pct_coalesced", rounded(pct_cublas(ms_coalesced), 1)},
      {"labs.ladder_pct_tiled", rounded(pct_cublas(ms_tiled), 1)},
      {"labs.ladder_pct_coarsened", rounded(pct_cublas(ms_coarsened), 1)},
      {"labs.ladder_x_coalesced", rounded(ms_naive / ms_coalesced, 1)},
      {"labs.ladder_x_tiled", rounded(ms_naive / ms_tiled, 1)},
      {"labs.ladder_x_coarsened", rounded(ms_naive / ms_coarsened, 1)},
      {"labs.ladder_x_cublas", rounded(ms_naive / ms_cublas, 0)},
      {"labs.ladder_tiled_over_coal", rounded(ms_coalesced / ms_tiled, 1)},
      {"labs.ladder_coarse_over_tiled", rounded(ms_tiled / ms_coarsened, 1)},
      {"labs.ladder_cublas_over_coarse", rounded(ms_coarsened / ms_cublas, 1)},
      // Sector bytes the coalesced kernel's loads touch per FLOP (the lab 1 model), at its measured
      // rate.
      {"labs.ladder_coal_sector_tbs",
       rounded(double(coal.load_sectors) * kSectorBytes / (2.0 * n1 * n1 * n1) *
                   tflops(mm_flop, ms_coalesced),
               1)},
      {"labs.ladder_cublas_peak_pct",
       rounded(100 * tflops(mm_flop, ms_cublas) / fp32_peak_tflops, 0)},
      // Section 5.6: attention
      {"labs.ladder_s_1k_mib", exact(s_bytes(ns[0]) / MiB)},
      {"labs.ladder_s_4k_mib", exact(s_bytes(ns[1]) / MiB)},
      {"labs.ladder_s_16k_gib", exact(s_bytes(ns[2]) / GiB)},
      {"labs.ladder_s_64k_gib", exact(s_bytes(ns[3]) / GiB)},
      {"labs.ladder_s_256k_gib", exact(s_bytes(ns[4]) / GiB)},
      {"labs.ladder_x_1k_d64", rounded(naive_d64[0] / flash_d64[0], 1)},
      {"labs.ladder_x_4k_d64", rounded(naive_d64[1] / flash_d64[1], 1)},
      {"labs.ladder_x_16k_d64", rounded(naive_d64[2] / flash_d64[2], 1)},
      {"labs.ladder_x_64k_d64", rounded(naive_d64[3] / flash_d64[3], 1)},
      {"labs.ladder_x_1k_d128", rounded(naive_d128[0] / flash_d128[0], 1)},
      {"labs.ladder_x_4k_d128", rounded(naive_d128[1] / flash_d128[1], 1)},
      {"labs.ladder_x_16k_d128", rounded(naive_d128[2] / flash_d128[2], 1)},
      {"labs.ladder_x_64k_d128", rounded(naive_d128[3] / flash_d128[3], 1)},
      {"labs.ladder_s_passes_d64", exact(s_passes_d64)},
      {"labs.ladder_s_traffic_gib_16k", exact(s_passes_d64 * s_bytes(ns[2]) / GiB)},
      {"labs.ladder_s_hbm_ms_16k",
       rounded(s_passes_d64 * s_bytes(ns[2]) / h200_hbm_bytes_per_s * 1e3, 1)},
      {"labs.ladder_naive_tflops_16k_d64", rounded(tflops(attn_flop(ns[2], 64), naive_d64[2]), 1)},
      {"labs.ladder_flash_tflops_16k_d64", rounded(tflops(attn_flop(ns[2], 64), flash_d64[2]), 1)},
      {"labs.ladder_naive_growth_64k_d64", rounded(naive_d64[3] / naive_d64[2], 1)},
      {"labs.ladder_flash_growth_64k_d64", rounded(flash_d64[3] / flash_d64[2], 1)},
      {"labs.ladder_flash_growth_64k_d128", rounded(flash_d128[3] / flash_d128[2], 1)},
      {"labs.ladder_flash_growth_256k_d64", rounded(flash_d64[4] / flash_d64[3], 1)},
      {"labs.ladder_kv_mib_16k_d64", exact(kv_mib(ns[2], 64))},
      {"labs.ladder_kv_mib_64k_d64", exact(kv_mib(ns[3], 64))},
      {"labs.ladder_kv_mib_64k_d128", exact(kv_mib(ns[3], 128))},
      {"labs.ladder_naive_d128_ratio_16k", rounded(naive_d128[2] / naive_d64[2], 1)},
      {"labs.ladder_flash_d128_ratio_16k", rounded(flash_d128[2] / flash_d64[2], 1)},
      {"labs.ladder_qkvo_mib_256k_d64", exact(ns[4] * 64 * kFloat / MiB)},
      {"labs.eager_ms_4k_d64", rounded(h100_eager_d64[1], 3)},
      {"labs.eager_over_naive_4k_d64", rounded(h100_naive_d64[1] / h100_eager_d64[1], 1)},
      {"labs.eager_x_4k_d64", rounded(h100_eager_d64[1] / h100_flash_d64[1], 2)},
      {"labs.eager_x_16k_d64", rounded(h100_eager_d64[2] / h100_flash_d64[2], 2)},
      {"labs.eager_x_4k_d128", rounded(h100_eager_d128[1] / h100_flash_d128[1], 2)},
      {"labs.eager_x_16k_d128", rounded(h100_eager_d128[2] / h100_flash_d128[2], 2)},
      {"labs.fast_mm_pct", rounded(100 * fast_mm_cublas_ms / fast_mm_ms, 1)},
      {"labs.fast_mm_tflops", rounded(2.0 * 4096.0 * 4096 * 4096 / fast_mm_ms / 1e9, 1)},
      // Per BK step a thread reads 4 float4s (2 of A, 2 of B) for 8 x 8 multiply-adds.
      {"labs.fast_mm_lds_per_fma", rounded(4.0 / 64, 4)},
      {"labs.fast_step1_x", rounded(fast_steps[0][1] / fast_steps[0][0], 2)},
      {"labs.fast_step2_x", rounded(fast_steps[1][1] / fast_steps[1][0], 2)},
      {"labs.fast_step3_x", rounded(fast_steps[2][1] / fast_steps[2][0], 2)},
      {"labs.fast_step4_x", rounded(fast_steps[3][1] / fast_steps[3][0], 2)},
      {"labs.fast_x_4k_d64", rounded(fast_eager_d64[0] / fast_d64[0], 2)},
      {"labs.fast_x_16k_d64", rounded(fast_eager_d64[1] / fast_d64[1], 2)},
      {"labs.fast_x_4k_d128", rounded(fast_eager_d128[0] / fast_d128[0], 2)},
      {"labs.fast_x_16k_d128", rounded(fast_eager_d128[1] / fast_d128[1], 2)},
      {"labs.fast_tflops_16k_d64", rounded(attn_flop(16384, 64) / fast_d64[1] / 1e9, 1)},
      {"labs.fast_over_lab_4k_d64", rounded(fast_lab_4k_d64 / fast_d64[0], 1)},
      {"labs.wmma_tflops_d64", rounded(bf16_tflops(wmma_ms[0], 64), 0)},
      {"labs.wmma_tflops_d128", rounded(bf16_tflops(wmma_ms[1], 128), 0)},
      {"labs.eager_bf16_tflops_d64", rounded(bf16_tflops(eager_bf16_ms[0], 64), 0)},
      {"labs.eager_bf16_tflops_d128", rounded(bf16_tflops(eager_bf16_ms[1], 128), 0)},
      {"labs.wmma_x_eager_d64", rounded(eager_bf16_ms[0] / wmma_ms[0], 2)},
      {"labs.wmma_x_eager_d128", rounded(eager_bf16_ms[1] / wmma_ms[1], 2)},
      {"labs.wmma_step0_tflops_d128", rounded(bf16_tflops(step_ms("step0-scratch", 128), 128), 0)},
      {"labs.wmma_step1_tflops_d128",
       rounded(bf16_tflops(step_ms("step1-registers", 128), 128), 0)},
      {"labs.wmma_step2_tflops_d128", rounded(bf16_tflops(step_ms("step2-loads", 128), 128), 0)},
      {"labs.wmma_step3_tflops_d128", rounded(bf16_tflops(step_ms("step3-solution", 128), 128), 0)},
      {"labs.wmma_step1_x_d128",
       rounded(step_ms("step0-scratch", 128) / step_ms("step1-registers", 128), 2)},
      {"labs.wmma_step2_x_d128",
       rounded(step_ms("step1-registers", 128) / step_ms("step2-loads", 128), 2)},
      {"labs.wmma_step3_x_d128",
       rounded(step_ms("step2-loads", 128) / step_ms("step3-solution", 128), 2)},
      {"labs.mma_ref_tflops_d128",
       rounded(bf16_tflops(ladder_ms(bf16, "attention_mma_bf16", 4096, 128), 128), 0)},
      {"labs.wmma_async_tflops_d128",
       rounded(bf16_tflops(step_ms("tried-mtiles-async", 128), 128), 0)},
      {"labs.wmma_overlap_tflops_d128",
       rounded(bf16_tflops(step_ms("tried-overlap-8w", 128), 128), 0)},
      {"labs.wmma_manual_tflops_d128",
       rounded(bf16_tflops(step_ms("tried-manual-kv", 128), 128), 0)},
      {"labs.wmma_mtiles_tflops_d64",
       rounded(bf16_tflops(step_ms("tried-mtiles-bc64", 64), 64), 0)},
  };

  // The models agree with the emulator's own counts: the coarsened kernel's store conflicts
  // in the lab 2 test run, and what the emulator counted for the solution's lab 3 kernel at
  // n = 256, d = 32 (with the K tile padded, and with the padding removed).
  CHECK(strided.store_conflicts == 1024);
  CHECK(flash.global.load_requests == 8448);
  CHECK(flash.global.load_sectors == 33792);
  CHECK(flash.global.store_requests == 256);
  CHECK(flash.shared_load_requests == 139264);
  CHECK(flash.k_read_conflicts == 0);
  CHECK(flash.other_shared_worst == 1);  // no conflict anywhere else either
  CHECK(flash.q_read_words == 1);        // the q copy is a broadcast
  CHECK(flash_unpadded.k_read_conflicts == 2031616);

  // The measured milliseconds themselves, as the tables and the text quote them: matmul to
  // 0.01 ms, attention to four significant digits.
  auto sig4 = [](double ms) {
    return rounded(ms, std::max(0, 3 - static_cast<int>(std::floor(std::log10(ms)))));
  };
  const char* mm_names[] = {"naive", "coalesced", "tiled", "coarsened", "cublas"};
  const double mm_ms[] = {ms_naive, ms_coalesced, ms_tiled, ms_coarsened, ms_cublas};
  for (int i = 0; i < 5; ++i)
    computed[std::string("labs.ladder_ms_") + mm_names[i]] = rounded(mm_ms[i], 2);
  const char* size_names[] = {"1k", "4k", "16k", "64k", "256k"};
  for (int i = 0; i < 5; ++i) {
    const std::string at = std::string("_") + size_names[i];
    if (i < 4) {  // the naive attention does not fit at 256k
      computed["labs.ladder_naive_ms" + at + "_d64"] = sig4(naive_d64[i]);
      computed["labs.ladder_naive_ms" + at + "_d128"] = sig4(naive_d128[i]);
    }
    computed["labs.ladder_flash_ms" + at + "_d64"] = sig4(flash_d64[i]);
    computed["labs.ladder_flash_ms" + at + "_d128"] = sig4(flash_d128[i]);
  }
  computed["labs.fast_mm_ms"] = rounded(fast_mm_ms, 2);
  computed["labs.fast_mm_cublas_ms"] = rounded(fast_mm_cublas_ms, 2);
  computed["labs.fast_mm_coarsened_ms"] = rounded(ladder_ms(fast, "matmul_coarsened", 4096), 2);

  lesson_checks::check_figures(std::filesystem::path(LESSON_DIR) / "notes", "labs.", computed);
}
