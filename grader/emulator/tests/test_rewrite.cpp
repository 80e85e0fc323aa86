// Unit tests for the <<<>>> source rewrite (src/rewrite.cpp).
//   build/bin/emulator_tests "[rewrite]"
#include <catch2/catch.hpp>

#include "cuda_emu/rewrite.hpp"

using cuda_emu::rewrite_launches;

TEST_CASE("a launch becomes a launch_kernel call", "[rewrite]") {
  CHECK(rewrite_launches("k<<<g, b>>>(x, y);") ==
        "::cuda_emu::launch_kernel(::cuda_emu::launch_config{g, b}, \"k\", k, x, y);");
  CHECK(rewrite_launches("k<<<1, 32>>>();") ==
        "::cuda_emu::launch_kernel(::cuda_emu::launch_config{1, 32}, \"k\", k);");
}

TEST_CASE("templates, namespaces and nested brackets in the configuration", "[rewrite]") {
  CHECK(rewrite_launches(
            "ns::k<float, 4><<<dim3(n / 4, (m + 1) / 2), dim3(16, 16)>>>(a[i], f(b));") ==
        "::cuda_emu::launch_kernel(::cuda_emu::launch_config{dim3(n / 4, (m + 1) / 2), dim3(16, "
        "16)}, "
        "\"ns::k<float, 4>\", ns::k<float, 4>, a[i], f(b));");
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
