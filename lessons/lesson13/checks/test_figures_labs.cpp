// Checks every `labs.` figure marked in chapter 05 of the lesson 13 notes (the CUDA labs,
// zh and en). Each figure is recomputed here from first principles: the sector, request
// and bank counts come from a small model of one warp's addresses (32 lanes, 4-byte floats,
// 32-byte sectors, 32 banks of 4-byte words), walked over the same launches the lab tests
// make (128 x 128 x 128 matmuls, attention with n = 256 and d = 32). A marked number that
// drifts, a marker without a computation, or a figure missing from one language fails.
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

#include "figures.hpp"

namespace {

using figure = std::pair<double, double>;  // {value, relative tolerance}

figure exact(double value) {
  return {value, 0.0};
}

// A figure the notes round to `decimals` places: allow half a unit in the last place.
figure rounded(double value, int decimals) {
  const double half_unit = 0.5 * std::pow(10.0, -decimals);
  return {value, half_unit * (1.0 + 1e-9) / std::abs(value)};
}

constexpr long kWarp = 32, kSectorBytes = 32, kBanks = 32, kFloat = 4;

// The 4-byte words (indices into one float array) that the active lanes of one warp
// touch with one instruction: one request.
using request = std::vector<long>;

// Distinct 32-byte sectors of a global request (arrays start 256-byte aligned).
long sectors(const request& words) {
  std::set<long> s;
  for (long w : words) s.insert(w * kFloat / kSectorBytes);
  return static_cast<long>(s.size());
}

// The sectors the same distinct bytes would need if they were contiguous.
long ideal_sectors(const request& words) {
  const std::set<long> distinct(words.begin(), words.end());
  const long bytes = static_cast<long>(distinct.size()) * kFloat;
  return (bytes + kSectorBytes - 1) / kSectorBytes;
}

// Passes (wavefronts) of a shared-memory request: the most distinct words in one bank.
long wavefronts(const request& words) {
  std::map<long, std::set<long>> per_bank;
  for (long w : words) per_bank[w % kBanks].insert(w);
  long worst = 0;
  for (const auto& [bank, ws] : per_bank) worst = std::max(worst, static_cast<long>(ws.size()));
  return worst;
}

long distinct_words(const request& words) {
  return static_cast<long>(std::set<long>(words.begin(), words.end()).size());
}

long distinct_banks(const request& words) {
  std::set<long> banks;
  for (long w : words) banks.insert(w % kBanks);
  return static_cast<long>(banks.size());
}

// Thread (tx, ty) of a block of bx x by threads, for lane `lane` of warp `warp`:
// warps are made of consecutive linear thread ids, x varying fastest.
struct thread_id {
  long tx, ty;
};
thread_id lane_thread(long warp, long lane, long block_x) {
  const long linear = warp * kWarp + lane;
  return {linear % block_x, linear / block_x};
}

struct global_counts {
  long load_requests = 0, load_sectors = 0, load_ideal = 0;
  long store_requests = 0, store_sectors = 0, store_ideal = 0;
  void load(const request& r) {
    if (r.empty()) return;
    ++load_requests;
    load_sectors += sectors(r);
    load_ideal += ideal_sectors(r);
  }
  void store(const request& r) {
    if (r.empty()) return;
    ++store_requests;
    store_sectors += sectors(r);
    store_ideal += ideal_sectors(r);
  }
  double load_per_request() const { return double(load_sectors) / double(load_requests); }
  double store_per_request() const { return double(store_sectors) / double(store_requests); }
  long excessive() const { return load_sectors - load_ideal + store_sectors - store_ideal; }
  long total_sectors() const { return load_sectors + store_sectors; }
};

// Labs 1: one thread per C[row][col], blocks of 32 x 32 threads. `coalesced` puts x along
// the columns of C (lab 1's launch); otherwise x runs down the rows (reference/matmul_naive.cu).
global_counts matmul_one_per_thread(bool coalesced, long M, long N, long K) {
  global_counts g;
  const long gx = coalesced ? (N + 31) / 32 : (M + 31) / 32, gy = coalesced ? (M + 31) / 32 : (N + 31) / 32;
  for (long bx = 0; bx < gx; ++bx)
    for (long by = 0; by < gy; ++by)
      for (long w = 0; w < 32; ++w) {
        std::vector<std::pair<long, long>> rc;  // active lanes' (row, col)
        for (long lane = 0; lane < kWarp; ++lane) {
          const thread_id t = lane_thread(w, lane, 32);
          const long row = coalesced ? by * 32 + t.ty : bx * 32 + t.tx;
          const long col = coalesced ? bx * 32 + t.tx : by * 32 + t.ty;
          if (row < M && col < N) rc.push_back({row, col});
        }
        if (rc.empty()) continue;
        for (long k = 0; k < K; ++k) {
          request a, b;
          for (auto [row, col] : rc) {
            a.push_back(row * K + k);
            b.push_back(k * N + col);
          }
          g.load(a);
          g.load(b);
        }
        request c;
        for (auto [row, col] : rc) c.push_back(row * N + col);
        g.store(c);
      }
  return g;
}

// Lab 2's coarsened kernel: a 64 x 64 block tile, 16 x 16 threads, 4 x 4 outputs each, K
// staged 16 at a time. `strided` is the lab's mapping (rows/columns ty + 16 i, tx + 16 j);
// otherwise each thread owns 4 consecutive rows and columns (4 ty + i, 4 tx + j).
struct coarse_counts {
  long shared_load_requests = 0, shared_load_wavefronts = 0;
  long a_read_worst = 0, b_read_worst = 0;  // wavefronts of the worst a[i] / b[j] read
  long as_store_worst = 0, bs_store_worst = 0;
  long store_conflicts = 0;  // wavefronts beyond one, over every shared store
  global_counts global;
};
coarse_counts matmul_coarsened_model(bool strided, long n) {
  constexpr long BT = 64, F = 4, BK = 16, S = 16;
  coarse_counts c;
  auto row_of = [&](thread_id t, long i) { return strided ? t.ty + S * i : F * t.ty + i; };
  auto col_of = [&](thread_id t, long j) { return strided ? t.tx + S * j : F * t.tx + j; };
  const long blocks = (n + BT - 1) / BT;
  for (long by = 0; by < blocks; ++by)
    for (long bx = 0; bx < blocks; ++bx)
      for (long w = 0; w < S * S / kWarp; ++w) {
        std::vector<thread_id> lanes;
        for (long lane = 0; lane < kWarp; ++lane) lanes.push_back(lane_thread(w, lane, S));
        for (long k0 = 0; k0 < n; k0 += BK) {
          // Staging, as given in the lab (the same for both mappings): As[64][16], Bs[16][64].
          for (long i = 0; i < F; ++i) {
            request as, bs;
            for (auto t : lanes) {
              as.push_back((t.ty + S * i) * BK + t.tx);
              bs.push_back(t.ty * BT + t.tx + S * i);
            }
            c.as_store_worst = std::max(c.as_store_worst, wavefronts(as));
            c.bs_store_worst = std::max(c.bs_store_worst, wavefronts(bs));
            c.store_conflicts += wavefronts(as) - 1 + wavefronts(bs) - 1;
          }
          for (long k = 0; k < BK; ++k) {
            for (long i = 0; i < F; ++i) {
              request a;
              for (auto t : lanes) a.push_back(row_of(t, i) * BK + k);
              ++c.shared_load_requests;
              c.shared_load_wavefronts += wavefronts(a);
              c.a_read_worst = std::max(c.a_read_worst, wavefronts(a));
            }
            for (long j = 0; j < F; ++j) {
              request b;
              for (auto t : lanes) b.push_back(k * BT + col_of(t, j));
              ++c.shared_load_requests;
              c.shared_load_wavefronts += wavefronts(b);
              c.b_read_worst = std::max(c.b_read_worst, wavefronts(b));
            }
          }
        }
        for (long i = 0; i < F; ++i)
          for (long j = 0; j < F; ++j) {
            request out;
            for (auto t : lanes) out.push_back((by * BT + row_of(t, i)) * n + bx * BT + col_of(t, j));
            c.global.store(out);
          }
      }
  return c;
}

}  // namespace

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
        a.push_back(t.ty * T + k);   // As[ty][k]
        b.push_back(k * T + t.tx);   // Bs[k][tx]
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
  const double coarse_load_bytes = double(n1 / 64) * (n1 / 64) * (n1 / 16) * (64 * 16 + 16 * 64) * kFloat;
  // Docs/emulator.md's 256 x 256 tiled matmul on an H200: 4 LDS.128 + 16 scalar loads per
  // warp per tile step with nvcc, against the 32 scalar loads of the source.
  const double warps256 = 256.0 * 256 / kWarp, steps256 = 256.0 / T;

  // ---------------- Lab 3: FlashAttention (the read test runs at n = 256, d = 32) -------------
  const double n = 256, d = 32, Br = 32, Bc = 32;
  const double q_tiles = std::ceil(n / Br);
  const double q_floats = n * d, kv_floats = 2 * n * d * q_tiles;
  const double read_floats = q_floats + kv_floats;
  const double m_floats = Br * d;  // the "M ~ 32 d" of the bound
  const double per_thread_kv = q_floats + 2 * n * n * d;  // every thread reads all of K and V
  // Q is read (and O written) lane by lane along rows d floats apart; K_j, V_j are staged
  // with consecutive lanes on consecutive floats.
  request q_req, kv_req;
  for (long lane = 0; lane < kWarp; ++lane) {
    q_req.push_back(lane * static_cast<long>(d) + 3);
    kv_req.push_back(lane);
  }
  global_counts flash;
  for (long blk = 0; blk < q_tiles; ++blk) {
    for (long k = 0; k < d; ++k) {
      request q, o;
      for (long lane = 0; lane < kWarp; ++lane) {
        q.push_back((blk * 32 + lane) * static_cast<long>(d) + k);
        o.push_back((blk * 32 + lane) * static_cast<long>(d) + k);
      }
      flash.load(q);
      flash.store(o);
    }
    for (long j = 0; j < n; j += static_cast<long>(Bc))
      for (long idx = 0; idx < Bc * d; idx += kWarp) {
        request tile;
        for (long lane = 0; lane < kWarp; ++lane) tile.push_back(j * static_cast<long>(d) + idx + lane);
        flash.load(tile);  // K_j
        flash.load(tile);  // V_j (same offsets in its own array)
      }
  }

  const std::map<std::string, figure> computed = {
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
      {"labs.naive_a_useful_pct", exact(100.0 * kWarp * kFloat / (sectors(naive_a) * kSectorBytes))},
      // Lab 2: tiling
      {"labs.tiled_load_ratio", exact(naive_load_bytes / tiled_load_bytes)},
      {"labs.tiled_load_ratio_needed", exact(0.9 * T)},
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
      {"labs.blocked_store_span_bytes", exact(blocked.global.store_per_request() / 2 * kSectorBytes)},
      {"labs.blocked_a_row_gap_words", exact(4 * 16)},  // rows 4 ty + i and 4 (ty + 1) + i of As[64][16]
      {"labs.bs_row_words", exact(64)},                 // Bs[16][64]: one row of the 64-wide block tile
      {"labs.coarse_bs_store_wavefronts", exact(strided.bs_store_worst)},
      {"labs.coarse_store_conflicts_128", exact(strided.store_conflicts)},
      {"labs.ncu_tiled_lds_256", exact((4 + 16) * steps256 * warps256)},
      {"labs.emu_tiled_lds_256", exact(2 * T * steps256 * warps256)},
      // Lab 3
      {"labs.flash_q_tiles_256", exact(q_tiles)},
      {"labs.flash_q_floats", exact(q_floats)},
      {"labs.flash_kv_floats", exact(kv_floats)},
      {"labs.flash_read_floats", exact(read_floats)},
      {"labs.flash_read_bytes", exact(read_floats * kFloat)},
      {"labs.flash_bound_bytes", rounded(1.1 * kFloat * read_floats, 0)},
      {"labs.flash_m_floats", exact(m_floats)},
      {"labs.flash_theta_kv", exact(n * n * d * d / m_floats)},
      {"labs.flash_per_thread_reads", exact(per_thread_kv)},
      {"labs.flash_per_thread_ratio", rounded(per_thread_kv / read_floats, 1)},
      {"labs.flash_s_bytes", exact(n * n * kFloat)},
      {"labs.flash_o_bytes", exact(n * d * kFloat)},
      {"labs.flash_alloc_limit", exact(n * n * kFloat / 8)},
      {"labs.flash_store_limit", exact(2 * n * d * kFloat)},
      {"labs.flash_smem_kib_d128", exact(2 * Bc * 128 * kFloat / 1024)},
      {"labs.flash_thread_floats_d128", exact(128 + 128 + Bc)},
      {"labs.flash_q_spr", exact(sectors(q_req))},
      {"labs.flash_kv_spr", exact(sectors(kv_req))},
      {"labs.flash_excessive_pct", rounded(100.0 * flash.excessive() / flash.total_sectors(), 0)},
      {"labs.flash_partial_50", exact(50 - 32)},
      {"labs.concat_tiles_96", exact(96 / Bc)},
      // flash.correct 3 + flash.no_nxn 3 + flash.global_reads 2: all but flash.edges
      {"labs.nomax_points", exact(3 + 3 + 2)},
      {"labs.flash_idle_50", exact(64 - 50)},
      {"labs.flash_partial_77", exact(77 - 64)},
  };

  // The model agrees with the emulator's own counts quoted in docs/emulator.md and the tests.
  CHECK(flash.load_requests == 4352);
  CHECK(strided.store_conflicts == 1024);

  lesson_checks::check_figures(std::filesystem::path(LESSON_DIR) / "notes", "labs.", computed);
}
