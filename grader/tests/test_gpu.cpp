// Unit tests for GPU mode's pure parts (gpu.cpp): where the GPU's correctness verdicts
// disagree with the emulator's, and how a test process becomes a check (a limit is no
// verdict). Running on a GPU is measured in docs/measurements/.
//   build/dev/bin/grader_tests "[gpu]"
#include <catch2/catch.hpp>

#include "grader/pipeline/gpu.hpp"

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

TEST_CASE("gpu_check_of: a limit is no verdict, so never a disagreement with the emulator",
          "[gpu]") {
  using grader::lang;
  grader::tag_run stopped;
  stopped.expected_tests = 2;
  stopped.records = {{"small sizes", {}, true, {}, "", {}}};
  stopped.process.memory_exceeded = true;
  stopped.process.memory_cap = 8ull << 30;
  stopped.process.term_signal = 9;  // the runner's kill at the limit
  const grader::gpu_check c = grader::gpu_check_of("coalescing.correct", stopped, lang::en);
  CHECK(c.status == "error");
  CHECK(c.feedback.find("not judged on the GPU") != std::string::npos);
  CHECK(c.feedback.find("8192 MiB") != std::string::npos);

  // A test that failed before the limit is the GPU's verdict.
  grader::tag_run failed = stopped;
  failed.records.push_back({"large C",
                            {},
                            false,
                            {{"t.cpp", 3, "require", "e <= 1e-5", "0.5 <= 1e-5", "", {}}},
                            "",
                            {}});
  CHECK(grader::gpu_check_of("coalescing.correct", failed, lang::en).status == "fail");

  // A crash with no failed test (and no limit) is the student's code: a fail.
  grader::tag_run crashed;
  crashed.expected_tests = 1;
  crashed.process.term_signal = 11;
  CHECK(grader::gpu_check_of("coalescing.correct", crashed, lang::en).status == "fail");

  grader::tag_run passed;
  passed.expected_tests = 1;
  passed.records = {{"small sizes", {}, true, {}, "", {}}};
  passed.process.exit_code = 0;
  passed.process.peak_memory = 600ull << 20;
  const auto ok = grader::gpu_check_of("coalescing.correct", passed, lang::en);
  CHECK(ok.status == "pass");
  CHECK(grader::to_json([&] {
          grader::gpu_section g;
          g.checks = {ok};
          return g;
        }())["checks"][0]["peak_mib"] == 600);

  // Emulator pass, GPU stopped at a limit: no disagreement, and the text says why.
  grader::gpu_section g = on_gpu("error", "pass");
  g.checks[0].feedback = c.feedback;
  CHECK(grader::disagreements(g, emulated(item_status::pass, item_status::pass)).empty());
  const std::string text = grader::render_text(g, lang::en);
  CHECK(text.find("disagree") == std::string::npos);
  CHECK(text.find("not judged on the GPU: memory limit") != std::string::npos);
}
