// Stage tests for --gpu: hand-made GPU runs through score_gpu (pipeline/score_gpu.cpp) and
// every reporter, with no GPU. A limit that stopped a test is "not judged on the GPU",
// never a fail and never a disagreement with the emulator; compute-sanitizer's error
// fails an item the plain run passed; timings pair with the solution's.
//   build/dev/bin/grader_tests "[gpu-stage]"
#include <catch2/catch.hpp>

#include <sstream>

#include "course/protocol.hpp"
#include "grader/pipeline/gpu.hpp"
#include "grader/pipeline/reporter.hpp"

using grader::item_status;
using grader::lang;

namespace {

grader::tag_run passing_run() {
  grader::tag_run r;
  r.expected_tests = 1;
  r.records = {{"small sizes", {}, true, {}, "", {}}};
  r.process.exit_code = 0;
  r.process.peak_memory = 300ull << 20;
  return r;
}

grader::run_result exited(int code, std::string output) {
  grader::run_result p;
  p.exit_code = code;
  p.output = std::move(output);
  return p;
}

// Four items of a CUDA lab: one passes and compute-sanitizer finds a race in it, one is
// stopped by the memory limit, one fails a test, one does not build with nvcc.
grader::gpu_runs lab_runs() {
  grader::gpu_runs g;
  g.device = "NVIDIA H200";
  g.arch = "90";
  g.any_cuda = true;
  g.has_solutions = true;
  g.items = {"tiling.correct", "tiling.edges", "tiling.large"};
  grader::tag_run stopped = passing_run();
  stopped.records.clear();
  stopped.process.exit_code = -1;
  stopped.process.memory_exceeded = true;
  stopped.process.memory_cap = 2ull << 30;
  stopped.process.term_signal = 9;
  grader::tag_run failed = passing_run();
  failed.records = {{"large C",
                     {},
                     false,
                     {{"t.cpp", 3, "require", "e <= 1e-5", "0.5 <= 1e-5", "", {}}},
                     "",
                     {}}};
  failed.process.exit_code = 1;
  g.runs = {passing_run(), stopped, failed};
  g.not_built = {"flash.correct"};
  g.sanitized_of = {{0, "memcheck"}, {0, "racecheck"}};
  grader::tag_run memcheck_clean = passing_run();
  grader::tag_run race = passing_run();
  race.process = exited(grader::kSanitizerFound,
                        "========= Error: Race reported between Write access at k(float *)+0xd0 "
                        "in t.cu:5\n=========     and Read access at k(float *)+0x100 in t.cu:6\n");
  g.sanitized = {memcheck_clean, race};
  g.bench_built = g.solution_bench_built = true;
  g.bench = exited(0,
                   "{\"kernel\":\"tiled\",\"n\":4096,\"ms\":2.0,\"valid\":true,"
                   "\"baseline\":\"cublas_sgemm\",\"baseline_ms\":1.0}\n"
                   "not json from the student's kernel\n");
  g.bench.peak_memory = 387ull << 20;
  g.solution_bench = exited(0, "{\"kernel\":\"tiled\",\"n\":4096,\"ms\":1.0,\"valid\":true}\n");
  return g;
}

// The emulator passed every item.
grader::report emulated() {
  grader::report r;
  grader::unit_report u;
  u.id = "lab_tiling";
  for (const char* id : {"tiling.correct", "tiling.edges", "tiling.large", "flash.correct"})
    u.items.push_back({id, "", 2, 2, item_status::pass, "", false, 2, false});
  r.units = {u};
  return r;
}

const grader::gpu_check& check_of(const grader::gpu_section& g, const std::string& item) {
  for (const auto& c : g.checks)
    if (c.item == item) return c;
  FAIL("no check for " << item);
  return g.checks.front();
}

std::string written(const grader::report& r, const char* format) {
  std::ostringstream out;
  grader::make_reporter(format)->write(r, out);
  return out.str();
}

}  // namespace

TEST_CASE("score_gpu: each run becomes a check, and only verdicts can disagree", "[gpu-stage]") {
  const grader::gpu_section g = grader::score_gpu(lab_runs(), emulated(), lang::en);
  REQUIRE(g.checks.size() == 4);
  CHECK(check_of(g, "flash.correct").status == "error");  // nvcc could not build it
  CHECK(check_of(g, "flash.correct").feedback.find("nvcc could not build") != std::string::npos);
  // The plain run passed; racecheck's report fails it, quoting the race.
  CHECK(check_of(g, "tiling.correct").status == "fail");
  CHECK(check_of(g, "tiling.correct").feedback.find("--tool racecheck: Error: Race reported") !=
        std::string::npos);
  CHECK(check_of(g, "tiling.correct").peak_bytes == 300ull << 20);
  // The memory limit: no verdict, the limit named.
  CHECK(check_of(g, "tiling.edges").status == "error");
  CHECK(check_of(g, "tiling.edges").feedback.find("not judged on the GPU: memory limit") !=
        std::string::npos);
  CHECK(check_of(g, "tiling.large").status == "fail");
  CHECK(check_of(g, "tiling.large").feedback.find("'large C'") != std::string::npos);
  // The emulator passed all four: the two GPU fails disagree, the two errors do not.
  CHECK(g.disagreements == std::vector<std::string>{"tiling.correct: emulator pass, GPU fail",
                                                    "tiling.large: emulator pass, GPU fail"});
  REQUIRE(g.timings.size() == 1);
  CHECK(g.timings[0].kernel == "tiled");
  CHECK(g.timings[0].size == "n=4096");
  CHECK(g.timings[0].ms == 2.0);
  CHECK(g.timings[0].solution_ms == 1.0);
  CHECK(g.timings[0].baseline_ms == 1.0);
  REQUIRE(g.timings[0].baselines.size() == 1);  // a line with one baseline: that one
  CHECK(g.timings[0].baselines[0].name == "cublas_sgemm");
  CHECK(g.bench_peak_bytes == 387ull << 20);
}

TEST_CASE("score_gpu: a grade of some units says why it has no timings", "[gpu-stage]") {
  grader::gpu_runs runs = lab_runs();
  runs.bench_needs_every_lab = true;
  runs.bench_built = runs.solution_bench_built = false;
  const grader::gpu_section g = grader::score_gpu(runs, emulated(), lang::en);
  CHECK(g.timings.empty());
  bool said = false;
  for (const auto& m : g.messages) {
    CHECK(m.find("did not build") == std::string::npos);  // it was never asked to
    said = said || m.find("without --unit") != std::string::npos;
  }
  CHECK(said);
}

TEST_CASE("score_gpu: a kernel timed against several baselines keeps each, in order",
          "[gpu-stage]") {
  grader::gpu_runs runs = lab_runs();
  runs.bench =
      exited(0,
             "{\"kernel\":\"attention_eager\",\"n\":4096,\"d\":64,\"ms\":0.2}\n"  // a baseline
             "{\"kernel\":\"flash\",\"n\":4096,\"d\":64,\"ms\":0.8,\"valid\":true,"
             "\"baseline\":\"attention_naive\",\"baseline_ms\":4.8,\"baselines\":["
             "{\"name\":\"attention_naive\",\"ms\":4.8},{\"name\":\"attention_eager\",\"ms\":0.2},"
             "{\"name\":\"too_big\",\"ms\":-1},{\"ms\":3},7]}\n");
  const grader::gpu_section g = grader::score_gpu(runs, emulated(), lang::en);
  REQUIRE(g.timings.size() == 1);
  const auto& b = g.timings[0].baselines;
  REQUIRE(b.size() == 3);  // entries without a name are skipped
  CHECK(b[0].name == "attention_naive");
  CHECK(b[0].ms == 4.8);
  CHECK(b[1].name == "attention_eager");
  CHECK(b[1].ms == 0.2);
  CHECK(b[2].ms == -1);
}

TEST_CASE("score_gpu: a lab row with several heads is matched to the solution's at the same heads",
          "[gpu-stage]") {
  grader::gpu_runs runs = lab_runs();
  const std::string row = "{\"kernel\":\"flash_attention_wmma\",\"heads\":16,\"n\":4096,\"d\":128,";
  runs.bench = exited(0, row +
                             "\"ms\":3.0,\"valid\":true,\"reference\":false,"
                             "\"baseline\":\"attention_eager_bf16\",\"baseline_ms\":1.3}\n");
  runs.solution_bench = exited(0, row + "\"ms\":1.4,\"valid\":true,\"reference\":false}\n" +
                                      "{\"kernel\":\"flash_attention_wmma\",\"heads\":8,\"n\":4096,"
                                      "\"d\":128,\"ms\":0.7,\"valid\":true}\n");
  const grader::gpu_section g = grader::score_gpu(runs, emulated(), lang::en);
  REQUIRE(g.timings.size() == 1);
  CHECK(g.timings[0].size == "heads=16 n=4096 d=128");
  CHECK(g.timings[0].solution_ms == 1.4);  // not the 8-head line's 0.7
  REQUIRE(g.timings[0].baselines.size() == 1);
  CHECK(g.timings[0].baselines[0].name == "attention_eager_bf16");
  CHECK(g.timings[0].baselines[0].ms == 1.3);
}

TEST_CASE("score_gpu: the course's reference kernel is a line of context, not a row of theirs",
          "[gpu-stage]") {
  grader::gpu_runs runs = lab_runs();
  runs.bench = exited(
      0,
      "{\"kernel\":\"flash_attention_fast\",\"n\":4096,\"d\":64,\"ms\":0.135,\"valid\":true,"
      "\"reference\":true,\"baseline\":\"attention_naive\",\"baseline_ms\":4.8,"
      "\"speedup_over_eager\":1.51}\n"
      "{\"kernel\":\"flash_attention_fast\",\"n\":262144,\"d\":64,\"ms\":30.5,\"valid\":true,"
      "\"reference\":true,\"baseline\":\"attention_naive\",\"baseline_ms\":-1,"
      "\"speedup_over_eager\":0}\n"
      "{\"kernel\":\"flash_attention_fast\",\"n\":64,\"d\":64,\"ms\":-1,\"valid\":false,"
      "\"reference\":true,\"baseline\":\"attention_naive\"}\n"
      "{\"kernel\":\"matmul_fast\",\"n\":4096,\"ms\":3.5,\"valid\":true,\"reference\":true,"
      "\"baseline\":\"cublas_sgemm\",\"baseline_ms\":2.7,\"percent_of_baseline\":77.1}\n"
      "{\"kernel\":\"matmul_fast\",\"n\":2048,\"ms\":-1,\"valid\":true,\"reference\":true,"
      "\"baseline\":\"cublas_sgemm\"}\n");
  const grader::gpu_section g = grader::score_gpu(runs, emulated(), lang::en);
  CHECK(g.timings.empty());
  auto said = [&g](const std::string& text) {
    for (const auto& m : g.messages)
      if (m.find(text) != std::string::npos) return true;
    return false;
  };
  CHECK(said("flash_attention_fast (n = 4096, d = 64): 0.135 ms, 1.51x the speed of eager"));
  CHECK(said("flash_attention_fast (n = 262144, d = 64): 30.500 ms."));  // no eager: S too big
  CHECK(said("flash_attention_fast (n = 64, d = 64): wrong output, not timed."));
  CHECK(said("matmul_fast (4096 x 4096): 3.500 ms, 77% of cuBLAS SGEMM."));
  // Right output, then no time: a CUDA error while timing, not a wrong answer.
  CHECK(said("matmul_fast (2048 x 2048): a CUDA error in its timed runs, not timed."));
}

TEST_CASE("score_gpu: a sanitizer that cannot finish keeps the pass and says so", "[gpu-stage]") {
  grader::gpu_runs runs = lab_runs();
  runs.sanitized[1].process = exited(-1, "");
  runs.sanitized[1].process.timed_out = true;
  const grader::gpu_section g = grader::score_gpu(runs, emulated(), lang::en);
  CHECK(check_of(g, "tiling.correct").status == "pass");
  CHECK(check_of(g, "tiling.correct").feedback.find("racecheck could not finish") !=
        std::string::npos);
}

TEST_CASE("score_gpu: a test process that could not use the GPU is no verdict", "[gpu-stage]") {
  // device_buffer's first cudaMalloc found no usable GPU (course/device_buffer.hpp): the
  // test fails with that message, and the check is not judged, whatever the emulator said.
  grader::gpu_runs runs = lab_runs();
  const std::string why = std::string(course::protocol::gpu_unavailable_prefix) +
                          "cudaErrorNoDevice: no CUDA-capable device is detected";
  runs.runs[2].records = {
      {"large C", {}, false, {{"t.cpp", 3, "exception", "", "", why, {}}}, "", {}}};
  const grader::gpu_section g = grader::score_gpu(runs, emulated(), lang::en);
  CHECK(check_of(g, "tiling.large").status == "error");
  CHECK(check_of(g, "tiling.large").feedback == "not judged on the GPU: " + why);
  // Only racecheck's fail of tiling.correct is left to disagree.
  CHECK(g.disagreements == std::vector<std::string>{"tiling.correct: emulator pass, GPU fail"});
  // A kernel's own fault is still the test's verdict.
  runs.runs[2].records[0].failures[0].message = "cudaErrorIllegalAddress: an illegal memory access";
  CHECK(check_of(grader::score_gpu(runs, emulated(), lang::en), "tiling.large").status == "fail");
}

TEST_CASE("score_gpu: what could not run is a message, never a check", "[gpu-stage]") {
  grader::gpu_runs none;
  none.device = "NVIDIA H200";
  const grader::gpu_section empty = grader::score_gpu(none, emulated(), lang::en);
  CHECK(empty.checks.empty());
  CHECK(empty.messages == std::vector<std::string>{"These units have no CUDA exercise."});

  grader::gpu_runs release = lab_runs();  // a student release: no solutions to time against
  release.has_solutions = release.solution_bench_built = false;
  release.solution_bench = {};
  const grader::gpu_section g = grader::score_gpu(release, emulated(), lang::zh);
  CHECK(g.timings.at(0).solution_ms == -1);
  CHECK(std::find(g.messages.begin(), g.messages.end(),
                  "与参考解的计时比较：学生版中不提供（没有参考解）。") != g.messages.end());

  grader::gpu_runs crashed = lab_runs();
  crashed.bench = exited(-1, "");
  crashed.bench.term_signal = 11;
  const grader::gpu_section c = grader::score_gpu(crashed, emulated(), lang::en);
  CHECK(c.timings.empty());
  REQUIRE(!c.messages.empty());
  CHECK(c.messages.back().find("the timing program: killed by") != std::string::npos);
}

TEST_CASE("every reporter renders the GPU section", "[gpu-stage]") {
  grader::report r = emulated();
  r.gpu = grader::score_gpu(lab_runs(), r, lang::en);
  const std::string text = written(r, "text");
  CHECK(text.find("GPU: NVIDIA H200 (sm_90)") != std::string::npos);
  CHECK(text.find("! tiling.edges  error: not judged on the GPU: memory limit") !=
        std::string::npos);
  CHECK(text.find("the emulator and the GPU disagree (same seed): tiling.large") !=
        std::string::npos);
  CHECK(text.find("the emulator and the GPU disagree (same seed): tiling.edges") ==
        std::string::npos);
  CHECK(text.find("50% of cuBLAS") != std::string::npos);
  CHECK(text.find("2.00x") != std::string::npos);

  const auto j = nlohmann::json::parse(written(r, "json"));
  REQUIRE(j.contains("gpu"));
  CHECK(j["gpu"]["checks"].size() == 4);
  CHECK(j["gpu"]["bench_peak_mib"] == 387);
  CHECK(j["gpu"]["disagreements"].size() == 2);

  const std::string md = written(r, "markdown");
  CHECK(md.find("## GPU: NVIDIA H200 (sm_90)") != std::string::npos);
  CHECK(md.find("| tiling.edges | error | not judged on the GPU: memory limit") !=
        std::string::npos);
  CHECK(md.find("| tiled | n=4096 | 2.000 | 1.000 | cublas\\_sgemm | 1.000 |") !=
        std::string::npos);

  r.gpu.reset();  // without --gpu, no section anywhere
  CHECK(written(r, "text").find("GPU:") == std::string::npos);
  CHECK(!nlohmann::json::parse(written(r, "json")).contains("gpu"));
  CHECK(written(r, "markdown").find("## GPU") == std::string::npos);
}
