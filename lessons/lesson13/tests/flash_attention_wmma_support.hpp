// Shared helpers for lab 4's tests (test_flash_attention_wmma.cpp) and its hidden tests
// (solutions/lesson13/hidden_tests/): run the bf16 tensor-core kernel on the emulator with a
// poisoned output, and compare it with the attention of the same bf16 inputs computed in
// double precision.
#pragma once

#include <cuda_bf16.h>

#include "attention_reference.hpp"
#include "flash_attention_wmma.hpp"
#include "lab_support.hpp"

namespace lesson13::labs {

// The query tile the solution uses (4 warps of 16 rows): the traffic bound counts K and V
// once per tile of this many rows; a student's larger tile stays under it.
inline constexpr int kWmmaBr = 64;

inline std::vector<__nv_bfloat16> to_bf16(const std::vector<float>& v) {
  std::vector<__nv_bfloat16> b(v.size());
  for (size_t k = 0; k < v.size(); ++k) b[k] = __float2bfloat16(v[k]);
  return b;
}

inline std::vector<float> to_float(const std::vector<__nv_bfloat16>& v) {
  std::vector<float> f(v.size());
  for (size_t k = 0; k < v.size(); ++k) f[k] = __bfloat162float(v[k]);
  return f;
}

// softmax(Q_h K_h^T) V_h for every head h, in double, from the bf16 values the kernel reads
// (the reference's standard attention, head by head).
inline std::vector<double> attention_heads(const std::vector<float>& Q, const std::vector<float>& K,
                                           const std::vector<float>& V, int heads, int n, int d) {
  std::vector<double> O;
  O.reserve(static_cast<size_t>(heads) * n * d);
  const size_t area = static_cast<size_t>(n) * d;
  for (int h = 0; h < heads; ++h) {
    auto head = [&](const std::vector<float>& M) {
      return std::vector<float>(M.begin() + h * area, M.begin() + (h + 1) * area);
    };
    const auto O_h = reference::standard_attention(head(Q), head(K), head(V), n, d);
    O.insert(O.end(), O_h.begin(), O_h.end());
  }
  return O;
}

struct wmma_result {
  std::vector<float> O;  // the kernel's bf16 output, widened
  std::vector<double> want;
  double error = 0;
  cuda_emu::launch_record launch;
};

// Q's entries are uniform in [-q_scale, q_scale], K's in [-0.5, 0.5], V's in [-1, 1], all
// rounded to bf16 first: |scores| reach about q_scale d / 4.
inline wmma_result run_wmma(std::mt19937_64& rng, int heads, int n, int d, double q_scale,
                            uint64_t schedule = 0) {
  const int rows = heads * n;
  const auto Q = to_bf16(course::random_matrix(rng, rows, d, q_scale)),
             K = to_bf16(course::random_matrix(rng, rows, d, 0.5)),
             V = to_bf16(course::random_matrix(rng, rows, d, 1.0));
  device_buffer<__nv_bfloat16> dQ(Q), dK(K), dV(V), dO(static_cast<size_t>(rows) * d);
  dO.poison();
  quiet_emulator(schedule);
  const bool accepted = flash_attention_wmma_forward(dQ.ptr, dK.ptr, dV.ptr, dO.ptr, heads, n, d);
  cuda_emu::settings().schedule = 0;
  REQUIRE(accepted);
  wmma_result r;
  r.launch = cuda_emu::all_launches();
  pass_on_warnings(r.launch);
  r.O = to_float(dO.download());
  r.want = attention_heads(to_float(Q), to_float(K), to_float(V), heads, n, d);
  r.error = course::relative_error(r.O, r.want);
  return r;
}

// P and O are rounded to bf16 (8 significant bits): the solution's relative error is about
// 2e-3 (notes §6.8); a wrong row, column or tile is off by 0.1 or more.
inline constexpr double kWmmaTolerance = 1e-2;

struct wmma_shape {
  int heads, n, d;
  double q_scale = 0.5;
};

// Each shape in order, and up to heads n^2 d = 2^20 also under one seeded schedule: a
// clean launch (no race, no invalid access, no timeout) within the tolerance.
inline void check_wmma(std::mt19937_64& rng, std::initializer_list<wmma_shape> shapes) {
  const outputs_only outputs;
  size_t i = 0;
  for (const wmma_shape& s : shapes)
    for (uint64_t schedule : schedules(rng, i++)) {
      if (schedule != 0 && uint64_t(s.heads) * s.n * s.n * s.d > (uint64_t{1} << 20)) continue;
      INFO("heads=" << s.heads << " n=" << s.n << " d=" << s.d
                    << (s.q_scale > 1 ? " (scores of magnitude in the hundreds)" : ""));
      INFO(schedule_note(schedule));
      const wmma_result r = run_wmma(rng, s.heads, s.n, s.d, s.q_scale, schedule);
      const std::string problem = launch_problem(r.launch);
      INFO(problem);
      REQUIRE(problem.empty());
      INFO("relative error " << r.error << " (at most " << kWmmaTolerance << ")");
      if (r.error > kWmmaTolerance) {
        INFO(first_wrong_element(r.O, r.want, s.heads * s.n, s.d, kWmmaTolerance, "O"));
        REQUIRE(r.error <= kWmmaTolerance);
      }
    }
}

}  // namespace lesson13::labs
