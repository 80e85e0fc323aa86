// Shared helpers for lab 3 part 2's tests (test_flash_attention_fast.cpp) and its hidden
// tests (solutions/lesson13/hidden_tests/): run the register-tiled kernel on the emulator
// with a poisoned output and compare it with the double-precision standard attention.
#pragma once

#include "attention_reference.hpp"
#include "flash_attention_fast.hpp"
#include "lab_support.hpp"

namespace lesson13::labs {

// The tiles the solution uses (Br = 16 TM query rows, Bc key rows): the shapes below sit on
// and around them, and the traffic bound counts them. A student may retune TM or Bc; the
// bound then still holds with their tiles no smaller than these.
inline constexpr int kBr = 128;
inline int key_tile(int d) {
  return d == 64 ? 64 : 32;
}

struct fast_result {
  std::vector<float> O;
  std::vector<double> want;
  double error = 0;
  cuda_emu::launch_record launch;
};

inline fast_result run_fast(std::mt19937_64& rng, int n, int d, double q_scale, int splits,
                            uint64_t schedule = 0) {
  const auto Q = course::random_matrix(rng, n, d, q_scale),
             K = course::random_matrix(rng, n, d, 0.5), V = course::random_matrix(rng, n, d, 1.0);
  device_buffer<float> dQ(Q), dK(K), dV(V), dO(static_cast<size_t>(n) * d);
  dO.poison();
  quiet_emulator(schedule);
  const bool accepted = flash_attention_fast_forward(dQ.ptr, dK.ptr, dV.ptr, dO.ptr, n, d, splits);
  cuda_emu::settings().schedule = 0;
  REQUIRE(accepted);
  fast_result r;
  r.launch = cuda_emu::all_launches();
  pass_on_warnings(r.launch);
  r.O = dO.download();
  r.want = reference::standard_attention(Q, K, V, n, d);
  r.error = course::relative_error(r.O, r.want);
  return r;
}

// Each (n, d, splits) in order, and up to n^2 d = 2^21 also under one seeded schedule (the
// race checks need no schedule; a schedule of every shape would double a grade's cost): a
// clean launch (no race, no invalid access, no timeout) within `tolerance` of the reference.
struct shape {
  int n, d, splits;
  double q_scale = 0.5;
};
inline void check_fast(std::mt19937_64& rng, std::initializer_list<shape> shapes,
                       double tolerance = 1e-5) {
  const outputs_only outputs;
  size_t i = 0;
  for (const shape& s : shapes)
    for (uint64_t schedule : schedules(rng, i++)) {
      if (schedule != 0 && uint64_t(s.n) * s.n * s.d > (uint64_t{1} << 21)) continue;
      INFO("n=" << s.n << " d=" << s.d << " splits=" << s.splits
                << (s.q_scale > 1 ? " (scores of magnitude in the thousands)" : ""));
      INFO(schedule_note(schedule));
      const fast_result r = run_fast(rng, s.n, s.d, s.q_scale, s.splits, schedule);
      const std::string problem = launch_problem(r.launch);
      INFO(problem);
      REQUIRE(problem.empty());
      INFO("relative error " << r.error << " (at most " << tolerance << ")");
      if (r.error > tolerance) {
        INFO(first_wrong_element(r.O, r.want, s.n, s.d, tolerance, "O"));
        REQUIRE(r.error <= tolerance);
      }
    }
}

}  // namespace lesson13::labs
