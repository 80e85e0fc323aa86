// Checks every `primer.` figure marked in chapter 05 of the lesson 13 notes (the CUDA primer,
// zh and en). Each figure is recomputed here from first principles: launches are walked thread
// by thread, a warp's request is the list of byte addresses its lanes touch, sectors are
// address / 32, banks (address / 4) mod 32, and the reductions, the scan and the shuffles are
// simulated step by step. The probe figures of section 5.6 are also compared with what Nsight
// Compute and compute-sanitizer measured on an H200 (docs/emulator.md). A marked number that
// drifts, a marker without a computation, or a figure missing from one language fails.
//
// Built by CMake into lesson13_checks (in a dev build: ctest --preset dev -R lesson13.checks).
// By hand, from the repository root (one line):
//   g++ -std=c++20 -O1 -DLESSON_DIR='"lessons/lesson13"' -Igrader/testing/include
//   lessons/lesson13/checks/test_figures_primer.cpp
//   build/grader/testing/libcourse_testing.a -o /tmp/figures_primer && /tmp/figures_primer
#include <catch2/catch.hpp>

#include <algorithm>
#include <filesystem>
#include <map>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "course/figures.hpp"

namespace {

using lesson_checks::exact;
using lesson_checks::figure;
using lesson_checks::rounded;

constexpr long kWarp = 32, kSectorBytes = 32, kBanks = 32, kWordBytes = 4, kFloat = 4;

// One access of one lane: its first byte and its width.
struct access {
  long byte, width;
};
// One warp's request: the accesses of its active lanes.
using request = std::vector<access>;

// Distinct 32-byte sectors the request touches.
long sectors(const request& r) {
  std::set<long> s;
  for (const access& a : r)
    for (long b = a.byte; b < a.byte + a.width; ++b) s.insert(b / kSectorBytes);
  return static_cast<long>(s.size());
}

// The sectors the same distinct bytes would need if they were contiguous (the emulator's
// and Nsight Compute's "ideal", behind "excessive sectors").
long ideal_sectors(const request& r) {
  std::set<long> bytes;
  for (const access& a : r)
    for (long b = a.byte; b < a.byte + a.width; ++b) bytes.insert(b);
  return (static_cast<long>(bytes.size()) + kSectorBytes - 1) / kSectorBytes;
}

long bank_of(long byte) {
  return byte / kWordBytes % kBanks;
}

// Shared-memory passes: the most distinct 4-byte words that one bank must deliver.
long wavefronts(const request& r) {
  std::map<long, std::set<long>> words_in_bank;
  for (const access& a : r) words_in_bank[bank_of(a.byte)].insert(a.byte / kWordBytes);
  long worst = 0;
  for (const auto& [bank, words] : words_in_bank)
    worst = std::max(worst, static_cast<long>(words.size()));
  return worst;
}

// A warp of float loads: lane i reads float word `word(i)` of an array that starts aligned.
template <class F>
request floats(F word) {
  request r;
  for (long lane = 0; lane < kWarp; ++lane) r.push_back({word(lane) * kFloat, kFloat});
  return r;
}

// A 1-D launch of ceil(n / block) blocks, walked thread by thread.
struct launch_1d {
  long blocks = 0, threads = 0, idle = 0, last_block_active = 0;
  long partial_warps = 0, partial_warp_active = 0;  // warps with some lanes in range, not all
  long first_out_block = -1, first_out_thread = -1, first_out_index = -1;
};
launch_1d walk_1d(long n, long block) {
  launch_1d l;
  l.blocks = (n + block - 1) / block;
  for (long b = 0; b < l.blocks; ++b) {
    long active = 0;
    for (long w = 0; w < block / kWarp; ++w) {
      long lanes = 0;
      for (long lane = 0; lane < kWarp; ++lane) {
        const long t = w * kWarp + lane, i = b * block + t;
        ++l.threads;
        if (i < n) {
          ++lanes;
        } else if (l.first_out_index < 0) {
          l.first_out_block = b, l.first_out_thread = t, l.first_out_index = i;
        }
      }
      active += lanes;
      if (lanes > 0 && lanes < kWarp) ++l.partial_warps, l.partial_warp_active = lanes;
    }
    l.last_block_active = active;
  }
  l.idle = l.threads - n;
  return l;
}

// The 2-D scale_matrix of section 5.1: blocks of bx x by threads, x along the columns; every
// warp's load of X (and store of Y, the same offsets in another aligned array).
struct launch_2d {
  long grid_x = 0, grid_y = 0, threads = 0;
  long requests = 0, sectors = 0, ideal = 0;  // of the loads; the stores are the same
};
launch_2d walk_2d(long rows, long cols, long bx, long by) {
  launch_2d l;
  l.grid_x = (cols + bx - 1) / bx;
  l.grid_y = (rows + by - 1) / by;
  for (long gy = 0; gy < l.grid_y; ++gy)
    for (long gx = 0; gx < l.grid_x; ++gx)
      for (long w = 0; w < bx * by / kWarp; ++w) {
        request r;
        for (long lane = 0; lane < kWarp; ++lane) {
          const long linear = w * kWarp + lane, tx = linear % bx, ty = linear / bx;
          const long row = gy * by + ty, col = gx * bx + tx;
          ++l.threads;
          if (row < rows && col < cols) r.push_back({(row * cols + col) * kFloat, kFloat});
        }
        if (r.empty()) continue;
        ++l.requests;
        l.sectors += sectors(r);
        l.ideal += ideal_sectors(r);
      }
  return l;
}

}  // namespace

TEST_CASE("primer figures in the lesson 13 notes match their computation", "[figures]") {
  std::map<std::string, figure> computed;

  // ---------------- 5.1: a launch ----------------
  const long block = 256, n = 1000;
  const launch_1d l = walk_1d(n, block);
  REQUIRE(l.partial_warps == 1);  // only one warp diverges at the guard
  computed["primer.warps_per_block"] = exact(block / kWarp);
  computed["primer.t100_warp"] = exact(100 / kWarp);
  computed["primer.t100_lane"] = exact(100 % kWarp);
  computed["primer.t128_warp"] = exact(128 / kWarp);
  computed["primer.floor_blocks_1000"] = exact(n / block);
  computed["primer.floor_covered_1000"] = exact(n / block * block);
  computed["primer.blocks_1000"] = exact(l.blocks);
  computed["primer.threads_1000"] = exact(l.threads);
  computed["primer.idle_1000"] = exact(l.idle);
  computed["primer.last_block_active_1000"] = exact(l.last_block_active);
  computed["primer.partial_warp_active_1000"] = exact(l.partial_warp_active);

  const long rows = 100, cols = 70;
  const launch_2d m = walk_2d(rows, cols, 32, 8);
  computed["primer.grid_x_100x70"] = exact(m.grid_x);
  computed["primer.grid_y_100x70"] = exact(m.grid_y);
  computed["primer.blocks_100x70"] = exact(m.grid_x * m.grid_y);
  computed["primer.threads_100x70"] = exact(m.threads);
  computed["primer.elems_100x70"] = exact(rows * cols);
  const long t53 = 3 * 32 + 5;  // thread (x = 5, y = 3) of a 32 x 8 block
  computed["primer.t53_linear"] = exact(t53);
  computed["primer.t53_warp"] = exact(t53 / kWarp);
  computed["primer.t53_lane"] = exact(t53 % kWarp);

  // ---------------- 5.2: sizes ----------------
  computed["primer.buf256_kib"] = exact(256.0 * kFloat / 1024);
  computed["primer.tile_bytes"] = exact(32 * 32 * kFloat);
  computed["primer.tile_padded_bytes"] = exact(32 * 33 * kFloat);
  computed["primer.static_smem_floats"] = exact(48 * 1024 / kFloat);

  // ---------------- 5.3: the tree reduction and the scan ----------------
  {
    std::vector<long> elems(256, 1);  // how many input elements each buf[t] sums
    long step = 0, ops = 0;
    for (long s = 128; s > 0; s /= 2) {
      long working = 0;
      for (long t = 0; t < s; ++t, ++working, ++ops) elems[t] += elems[t + s];
      ++step;
      REQUIRE(working == s);
      computed["primer.tree_stride_" + std::to_string(step)] = exact(s);
      computed["primer.tree_elems_" + std::to_string(step)] = exact(elems[0]);
    }
    REQUIRE(elems[0] == 256);
    computed["primer.tree_steps"] = exact(step);
    computed["primer.tree_ops"] = exact(ops);
    computed["primer.tree_barriers"] = exact(1 + step);  // after the load, then every step
  }
  {
    // Hillis-Steele with both barriers: every read of a step sees the previous step's values.
    std::vector<long> buf(8, 1);
    long steps = 0;
    for (long o = 1; o < 8; o *= 2, ++steps) {
      const std::vector<long> before = buf;
      for (long t = o; t < 8; ++t) buf[t] = before[t] + before[t - o];
      for (long t = 0; t < 8; ++t)
        computed["primer.scan8_o" + std::to_string(o) + "_" + std::to_string(t)] = exact(buf[t]);
    }
    for (long t = 0; t < 8; ++t) REQUIRE(buf[t] == t + 1);  // inclusive prefix sums of ones
    computed["primer.scan8_steps"] = exact(steps);
    long steps256 = 0, last = 0;
    for (long o = 1; o < 256; o *= 2) ++steps256, last = o;
    computed["primer.scan_steps"] = exact(steps256);
    computed["primer.scan_last_offset"] = exact(last);
    computed["primer.scan_barriers"] = exact(1 + 2 * steps256);
  }

  // ---------------- 5.4: warp shuffles ----------------
  {
    // Each lane's value as counts of the 32 input elements it includes.
    using value = std::vector<long>;
    std::vector<value> down(kWarp, value(kWarp, 0)), butterfly(kWarp, value(kWarp, 0));
    for (long i = 0; i < kWarp; ++i) down[i][i] = butterfly[i][i] = 1;
    std::vector<long> offsets;
    for (long d = kWarp / 2; d > 0; d /= 2) {
      offsets.push_back(d);
      std::vector<value> next_down = down, next_fly = butterfly;
      for (long i = 0; i < kWarp; ++i)
        for (long e = 0; e < kWarp; ++e) {
          // __shfl_down_sync: lane i + d, or the lane's own value past lane 31.
          next_down[i][e] += down[i + d < kWarp ? i + d : i][e];
          next_fly[i][e] += butterfly[i ^ d][e];  // __shfl_xor_sync
        }
      down = next_down, butterfly = next_fly;
      long lane0 = 0;
      for (long e = 0; e < kWarp; ++e) lane0 += down[0][e];
      computed["primer.shfl_lane0_" + std::to_string(offsets.size())] = exact(lane0);
    }
    for (long e = 0; e < kWarp; ++e) REQUIRE(down[0][e] == 1);  // lane 0: each element once
    for (long i = 0; i < kWarp; ++i)
      for (long e = 0; e < kWarp; ++e) REQUIRE(butterfly[i][e] == 1);  // every lane: the total
    // Lanes whose value still matters after step k: those lane 0 reads in the steps after it.
    std::set<long> needed{0};
    for (size_t k = offsets.size(); k-- > 0;) {
      REQUIRE(static_cast<long>(needed.size()) == offsets[k]);
      computed["primer.shfl_offset_" + std::to_string(k + 1)] = exact(offsets[k]);
      std::set<long> before = needed;
      for (long i : needed) before.insert(i + offsets[k]);
      needed = before;
    }
    computed["primer.shfl_steps"] = exact(static_cast<long>(offsets.size()));
  }

  // ---------------- 5.5: sectors and banks ----------------
  const request coalesced = floats([](long i) { return 64 + i; });  // base a multiple of 32
  const request broadcast = floats([](long) { return 5; });
  const request stride32 = floats([](long i) { return 32 * i; });
  request float4;
  for (long i = 0; i < kWarp; ++i) float4.push_back({16 * i, 16});
  computed["primer.spr_coalesced"] = exact(sectors(coalesced));
  computed["primer.spr_broadcast"] = exact(sectors(broadcast));
  computed["primer.spr_stride32"] = exact(sectors(stride32));
  computed["primer.spr_float4"] = exact(sectors(float4));
  computed["primer.stride32_bytes_fetched"] = exact(sectors(stride32) * kSectorBytes);
  computed["primer.stride32_bytes_used"] = exact(double(kWarp * kFloat) / sectors(stride32));
  computed["primer.row1_offset_70"] = exact(1 * cols * kFloat);
  computed["primer.spr_misaligned_70"] = exact(sectors(floats([&](long i) { return cols + i; })));
  computed["primer.m70_ld_requests"] = exact(m.requests);
  computed["primer.m70_ld_sectors"] = exact(m.sectors);
  const long m70_excess = 2 * (m.sectors - m.ideal), m70_total = 2 * m.sectors;
  computed["primer.m70_excessive"] = exact(m70_excess);
  computed["primer.m70_total_sectors"] = exact(m70_total);
  computed["primer.m70_excessive_pct"] = rounded(100.0 * m70_excess / m70_total, 0);

  computed["primer.bank_word_1000"] = exact(1000 / kWordBytes);
  computed["primer.bank_1000"] = exact(bank_of(1000));
  computed["primer.tile57_word"] = exact(5 * 32 + 7);
  computed["primer.tile57_bank"] = exact(bank_of((5 * 32 + 7) * kFloat));
  computed["primer.tile57_word_padded"] = exact(5 * 33 + 7);
  computed["primer.tile57_bank_padded"] = exact(bank_of((5 * 33 + 7) * kFloat));
  const long r = 3, c = 7;
  const request row = floats([&](long i) { return r * 32 + i; });
  const request one_word = floats([&](long) { return r * 32; });
  const request stride2 = floats([](long i) { return 2 * i; });
  const request column = floats([&](long i) { return i * 32 + c; });
  const request column_padded = floats([&](long i) { return i * 33 + c; });
  const std::pair<const char*, const request*> shared_cases[] = {{"row", &row},
                                                                 {"broadcast", &one_word},
                                                                 {"stride2", &stride2},
                                                                 {"column", &column},
                                                                 {"column_padded", &column_padded}};
  for (const auto& [name, req] : shared_cases) {
    computed[std::string("primer.wf_") + name] = exact(wavefronts(*req));
    computed[std::string("primer.conf_") + name] = exact(wavefronts(*req) - 1);
  }
  computed["primer.pad_pct"] = rounded(100.0 * (33.0 / 32.0 - 1.0), 1);

  // ---------------- 5.6: the probes of docs/emulator.md ----------------
  {
    const long blocks = 1024, threads = 256, warps = blocks * threads / kWarp;
    long ld_copy = 0, ld_strided = 0, ld_strided_ideal = 0, st = 0, st_ideal = 0;
    for (long w = 0; w < warps; ++w) {
      const request load = floats([&](long lane) { return w * kWarp + lane; });  // o[i], a[i]
      const request strided = floats([&](long lane) { return (w * kWarp + lane) * 32; });
      ld_copy += sectors(load);
      ld_strided += sectors(strided);
      ld_strided_ideal += ideal_sectors(strided);
      st += sectors(load);
      st_ideal += ideal_sectors(load);
    }
    const long excess = (ld_strided - ld_strided_ideal) + (st - st_ideal);
    const long total = ld_strided + st;
    computed["primer.probe_threads"] = exact(blocks * threads);
    computed["primer.probe_requests"] = exact(warps);
    computed["primer.probe_copy_sectors"] = exact(ld_copy);
    computed["primer.probe_strided_sectors"] = exact(ld_strided);
    computed["primer.probe_excessive"] = exact(excess);
    computed["primer.probe_total_sectors"] = exact(total);
    computed["primer.probe_excessive_pct"] = rounded(100.0 * excess / total, 0);
    // Measured with Nsight Compute 2025.3 on an H200 (docs/emulator.md): the model agrees.
    CHECK(warps == 8192);
    CHECK(ld_copy == 32768);
    CHECK(ld_strided == 262144);
    CHECK(st == 32768);
    CHECK(excess == 229376);
    CHECK(total == 294912);
    // The bank-conflict probe, s[t * 32] from 32 threads: 32 wavefronts, 31 conflicts.
    CHECK(wavefronts(floats([](long t) { return t * 32; })) == 32);
    // The race probe: 256 threads each read the word the next thread writes, with no
    // barrier; racecheck counts hazards per byte and measured 1024.
    long hazard_bytes = 0;
    for (long word = 0; word < 256; ++word) {
      const long writer = word, reader = (word + 255) % 256;  // reader t reads s[(t + 1) % 256]
      if (reader != writer) hazard_bytes += kFloat;
    }
    CHECK(hazard_bytes == 1024);
    computed["primer.race_hazards"] = exact(hazard_bytes);
  }
  REQUIRE(l.first_out_block == 3);
  REQUIRE(l.first_out_thread == 232);  // the memcheck report of section 5.6
  computed["primer.oob_index"] = exact(l.first_out_block * block + l.first_out_thread);
  REQUIRE(l.first_out_index == n);
  computed["primer.alloc_bytes_1000"] = exact(n * kFloat);

  // ---------------- 5.7: lab 0 ----------------
  computed["primer.transpose_rows_per_thread"] = exact(32 / 8);

  lesson_checks::check_figures(std::filesystem::path(LESSON_DIR) / "notes", "primer.", computed);
}
