// The bf16 tensor-core FlashAttention reference (fast/flash_attention_wmma.cu), checked on
// the emulator's nvcuda::wmma: several heads against the double-precision attention of the
// same bf16 inputs, below one tile, at a tile, off the tiles, for d = 64 and 128, in order
// and under a seeded schedule, with no race or invalid access. Not a graded item yet (the
// tensor-core lab is to be cut from it): ctest lesson13.fast runs it.
//   build/dev/bin/lesson13_fast_tests "[wmma]"
#include <catch2/catch.hpp>

#include <cuda_bf16.h>

#include "flash_attention_wmma.hpp"
#include "lab_support.hpp"

using namespace lesson13;
using namespace lesson13::labs;

namespace {

// Softmax(Q_h K_h^T) V_h per head, in double, from the bf16 values the kernel reads.
std::vector<double> attention_bf16(const std::vector<__nv_bfloat16>& Q,
                                   const std::vector<__nv_bfloat16>& K,
                                   const std::vector<__nv_bfloat16>& V, int heads, int n, int d) {
  std::vector<double> O(static_cast<size_t>(heads) * n * d), s(n);
  for (int h = 0; h < heads; ++h)
    for (int i = 0; i < n; ++i) {
      const size_t base = static_cast<size_t>(h) * n * d;
      double mx = -INFINITY, sum = 0;
      for (int j = 0; j < n; ++j) {
        double dot = 0;
        for (int k = 0; k < d; ++k)
          dot += double(__bfloat162float(Q[base + i * d + k])) * __bfloat162float(K[base + j * d + k]);
        s[j] = dot;
        mx = std::max(mx, dot);
      }
      for (int j = 0; j < n; ++j) sum += s[j] = std::exp(s[j] - mx);
      for (int k = 0; k < d; ++k) {
        double o = 0;
        for (int j = 0; j < n; ++j) o += s[j] * __bfloat162float(V[base + j * d + k]);
        O[base + i * d + k] = o / sum;
      }
    }
  return O;
}

}  // namespace

TEST_CASE("bf16 tensor-core FlashAttention matches the attention of its bf16 inputs", "[wmma]") {
  auto rng = course::test_rng("fast-wmma");
  INFO(course::seed_note());
  size_t i = 0;
  for (auto [heads, n, d] : {std::array{2, 1, 64}, {1, 64, 128}, {2, 100, 64}, {1, 130, 128}})
    for (uint64_t schedule : schedules(rng, i++)) {
      INFO("heads=" << heads << " n=" << n << " d=" << d);
      INFO(schedule_note(schedule));
      const size_t elems = static_cast<size_t>(heads) * n * d;
      auto to_bf16 = [](const std::vector<float>& v) {
        std::vector<__nv_bfloat16> b(v.size());
        for (size_t k = 0; k < v.size(); ++k) b[k] = __float2bfloat16(v[k]);
        return b;
      };
      const auto Q = to_bf16(course::random_matrix(rng, heads * n, d, 0.5)),
                 K = to_bf16(course::random_matrix(rng, heads * n, d, 0.5)),
                 V = to_bf16(course::random_matrix(rng, heads * n, d, 1.0));
      device_buffer<__nv_bfloat16> dQ(Q), dK(K), dV(V), dO(elems);
      dO.poison();
      quiet_emulator(schedule);
      REQUIRE(flash_attention_wmma_forward(dQ.ptr, dK.ptr, dV.ptr, dO.ptr, heads, n, d));
      cuda_emu::settings().schedule = 0;
      const cuda_emu::launch_record launch = cuda_emu::all_launches();
      const std::string problem = launch_problem(launch);
      INFO(problem);
      REQUIRE(problem.empty());
      const auto Ob = dO.download();
      std::vector<float> O(elems);
      for (size_t k = 0; k < elems; ++k) O[k] = __bfloat162float(Ob[k]);
      const auto want = attention_bf16(Q, K, V, heads, n, d);
      // P and O are rounded to bf16 (8 bits): about 2^-9 each, averaged over the keys.
      const double error = course::relative_error(O, want);
      INFO(first_wrong_element(O, want, heads * n, d, 1e-2, "O"));
      CHECK(error <= 1e-2);
    }
  quiet_emulator();
  CHECK_FALSE(flash_attention_wmma_forward(nullptr, nullptr, nullptr, nullptr, 1, 64, 32));
}
