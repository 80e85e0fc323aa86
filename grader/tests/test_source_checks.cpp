// Unit tests for the source-text checks of student code (grader/src/lesson/source_checks.cpp).
//   build/bin/grader_tests "[source_checks]"
#include <catch2/catch.hpp>

#include "grader/lesson/source_checks.hpp"

using grader::uninstrumented_accesses;

namespace {
std::string tokens(std::string_view source) {
  std::string out;
  for (const auto& f : uninstrumented_accesses(source))
    out += std::to_string(f.line) + ":" + f.token + " ";
  return out;
}
}  // namespace

TEST_CASE("uninstrumented_accesses finds what hides accesses from the counters",
          "[source_checks]") {
  CHECK(tokens("__device__ __attribute__((no_sanitize(\"thread\"))) float f();") ==
        "1:no_sanitize ");
  CHECK(
      tokens(
          "[[gnu::no_sanitize_thread]] void g();\n__attribute__((__no_sanitize__(\"thread\")))") ==
      "1:no_sanitize_thread 2:__no_sanitize__ ");
  CHECK(tokens("int x;\n\n  asm volatile(\"\" ::: \"memory\");") == "3:asm ");
  CHECK(tokens("__asm__(\"nop\"); std::memcpy(d, s, n); __builtin_memmove(d, s, n);") ==
        "1:__asm__ 1:memcpy 1:__builtin_memmove ");
  CHECK(tokens("#define CAT(a, b) a##b\nCAT(no_, sanitize)") == "1:## ");
}

TEST_CASE("uninstrumented_accesses ignores comments, strings and longer names", "[source_checks]") {
  CHECK(tokens("// no_sanitize, asm, memcpy in a comment\n/* memset\n ## */ int y;") == "");
  CHECK(tokens("const char* s = \"asm memcpy ## \\\" no_sanitize\";") == "");
  CHECK(tokens("auto r = R\"x(memcpy \" asm)x\"; char c = '#';") == "");
  CHECK(tokens("cudaMemcpy(d, s, n, cudaMemcpyHostToDevice); int asm_count = 0; my_memcpy();") ==
        "");
  // Lines are counted through comments and raw strings that span lines.
  CHECK(tokens("/*\n\n*/ R\"(\n)\"\nasm(\"\");") == "5:asm ");
}

TEST_CASE("uninstrumented_accesses finds the emulator's own API, whose records code could rewrite",
          "[source_checks]") {
  CHECK(tokens("auto& l = const_cast<cuda_emu::launch_record&>(cuda_emu::last_launch());") ==
        "1:cuda_emu 1:cuda_emu ");
  CHECK(tokens("namespace e = cuda_emu;") == "1:cuda_emu ");
  CHECK(tokens("#include \"cuda_emu/emulator.hpp\"\nint my_cuda_emu_count;") == "");
}

TEST_CASE(
    "uninstrumented_accesses reads the text as the compiler does: splices, digraphs, "
    "included sources",
    "[source_checks]") {
  // Found by attack cases a helper wrote: each passed a lab's counting item.
  CHECK(tokens("__attribute__((no_sani\\\ntize(\"thread\"))) float f();\nasm();") ==
        "1:no_sanitize 3:asm ");
  CHECK(tokens("#define CAT(a, b) a%:%:b\nCAT(cuda, _emu)") == "1:%:%: ");
  CHECK(tokens("#include \"online_softmax.cpp\"\n  #  include \"matmul_labs.hpp\"") ==
        "1:#include \"online_softmax.cpp\" ");
  CHECK(tokens("%:include \"x.cu\"\n#define F \"y.cpp\"\n#include F\n#include <vector>") ==
        "1:#include \"x.cu\" 3:#include F ");
  CHECK(tokens("int a; // #include \"x.cpp\"\nconst char* s = \"#include \\\"y.cpp\\\"\";") == "");
}
