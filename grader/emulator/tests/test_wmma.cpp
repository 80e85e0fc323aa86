// nvcuda::wmma and bf16 on the emulator (include/mma.h, include/cuda_bf16.h): products
// against a double-precision reference in every load layout, fragments per warp, the
// element layout seen through x[i], and the errors a GPU would give (a lane missing from
// mma_sync, a misaligned pointer or leading dimension, a load racing another warp's writes).
// The GPU's own answers to the same questions: wmma/wmma_probe.gpu.txt (emulator.wmma_probe).
//   build/bin/emulator_tests -# "[#test_wmma]"
#include <catch2/catch.hpp>

#include <cmath>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "course/device_buffer.hpp"
#include "cuda_emu/emulator.hpp"
#include "adversarial_support.hpp"
#include "wmma.hpp"

using namespace adversarial;

namespace {

std::vector<__nv_bfloat16> random_bf16(std::mt19937& rng, size_t n) {
  std::uniform_real_distribution<float> u(-2.0f, 2.0f);
  std::vector<__nv_bfloat16> v(n);
  for (auto& x : v) x = __float2bfloat16(u(rng));
  return v;
}

// Element (r, c) of a 16 x 16 matrix stored with leading dimension ld, in either layout.
double at(const std::vector<__nv_bfloat16>& m, bool row_major, int ld, int r, int c) {
  return __bfloat162float(m[row_major ? r * ld + c : c * ld + r]);
}

}  // namespace

TEST_CASE("wmma::mma_sync matches the double-precision product in every load layout", "[wmma]") {
  quiet q;
  std::mt19937 rng(11);
  for (bool a_row : {true, false})
    for (bool b_row : {true, false})
      for (bool c_row : {true, false}) {
        const int ld = 24;  // wider than the tile: the leading dimension matters
        const auto A = random_bf16(rng, 16 * ld), B = random_bf16(rng, 16 * ld);
        std::vector<float> C(16 * ld);
        for (auto& x : C) x = std::uniform_real_distribution<float>(-1, 1)(rng);
        device_buffer<__nv_bfloat16> dA(A), dB(B);
        device_buffer<float> dC(C), dD(256);
        dD.poison();
        wmma_product(dA.ptr, a_row, dB.ptr, b_row, dC.ptr, c_row, dD.ptr, ld);
        REQUIRE(last().ok());
        const auto D = dD.download();
        INFO("A " << (a_row ? "row" : "col") << "-major, B " << (b_row ? "row" : "col")
                  << "-major, C " << (c_row ? "row" : "col") << "-major");
        for (int r = 0; r < 16; ++r)
          for (int c = 0; c < 16; ++c) {
            double want = c_row ? C[r * ld + c] : C[c * ld + r];
            for (int k = 0; k < 16; ++k) want += at(A, a_row, ld, r, k) * at(B, b_row, ld, k, c);
            INFO("D[" << r << "][" << c << "]");
            REQUIRE(D[r * 16 + c] == Approx(want).margin(1e-6));
          }
      }
}

TEST_CASE("wmma: each warp of a block multiplies its own tile, staged in shared memory", "[wmma]") {
  quiet q;
  std::mt19937 rng(12);
  const int warps = 4;
  const auto A = random_bf16(rng, warps * 256), B = random_bf16(rng, 256);
  device_buffer<__nv_bfloat16> dA(A), dB(B);
  device_buffer<float> dD(warps * 256);
  dD.poison();
  wmma_tiles(dA.ptr, dB.ptr, dD.ptr, warps);
  INFO(last().sanitizer_text());
  REQUIRE(last().ok());
  CHECK(last().counters.wmma_mma_syncs == warps);  // one warp-wide mma_sync each
  const auto D = dD.download();
  for (int w = 0; w < warps; ++w)
    for (int r = 0; r < 16; ++r)
      for (int c = 0; c < 16; ++c) {
        double want = 0;
        for (int k = 0; k < 16; ++k)
          want +=
              double(__bfloat162float(A[w * 256 + r * 16 + k])) * __bfloat162float(B[k * 16 + c]);
        INFO("warp " << w << " D[" << r << "][" << c << "]");
        REQUIRE(D[w * 256 + r * 16 + c] == Approx(want).margin(1e-6));
      }
}

TEST_CASE("wmma: element-wise code on an accumulator's x[i] reaches every element once", "[wmma]") {
  quiet q;
  std::vector<float> C(256);
  for (int i = 0; i < 256; ++i) C[i] = float(i);
  device_buffer<float> dC(C), dD(256);
  dD.poison();
  wmma_scale_elements(dC.ptr, dD.ptr);
  REQUIRE(last().ok());
  const auto D = dD.download();  // stored column-major
  for (int r = 0; r < 16; ++r)
    for (int c = 0; c < 16; ++c) CHECK(D[c * 16 + r] == 2.0f * C[r * 16 + c]);
}

TEST_CASE("wmma::mma_sync with lanes that returned is a barrier error, as on a GPU", "[wmma]") {
  quiet q;
  device_buffer<float> dD(256);
  wmma_lanes_missing(dD.ptr);
  const auto& r = last();
  CHECK(r.error == cudaErrorLaunchFailure);
  REQUIRE(!r.reports.empty());
  INFO(r.reports[0].text);
  CHECK(r.reports[0].kind == cuda_emu::report_kind::synccheck);
  CHECK_THAT(r.reports[0].text, Catch::Contains("wmma::mma_sync needs all 32 lanes"));
  CHECK_THAT(r.reports[0].text, Catch::Contains("lanes 16-31 did not take part"));
}

TEST_CASE(
    "wmma::load_matrix_sync refuses a pointer that is not 32-byte aligned, and a "
    "leading dimension that is not 16 bytes' worth",
    "[wmma]") {
  for (auto [offset, ld, what] :
       {std::tuple{0, 16, ""}, std::tuple{8, 16, "256-bit (32-byte) aligned"},
        std::tuple{0, 20, "ldm = 20 is not a multiple of 8"}}) {
    quiet q;  // a failed launch leaves the context unusable, as on a GPU: one each
    INFO("offset " << offset << " ld " << ld);
    device_buffer<__nv_bfloat16> p(std::vector<__nv_bfloat16>(16 * 32, __float2bfloat16(1.0f)));
    device_buffer<float> dD(256);
    wmma_load_at(p.ptr, offset, ld, dD.ptr);
    if (*what == '\0') {
      CHECK(last().ok());
      continue;
    }
    const auto& r = last();
    CHECK(r.error != cudaSuccess);
    REQUIRE(!r.reports.empty());
    INFO(r.reports[0].text);
    CHECK(r.reports[0].kind == cuda_emu::report_kind::memcheck);
    CHECK_THAT(r.reports[0].text, Catch::Contains("Invalid arguments to wmma::load_matrix_sync"));
    CHECK_THAT(r.reports[0].text, Catch::Contains(what));
  }
}

TEST_CASE("wmma::load_matrix_sync of a tile another warp writes, with no barrier, is a race",
          "[wmma]") {
  quiet q;
  device_buffer<__nv_bfloat16> A(std::vector<__nv_bfloat16>(256, __float2bfloat16(1.0f)));
  device_buffer<float> dD(256);
  wmma_unsynchronised(A.ptr, dD.ptr);
  CHECK_FALSE(last().races.empty());
}

TEST_CASE("bf16 conversions round to nearest even and keep the GPU's NaN", "[wmma]") {
  auto bits = [](float f) { return __bfloat16_as_ushort(__float2bfloat16(f)); };
  auto of = [](uint32_t u) {
    float f;
    std::memcpy(&f, &u, 4);
    return f;
  };
  CHECK(bits(1.0f) == 0x3f80);
  CHECK(bits(of(0x3f808000u)) == 0x3f80);  // a tie, to the even neighbour below
  CHECK(bits(of(0x3f818000u)) == 0x3f82);  // a tie, to the even neighbour above
  CHECK(bits(of(0x3f808001u)) == 0x3f81);  // just past the tie
  CHECK(bits(of(0x7f7fffffu)) == 0x7f80);  // the largest float rounds to infinity
  CHECK(bits(of(0x00018000u)) == 0x0002);  // subnormals are kept, not flushed
  CHECK(bits(std::nanf("")) == 0x7fff);
  CHECK(__bfloat16_as_ushort(__float2bfloat16_rz(of(0x3f81ffffu))) == 0x3f81);
  CHECK(float(__float2bfloat16(3.0f) * __float2bfloat16(0.5f)) == 1.5f);
}

TEST_CASE("a __nv_bfloat162 stored over a bf16 array writes x then y, each rounded alone",
          "[wmma]") {
  static_assert(sizeof(__nv_bfloat162) == 4 && alignof(__nv_bfloat162) == 4);
  __nv_bfloat16 row[4] = {0.0f, 0.0f, 0.0f, 0.0f};
  *reinterpret_cast<__nv_bfloat162*>(&row[2]) = __floats2bfloat162_rn(1.0f, 1.00390625f);
  CHECK(float(row[0]) == 0.0f);
  CHECK(float(row[2]) == 1.0f);
  CHECK(__bfloat16_as_ushort(row[3]) == 0x3f80);  // 1 + 2^-8 is a tie: to even, 1.0
  const __nv_bfloat162 p = __halves2bfloat162(__float2bfloat16(2.0f), __float2bfloat16(-3.0f));
  CHECK(float(__low2bfloat16(p)) == 2.0f);
  CHECK(float(__high2bfloat16(p)) == -3.0f);
}
