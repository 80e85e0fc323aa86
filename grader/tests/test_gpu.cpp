// Unit tests for GPU mode's pure parts (gpu.cpp): where the GPU's correctness verdicts
// disagree with the emulator's. Running on a GPU is measured in docs/measurements/.
//   build/dev/bin/grader_tests "[gpu]"
#include <catch2/catch.hpp>

#include "grader/commands/gpu.hpp"

using grader::item_status;

namespace {

grader::report emulated(item_status correct, item_status edges) {
  grader::report r;
  grader::unit_report u;
  u.id = "lab_flash";
  u.items = {{"flash.correct", "", 3, 3, correct, "", false, 3, false},
             {"flash.edges", "", 2, 2, edges, "", false, 2, false},
             {"flash.no_nxn", "", 3, 3, item_status::pass, "", false, 3, false}};
  r.units = {u};
  return r;
}

grader::gpu_section on_gpu(const std::string& correct, const std::string& edges) {
  grader::gpu_section g;
  g.checks = {{"flash.correct", correct, ""},
              {"flash.edges", edges, ""},
              {"flash.no_nxn", "emulator-only", ""}};
  return g;
}

}  // namespace

TEST_CASE("disagreements: every item whose verdict differs, none where they agree", "[gpu]") {
  CHECK(
      grader::disagreements(on_gpu("pass", "pass"), emulated(item_status::pass, item_status::pass))
          .empty());
  CHECK(grader::disagreements(on_gpu("fail", "error"),
                              emulated(item_status::fail, item_status::error))
            .empty());
  // A race the emulator's schedule hides, and a crash only the emulator sees.
  CHECK(grader::disagreements(on_gpu("fail", "pass"),
                              emulated(item_status::pass, item_status::fail)) ==
        std::vector<std::string>{"flash.correct: emulator pass, GPU fail",
                                 "flash.edges: emulator fail, GPU pass"});
  // Partial on the emulator is not a pass: it disagrees with a GPU pass.
  CHECK(grader::disagreements(on_gpu("pass", "pass"),
                              emulated(item_status::partial, item_status::pass))
            .size() == 1);
  const auto j = grader::to_json([] {
    auto g = on_gpu("fail", "pass");
    g.disagreements = {"flash.correct: emulator pass, GPU fail"};
    return g;
  }());
  CHECK(j["disagreements"] == nlohmann::json::array({"flash.correct: emulator pass, GPU fail"}));
}

TEST_CASE("first_sanitizer_error: compute-sanitizer's first report on one line", "[gpu]") {
  const std::string memcheck =
      "student printf\n"
      "========= COMPUTE-SANITIZER\n"
      "========= Invalid __global__ read of size 4 bytes\n"
      "=========     at matmul_tiled_kernel(const float *, const float *, float *, int, int, "
      "int)+0x1c0 in matmul_tiled.cu:31\n"
      "=========     by thread (15,3,0) in block (2,0,0)\n"
      "========= ERROR SUMMARY: 1 error\n";
  CHECK(grader::first_sanitizer_error(memcheck) ==
        "Invalid __global__ read of size 4 bytes at matmul_tiled_kernel(const float *, const "
        "float *, float *, int, int, int)+0x1c0 in matmul_tiled.cu:31");
  const std::string racecheck =
      "========= Error: Race reported between Write access at k(float *)+0xd0 in t.cu:5\n"
      "=========     and Read access at k(float *)+0x100 in t.cu:6 [1024 hazards]\n";
  CHECK(grader::first_sanitizer_error(racecheck) ==
        "Error: Race reported between Write access at k(float *)+0xd0 in t.cu:5 and Read access "
        "at k(float *)+0x100 in t.cu:6 [1024 hazards]");
  CHECK(grader::first_sanitizer_error("========= COMPUTE-SANITIZER\n========= ERROR SUMMARY: 0 "
                                      "errors\n")
            .empty());
}
