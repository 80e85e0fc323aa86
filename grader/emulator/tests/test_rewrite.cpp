// Unit tests for the <<<>>> source rewrite (src/rewrite.cpp).
//   build/bin/emulator_tests "[rewrite]"
#include <catch2/catch.hpp>

#include "cuda_emu/rewrite.hpp"

using cuda_emu::launch_callable;
using cuda_emu::rewrite_launches;

TEST_CASE("a launch becomes a launch_kernel call", "[rewrite]") {
  CHECK(rewrite_launches("k<<<g, b>>>(x, y);") ==
        "::cuda_emu::launch_kernel(::cuda_emu::launch_config{g, b}, \"k\", " +
            launch_callable("k") + ", x, y);");
  CHECK(rewrite_launches("k<<<1, 32>>>();") ==
        "::cuda_emu::launch_kernel(::cuda_emu::launch_config{1, 32}, \"k\", " +
            launch_callable("k") + ");");
}

TEST_CASE("templates, namespaces and nested brackets in the configuration", "[rewrite]") {
  CHECK(rewrite_launches(
            "ns::k<float, 4><<<dim3(n / 4, (m + 1) / 2), dim3(16, 16)>>>(a[i], f(b));") ==
        "::cuda_emu::launch_kernel(::cuda_emu::launch_config{dim3(n / 4, (m + 1) / 2), dim3(16, "
        "16)}, \"ns::k<float, 4>\", " +
            launch_callable("ns::k<float, 4>") + ", a[i], f(b));");
}

TEST_CASE("extern __shared__ names the emulator's dynamic shared buffer", "[rewrite]") {
  CHECK(rewrite_launches("extern __shared__ float s[];") ==
        " float *const s = "
        "reinterpret_cast<::std::remove_cv_t<decltype(s)>>(::cuda_emu_dynamic_shared);");
  CHECK(rewrite_launches("  extern\n__shared__ __align__(16) char b[][4]; // x\n") ==
        "  \n __align__(16) char (*const b)[4] = "
        "reinterpret_cast<::std::remove_cv_t<decltype(b)>>(::cuda_emu_dynamic_shared); // x\n");
  CHECK(rewrite_launches("extern __shared_x int y; // extern __shared__\n") ==
        "extern __shared_x int y; // extern __shared__\n");
}

TEST_CASE("__shared__ in a template kernel gets a slot of the emulator's pool", "[rewrite]") {
  const std::string out = rewrite_launches(
      "template <int N>\n__global__ void k(float* p) {\n  __shared__ float s[N][N + 1];\n}\n"
      "__global__ void plain() { __shared__ int c; }\n");
  CHECK_THAT(out, Catch::Contains("float (&s)[N][N + 1] = "
                                  "::cuda_emu::detail::template_shared_slot<float[N][N + 1], "
                                  "decltype([] {})>();"));
  CHECK_THAT(out, Catch::Contains("__global__ void plain() { __shared__ int c; }"));
  CHECK_THROWS_WITH(
      rewrite_launches("template <int N> void k() { __shared__ float a[N], b[N]; }"),
      Catch::StartsWith("1: the course's emulator does not support several __shared__"));
}

TEST_CASE("line breaks are kept, so compiler messages keep their lines", "[rewrite]") {
  const std::string out = rewrite_launches("k<<<g,\n b>>>\n(x,\n y);\nint after;");
  CHECK(std::count(out.begin(), out.end(), '\n') == 4);
  CHECK(out.ends_with("\nint after;"));
}

TEST_CASE("comments and strings are left alone", "[rewrite]") {
  const std::string text =
      "// k<<<1, 1>>>(x);\n/* k<<<2, 2>>>(y); */\nconst char* s = \"k<<<3, 3>>>(z)\";\n";
  CHECK(rewrite_launches(text) == text);
  CHECK(rewrite_launches("a << b; c >> d;") == "a << b; c >> d;");
}

TEST_CASE("malformed launches are errors with a line number", "[rewrite]") {
  CHECK_THROWS_WITH(rewrite_launches("\n<<<1, 1>>>(x);"), "2: <<< without a kernel name before it");
  CHECK_THROWS_WITH(rewrite_launches("k<<<1, 1(x);"), "1: <<< without >>>");
  CHECK_THROWS_WITH(rewrite_launches("k<<<1, 1>>>;"), "1: expected ( after >>>");
}
