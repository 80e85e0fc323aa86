// Adversarial tests of device code beyond indexing: deep recursion on the fiber
// stack, atomics on shared and global memory, printf, and min/max in a .cu file.
//   build/bin/emulator_tests -# "[#test_device_code]"
#include <catch2/catch.hpp>

#include <algorithm>
#include <string>
#include <vector>

#include "course/device_buffer.hpp"
#include "cuda_emu/emulator.hpp"
#include "adversarial_support.hpp"
#include "device_code.hpp"

using namespace adversarial;  // quiet, last(), in_child(), ...

TEST_CASE("nested device functions and recursion 400 deep on the fiber stack", "[adversarial]") {
  quiet q;
  device_buffer<int> in(std::vector<int>{5, 7, 0, 0}), out(32);
  adv_recursion(in.ptr, out.ptr, 400);
  REQUIRE(last().ok());
  const auto got = out.download();
  for (int t = 0; t < 32; ++t) CHECK(got[t] == 12 + 400 + t);
}

TEST_CASE("atomics on a __shared__ int and on global memory", "[adversarial]") {
  quiet q;
  std::vector<int> host(4 * 96);
  for (size_t i = 0; i < host.size(); ++i) host[i] = int((i * 37) % 1000) - 500;
  device_buffer<int> in(host), out(8);
  adv_shared_atomics(in.ptr, out.ptr, 4, 96);
  const auto& r = last();
  INFO(r.sanitizer_text());
  REQUIRE(r.ok());
  const auto got = out.download();
  for (int b = 0; b < 4; ++b) {
    CHECK(got[2 * b] == 96);
    CHECK(got[2 * b + 1] == *std::max_element(host.begin() + b * 96, host.begin() + b * 96 + 96));
  }
  device_buffer<int> ints(std::vector<int>{0, -1, 1000, -1, 0});
  device_buffer<float> f(std::vector<float>{0.0f});
  adv_global_atomics(ints.ptr, f.ptr, 64);
  REQUIRE(last().ok());
  const auto gi = ints.download();
  CHECK(gi[0] == 63 * 64 / 2);
  CHECK(gi[1] == 63 * 3);
  CHECK(gi[2] == 100 - 63);
  CHECK(gi[3] == 0);
  CHECK(gi[4] == -128);
  CHECK(f.download()[0] == 32.0f);
}

TEST_CASE("printf in a kernel prints every thread's line", "[adversarial]") {
  quiet q;
  const std::string text = capture_stdout([] { adv_printf(100, 4); });
  CHECK(last().ok());
  CHECK_THAT(text, Catch::Contains("adv thread 0 of 4 says 100\n"));
  CHECK_THAT(text, Catch::Contains("adv thread 3 of 4 says 103\n"));
  CHECK(std::count(text.begin(), text.end(), '\n') == 4);
}

TEST_CASE("min and max accept float and double in a .cu file, as CUDA's math headers do",
          "[adversarial]") {
  // BUG: cuda.hpp declares min/max for int, unsigned and long long only, so
  // max(x, 0.0f) in a kernel is an ambiguous call and the file does not compile.
  CHECK(adv_float_min_max_compiles());
}

TEST_CASE("__byte_perm picks bytes of y:x as the selector's nibbles say", "[adversarial]") {
  quiet q;
  const std::vector<unsigned> sel = {0x5410u, 0x7632u, 0x0123u, 0x7777u, 0x3210u};
  device_buffer<unsigned> s(sel), out(sel.size());
  adv_byte_perm(s.ptr, out.ptr, static_cast<int>(sel.size()));
  REQUIRE(last().ok());
  CHECK(out.download() ==
        std::vector<unsigned>{0x55441100u, 0x77663322u, 0x00112233u, 0x77777777u, 0x33221100u});
}
