// A small model of one warp's memory requests, for the lab figures of lesson 13's notes
// (test_figures_labs.cpp): 32 lanes, 4-byte floats, 32-byte sectors, 32 banks of 4-byte
// words, walked over the launches the lab tests make. It counts the global sectors and
// shared-memory wavefronts of each lab's kernel from the addresses its lanes touch.
#pragma once

#include <algorithm>
#include <map>
#include <set>
#include <utility>
#include <vector>

namespace lesson13_warps {

inline constexpr long kWarp = 32, kSectorBytes = 32, kBanks = 32, kFloat = 4;

// The 4-byte words (indices into one float array) that the active lanes of one warp
// touch with one instruction: one request.
using request = std::vector<long>;

// Distinct 32-byte sectors of a global request (arrays start 256-byte aligned).
inline long sectors(const request& words) {
  std::set<long> s;
  for (long w : words) s.insert(w * kFloat / kSectorBytes);
  return static_cast<long>(s.size());
}

// The sectors the same distinct bytes would need if they were contiguous.
inline long ideal_sectors(const request& words) {
  const std::set<long> distinct(words.begin(), words.end());
  const long bytes = static_cast<long>(distinct.size()) * kFloat;
  return (bytes + kSectorBytes - 1) / kSectorBytes;
}

// Passes (wavefronts) of a shared-memory request: the most distinct words in one bank.
inline long wavefronts(const request& words) {
  std::map<long, std::set<long>> per_bank;
  for (long w : words) per_bank[w % kBanks].insert(w);
  long worst = 0;
  for (const auto& [bank, ws] : per_bank) worst = std::max(worst, static_cast<long>(ws.size()));
  return worst;
}

inline long distinct_words(const request& words) {
  return static_cast<long>(std::set<long>(words.begin(), words.end()).size());
}

inline long distinct_banks(const request& words) {
  std::set<long> banks;
  for (long w : words) banks.insert(w % kBanks);
  return static_cast<long>(banks.size());
}

// Thread (tx, ty) of a block of bx x by threads, for lane `lane` of warp `warp`:
// warps are made of consecutive linear thread ids, x varying fastest.
struct thread_id {
  long tx, ty;
};
inline thread_id lane_thread(long warp, long lane, long block_x) {
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
inline global_counts matmul_one_per_thread(bool coalesced, long M, long N, long K) {
  global_counts g;
  const long gx = coalesced ? (N + 31) / 32 : (M + 31) / 32,
             gy = coalesced ? (M + 31) / 32 : (N + 31) / 32;
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
inline coarse_counts matmul_coarsened_model(bool strided, long n) {
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
            for (auto t : lanes)
              out.push_back((by * BT + row_of(t, i)) * n + bx * BT + col_of(t, j));
            c.global.store(out);
          }
      }
  return c;
}

// Lab 3's kernel (solutions/lesson13/flash_attention.cu): blocks of Br = 16 warps (512
// threads), warp w of a block owning query row r0 + w; K and V staged in tiles of Bc = 32
// rows, K rows padded to d + 1 floats unless `padded` is false. Every warp's global and
// shared requests, in the order the kernel issues them.
struct flash_counts {
  global_counts global;
  long shared_load_requests = 0;
  long k_read_worst = 0, k_read_conflicts = 0;  // lane c reading K_tile[c * P + k]
  long other_shared_worst = 0;                  // Q_tile and V_tile reads, every shared store
  long q_read_words = 0;                        // distinct words of one Q_tile read
};
inline flash_counts flash_model(long n, long d, bool padded) {
  constexpr long Br = 16, Bc = 32, threads = Br * kWarp;
  const long P = padded ? d + 1 : d;
  flash_counts f;
  auto other = [&](const request& r) {
    if (!r.empty()) f.other_shared_worst = std::max(f.other_shared_worst, wavefronts(r));
  };
  for (long r0 = 0; r0 < n; r0 += Br) {
    const long rows = std::min(Br, n - r0);
    for (long w = 0; w < Br; ++w) {
      const long r = r0 + w;
      const bool active = r < n;
      // Q_tile: thread idx copies Q[r0 * d + idx], striding by the block's 512 threads.
      for (long base = w * kWarp; base < rows * d; base += threads) {
        request g, st;
        for (long lane = 0; lane < kWarp && base + lane < rows * d; ++lane) {
          g.push_back(r0 * d + base + lane);
          st.push_back(base + lane);
        }
        f.global.load(g);
        other(st);
      }
      for (long k = 0; k < d; ++k) {  // q[k] = Q_tile[w * d + k], on every warp
        const request q(kWarp, w * d + k);
        ++f.shared_load_requests;
        other(q);
        f.q_read_words = std::max(f.q_read_words, distinct_words(q));
      }
      for (long j = 0; j < n; j += Bc) {
        const long bc = std::min(Bc, n - j);
        for (long base = w * kWarp; base < bc * d; base += threads) {
          request g, sk, sv;
          for (long lane = 0; lane < kWarp && base + lane < bc * d; ++lane) {
            const long idx = base + lane;
            g.push_back(j * d + idx);
            sk.push_back((idx / d) * P + idx % d);
            sv.push_back(idx);
          }
          f.global.load(g);  // K
          f.global.load(g);  // V (the same offsets in its own array)
          other(sk);
          other(sv);
        }
        if (!active) continue;
        for (long k = 0; k < d; ++k) {  // lane c < bc: K_tile[c * P + k]
          request kr;
          for (long c = 0; c < bc; ++c) kr.push_back(c * P + k);
          ++f.shared_load_requests;
          f.k_read_worst = std::max(f.k_read_worst, wavefronts(kr));
          f.k_read_conflicts += wavefronts(kr) - 1;
        }
        for (long u = 0; u < d / kWarp; ++u)
          for (long c = 0; c < bc; ++c) {  // every lane t: V_tile[c * d + t + 32 u]
            request vr;
            for (long t = 0; t < kWarp; ++t) vr.push_back(c * d + t + kWarp * u);
            ++f.shared_load_requests;
            other(vr);
          }
      }
      if (active)
        for (long u = 0; u < d / kWarp; ++u) {  // O[r][t + 32 u]
          request o;
          for (long t = 0; t < kWarp; ++t) o.push_back(r * d + t + kWarp * u);
          f.global.store(o);
        }
    }
  }
  return f;
}

}  // namespace lesson13_warps
