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
