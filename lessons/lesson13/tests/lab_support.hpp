// Shared helpers for the lesson 13 CUDA lab tests: run a kernel on the emulator
// with poisoned outputs, and compare it with the double-precision matmul
// reference (reference/matmul_reference.hpp).
#pragma once

#include <chrono>
#include <random>
#include <string>
#include <vector>

#include "course/testing.hpp"
#include "course/device_buffer.hpp"
#include "cuda_emu/emulator.hpp"
#include "matmul_reference.hpp"

namespace lesson13::labs {

// Reports stay in the launch records (the tests print what matters); a hung
// kernel is stopped well inside the grader's own time limit.
inline void quiet_emulator() {
  cuda_emu::settings().print_reports = false;
  cuda_emu::settings().time_limit = std::chrono::seconds(4);
  cuda_emu::reset();
}

struct matmul_result {
  std::vector<float> C;
  double error = 0;                // relative to the reference's norm
  cuda_emu::launch_record launch;  // every launch the exercise made, summed
  size_t launches = 0;
};

using matmul_fn = void (*)(const float*, const float*, float*, int, int, int);

// Runs one matmul on fresh random inputs, with C poisoned first.
inline matmul_result run_matmul(matmul_fn f, std::mt19937_64& rng, int M, int N, int K) {
  const std::vector<float> A = course::random_matrix(rng, M, K, 1.0),
                           B = course::random_matrix(rng, K, N, 1.0);
  device_buffer<float> dA(A), dB(B), dC(static_cast<size_t>(M) * N);
  dC.poison();
  quiet_emulator();
  f(dA.ptr, dB.ptr, dC.ptr, M, N, K);
  matmul_result r;
  r.C = dC.download();
  r.error = course::relative_error(r.C, reference::matmul_reference(A, B, M, N, K));
  r.launches = cuda_emu::launches().size();
  r.launch = cuda_emu::all_launches();
  return r;
}

// Why a counting test stops before it counts: the item it depends on, and what this
// launch itself reported (a time limit, an invalid access, a race), so the real cause
// is not hidden behind the precondition.
inline std::string precondition_note(const matmul_result& r, const char* item) {
  std::string note = std::string("first the results at this size must be right (see ") + item + ")";
  const std::string own = r.launch.sanitizer_text();
  if (!own.empty()) note += "; this launch reported:\n" + own;
  return note;
}

}  // namespace lesson13::labs
