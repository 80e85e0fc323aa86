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
  CHECK_THAT(out, Catch::Contains("__global__ void plain() { __shared__ int c;static_assert("));
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

// The sm_90 limits ptxas enforces become static_asserts after the declarations, on their
// lines (emulator.limits_build compiles them; test_limits.cpp runs the launch side).
TEST_CASE("static __shared__ and __constant__ declarations assert sm_90's limits", "[rewrite]") {
  const std::string out = rewrite_launches(
      "__global__ void k() {\n  __shared__ float a[8], b[8];\n  { __shared__ int c[2]; }\n"
      "  __shared__ int d;\n}\n__global__ void j() { __shared__ char e[4]; }\n");
  CHECK(std::count(out.begin(), out.end(), '\n') == 6);  // the lines are kept
  CHECK_THAT(out, Catch::Contains("b[8];static_assert(sizeof(a) + sizeof(b) <= 49152, "
                                  "\"static __shared__ memory over 48 KiB"));
  // Arrays in scope are summed: c's block is closed before d, and j is another kernel.
  CHECK_THAT(out, Catch::Contains("c[2];static_assert(sizeof(a) + sizeof(b) + sizeof(c) <= 49152"));
  CHECK_THAT(out, Catch::Contains("d;static_assert(sizeof(a) + sizeof(b) + sizeof(d) <= 49152"));
  CHECK_THAT(out, Catch::Contains("e[4];static_assert(sizeof(e) <= 49152"));
  CHECK_THAT(out, Catch::Contains("::cuda_emu::detail::note_static_shared("
                                  "__builtin_addressof(e), sizeof(e));"));
  // At namespace scope: asserted alone, and registered for the launches that touch it.
  const std::string file_scope = rewrite_launches("__shared__ float g[4];");
  CHECK_THAT(file_scope,
             Catch::StartsWith("__shared__ float g[4];static_assert(sizeof(g) <= 49152"));
  CHECK_THAT(file_scope, Catch::Contains("static const bool cuda_emu_file_shared_g = "
                                         "::cuda_emu::detail::note_file_shared("
                                         "__builtin_addressof(g), sizeof(g));"));
  CHECK_THAT(file_scope, !Catch::Contains("note_static_shared"));
  const std::string constants = rewrite_launches(
      "__constant__ float t[4] = {1, 2, 3, 4};\nnamespace ns { namespace { __constant__ int u; } "
      "}\n"
      "__constant__ float v[2];\n");
  CHECK_THAT(constants, Catch::Contains("int u;static_assert(sizeof(::t) + sizeof(u) <= 65536, "
                                        "\"__constant__ memory of this file over 64 KiB"));
  CHECK_THAT(constants, Catch::Contains("v[2];static_assert(sizeof(::t) + sizeof(::ns::u) + "
                                        "sizeof(v) <= 65536"));
  // extern declarations, macro bodies and comments are left alone.
  for (const char* text : {"extern __shared__ float s[];", "#define S __shared__ float s[4];",
                           "// __shared__ float s[4];", "extern __constant__ float c[4];"})
    CHECK_THAT(rewrite_launches(text), !Catch::Contains("static_assert"));
}

TEST_CASE("printf calls become device_printf; snprintf, literals and comments stay", "[rewrite]") {
  const std::string dp = "::cuda_emu::detail::device_printf";
  CHECK(rewrite_launches("printf(\"%d\\n\", i);") == dp + "(\"%d\\n\", i);");
  CHECK(rewrite_launches("std::printf (\"x\");") == dp + " (\"x\");");
  CHECK(rewrite_launches("::printf(\"x\");") == dp + "(\"x\");");
  CHECK(rewrite_launches("if (t) std :: printf\n(\"x\");") == "if (t) " + dp + "\n(\"x\");");
  CHECK(rewrite_launches("#define LOG(x) printf(\"%d\", x)\n") ==
        "#define LOG(x) " + dp + "(\"%d\", x)\n");
  CHECK(rewrite_launches("int n = printf/* why */(\"a\") + printf(\"b\");") ==
        "int n = " + dp + "/* why */(\"a\") + " + dp + "(\"b\");");
  // The line count stays.
  const std::string lines = rewrite_launches("std::\nprintf(\"a\\n\");\nint after;");
  CHECK(std::count(lines.begin(), lines.end(), '\n') == 2);
  CHECK(lines.ends_with("\nint after;"));
  for (const char* text :
       {"snprintf(buf, 8, \"%d\", i);", "std::snprintf(buf, 8, \"x\");", "fprintf(stderr, \"x\");",
        "const char* s = \"printf(\\\"x\\\")\";", "// printf(\"x\");\n", "/* printf(\"x\"); */",
        "log.printf(\"x\");", "log->printf(\"x\");", "fmt::printf(\"x\");",
        "Log<int>::printf(\"x\");", "#define printf(...) my_printf(__VA_ARGS__)\n",
        "auto* f = &printf;", "my_printf(\"x\");", "__builtin_printf(\"x\");",
        "__attribute__((format(printf, 1, 2))) void f(const char*, ...);", "R\"(printf(\"x\"))\";"})
    CHECK(rewrite_launches(text) == text);
}
