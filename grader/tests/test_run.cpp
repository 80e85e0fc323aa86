// Unit tests for the run stage (run.cpp, runners/process.cpp, cache.cpp): reading
// the reporter's records, running jobs through process_runner, the result cache.
//   build/dev/bin/grader_tests "[run]"
#include <signal.h>
#include <unistd.h>

#include <catch2/catch.hpp>

#include "temp_dir.hpp"
#include <filesystem>
#include <fmt/format.h>
#include <fstream>
#include <random>
#include <set>
#include <string>
#include <vector>

#include "grader/pipeline/cache.hpp"
#include "grader/pipeline/run.hpp"

namespace fs = std::filesystem;
using namespace std::chrono_literals;
using Catch::Matchers::Contains;
using grader::parse_records;
using grader::tag_run;
using grader::test_record;

namespace {

// Lines as the course-json reporter writes them (nlohmann sorts the keys).
const std::string passing_line =
    R"({"assertions":3,"failures":[],"passed":true,"seed":7,"tags":["code.update"],"test":"m_new is the running max"})";
const std::string failing_line =
    R"~({"assertions":2,"failures":[{"expanded":"0.25f == Approx( 0.5 )","expression":"O[0] == Approx(ref[0])",)~"
    R"~("file":"lessons/lesson13/tests/test_online_softmax.cpp","info":["shape N=5 d=3","rng seed 7"],"kind":"assertion",)~"
    R"~("line":42,"message":""},{"expanded":"","expression":"","file":"t.cpp","info":[],"kind":"exception",)~"
    R"~("line":50,"message":"std::bad_alloc"}],"passed":false,"seed":7,"tags":["code.update","veto:no-running-max"],)~"
    R"~("test":"l_new rescales the old sum"})~";

// A shell script standing in for a lesson's test binary. It finds Catch2's --out
// file and its last argument (the tag); `record` in the body writes a line there.
fs::path fake_binary(const fs::path& dir, const std::string& body) {
  const fs::path p = dir / "fake_tests";
  std::ofstream(p) << "#!/bin/sh\n"
                      "out=/dev/null; prev=\n"
                      "for a; do [ \"$prev\" = --out ] && out=$a; prev=$a; last=$a; done\n"
                      "record() { printf '%s\\n' \"$1\" >>\"$out\"; }\n"
                   << body;
  fs::permissions(p, fs::perms::owner_all);
  return p;
}

tag_run run_with(std::vector<test_record> records, int exit_code) {
  tag_run t;
  t.tag = "[code.update]";
  t.records = std::move(records);
  t.process.exit_code = exit_code;
  return t;
}

test_record record(std::string name, bool passed) {
  test_record r;
  r.name = std::move(name);
  r.passed = passed;
  return r;
}

// The run stage's runner, one job at a time, as the pipeline drives it.
tag_run run_tag(const fs::path& bin, const std::string& tag, unsigned seed,
                std::chrono::milliseconds timeout, int expected = 0) {
  grader::process_runner runner;
  grader::run_limits limits;
  limits.timeout = timeout;
  return runner.run({"ex", bin, tag, expected}, seed, limits);
}

std::vector<tag_run> run_tags(const fs::path& bin, const std::vector<std::string>& tags,
                              unsigned seed, std::chrono::milliseconds timeout, unsigned parallel,
                              const std::map<std::string, int>& counts = {}) {
  std::vector<grader::test_job> jobs;
  for (const auto& t : tags) jobs.push_back({"ex", bin, t, counts.count(t) ? counts.at(t) : 0});
  grader::process_runner runner;
  grader::run_limits limits;
  limits.timeout = timeout;
  return grader::run_all(runner, jobs, seed, limits, parallel);
}

}  // namespace

// ==== parse_records
// ===================================================================================

TEST_CASE("parse_records reads the reporter's lines and skips what the student printed", "[run]") {
  const std::string output = "student printf: x = 3\n" + passing_line + "\n" +
                             "{oops, not JSON\n"
                             "{\"debug\": 1}\n"  // JSON, but not a record
                             "{\"test\": \"cut off\n"
                             "\n"
                             "   " +
                             passing_line + "\n" +  // after other text on its line: still read
                             failing_line + "\n" +
                             "===============================================================\n"
                             "test cases: 2 | 1 passed | 1 failed";
  const auto records = parse_records(output);
  REQUIRE(records.size() == 3);

  CHECK(records[0].name == "m_new is the running max");
  CHECK(records[0].tags == std::vector<std::string>{"code.update"});
  CHECK(records[0].passed);
  CHECK(records[0].failures.empty());
  CHECK(records[1].name == "m_new is the running max");

  const auto& r = records[2];
  CHECK(r.name == "l_new rescales the old sum");
  CHECK(r.tags == std::vector<std::string>{"code.update", "veto:no-running-max"});
  CHECK_FALSE(r.passed);
  REQUIRE(r.failures.size() == 2);
  CHECK(r.failures[0].file == "lessons/lesson13/tests/test_online_softmax.cpp");
  CHECK(r.failures[0].line == 42);
  CHECK(r.failures[0].kind == "assertion");
  CHECK(r.failures[0].expression == "O[0] == Approx(ref[0])");
  CHECK(r.failures[0].expanded == "0.25f == Approx( 0.5 )");
  CHECK(r.failures[0].message.empty());
  CHECK(r.failures[0].info == std::vector<std::string>{"shape N=5 d=3", "rng seed 7"});
  CHECK(r.failures[1].kind == "exception");
  CHECK(r.failures[1].message == "std::bad_alloc");
  CHECK(r.failures[1].line == 50);
}

TEST_CASE("parse_records: a record's warnings are kept, passed or not", "[run]") {
  const auto records = parse_records(
      R"({"test":"w","passed":true,"assertions":1,"warnings":["the CUDA emulator: x","y"]})");
  REQUIRE(records.size() == 1);
  CHECK(records[0].passed);
  CHECK(records[0].warnings == std::vector<std::string>{"the CUDA emulator: x", "y"});
}

TEST_CASE("parse_records: missing fields take defaults; a record without passed failed", "[run]") {
  const auto records = parse_records("{\"test\":\"bare\"}\n{\"test\":\"f\",\"failures\":[{}]}");
  REQUIRE(records.size() == 2);
  CHECK(records[0].name == "bare");
  CHECK_FALSE(records[0].passed);
  CHECK(records[0].tags.empty());
  CHECK(records[0].failures.empty());
  REQUIRE(records[1].failures.size() == 1);
  CHECK(records[1].failures[0].line == 0);
  CHECK(records[1].failures[0].kind.empty());
  CHECK(parse_records("").empty());
  CHECK(parse_records("no records at all\n").empty());
}

// Student output without a final newline shares a line with the next record, which is
// then skipped: a veto detector's failing record can vanish, and the veto with it.
TEST_CASE("parse_records finds a record that follows student output on the same line", "[run]") {
  const auto records = parse_records(passing_line + "\n" + "debug: m = 3.5" + failing_line + "\n");
  REQUIRE(records.size() == 2);
  CHECK(records[1].name == "l_new rescales the old sum");
  CHECK_FALSE(records[1].passed);
}

// Student code that prints a line shaped like a record with a wrongly typed field makes
// j.value() throw nlohmann::json::type_error out of parse_records; inside run_tags that
// exception leaves a std::thread and terminates the grader.
TEST_CASE("parse_records does not throw on a wrongly typed record", "[run]") {
  CHECK_NOTHROW(parse_records("{\"test\": 1}\n"));
  CHECK_NOTHROW(parse_records("{\"test\": \"t\", \"passed\": \"yes\"}\n"));
  CHECK_NOTHROW(parse_records("{\"test\": \"t\", \"failures\": [1]}\n"));
}

TEST_CASE("tag_run::passed: every test ran and passed, and the process ended cleanly", "[run]") {
  CHECK(run_with({record("a", true), record("b", true)}, 0).passed());
  CHECK_FALSE(run_with({}, 0).passed());  // no test ran
  CHECK_FALSE(run_with({record("a", true), record("b", false)}, 0).passed());
  CHECK_FALSE(run_with({record("a", true)}, 1).passed());  // failed exit code

  tag_run crashed = run_with({record("a", true)}, -1);
  crashed.process.term_signal = SIGSEGV;
  CHECK_FALSE(crashed.passed());

  tag_run hung = run_with({record("a", true)}, -1);
  hung.process.timed_out = true;
  CHECK_FALSE(hung.passed());

  tag_run missing = run_with({}, -1);
  missing.process.spawn_failed = true;
  CHECK_FALSE(missing.passed());
}

TEST_CASE("run_tag runs the binary for one tag with the course-json reporter", "[run]") {
  temp_dir dir;
  const fs::path bin = fake_binary(dir.path,
                                   "echo \"student output\"\n"
                                   "echo \"args: $*\"\n"
                                   "record '" +
                                       passing_line + "'\n");
  const tag_run t = run_tag(bin, "[code.update]", 1234, 10s);
  CHECK(t.tag == "[code.update]");
  CHECK_THAT(t.process.output, Contains("args: --reporter course-json --out "));
  CHECK_THAT(t.process.output, Contains(" --rng-seed 1234 --warn NoAssertions [code.update]\n"));
  REQUIRE(t.records.size() == 1);
  CHECK(t.records[0].name == "m_new is the running max");
  CHECK(t.passed());

  const fs::path hangs = fake_binary(dir.path, "record '" + passing_line + "'\nsleep 5\n");
  const tag_run slow = run_tag(hangs, "[code.update]", 1, 300ms);
  CHECK(slow.process.timed_out);
  CHECK(slow.records.size() == 1);  // what finished before the hang is kept
  CHECK_FALSE(slow.passed());
}

TEST_CASE("run_tag ignores records the student's code prints", "[run]") {
  temp_dir dir;
  // A forged passing record on stdout, then the real, failing one in the --out file.
  const fs::path bin = fake_binary(
      dir.path, "printf '%s\\n' '" + passing_line + "'\nrecord '" + failing_line + "'\n");
  const tag_run t = run_tag(bin, "[code.update]", 1, 10s);
  REQUIRE(t.records.size() == 1);
  CHECK(t.records[0].name == "l_new rescales the old sum");
  CHECK_FALSE(t.passed());
}

TEST_CASE("run_tag fails a tag whose process ends before every test reported", "[run]") {
  temp_dir dir;
  const fs::path bin = fake_binary(dir.path, "record '" + passing_line + "'\nexit 0\n");
  CHECK(run_tag(bin, "[code.update]", 1, 10s, 1).passed());
  CHECK_FALSE(run_tag(bin, "[code.update]", 1, 10s, 3).passed());
}

TEST_CASE("run_tags runs every tag, keeps their order, and reports each process", "[run]") {
  temp_dir dir;
  const fs::path bin = fake_binary(dir.path,
                                   "record \"{\\\"test\\\":\\\"$last\\\",\\\"passed\\\":true}\"\n"
                                   "[ \"$last\" = \"[broken]\" ] && exit 3\n"
                                   "exit 0\n");
  const std::vector<std::string> tags = {"[a]", "[broken]", "[c]", "[veto:d]", "[e]"};
  for (unsigned jobs : {0u, 1u, 3u, 16u}) {
    INFO("jobs " << jobs);
    const auto runs = run_tags(bin, tags, 5, 10s, jobs, {{"[c]", 1}, {"[e]", 2}});
    REQUIRE(runs.size() == tags.size());
    for (size_t i = 0; i < tags.size(); ++i) {
      INFO(tags[i]);
      CHECK(runs[i].tag == tags[i]);
      REQUIRE(runs[i].records.size() == 1);
      CHECK(runs[i].records[0].name == tags[i]);
      CHECK(runs[i].passed() ==
            (tags[i] != "[broken]" && tags[i] != "[e]"));  // [e] expects 2 tests
    }
    CHECK(runs[1].process.exit_code == 3);
  }
  CHECK(run_tags(bin, {}, 5, 10s, 4).empty());
}

TEST_CASE("run_all shares the grade's memory budget among the jobs it runs at once", "[run]") {
  // Each tag holds 200 MiB for a second. The grade's budget, 300 MiB, fits one at a time
  // but not two: two jobs in parallel get 150 MiB each and are both stopped, so a grade
  // never holds more than its budget however many cores it has.
  temp_dir dir;
  const fs::path bin =
      fake_binary(dir.path,
                  "python3 -c 'import time; b = b\"x\" * (200 << 20); time.sleep(1)'\n"
                  "record \"{\\\"test\\\":\\\"$last\\\",\\\"passed\\\":true}\"\n");
  std::vector<grader::test_job> jobs = {{"ex", bin, "[a]", 1}, {"ex", bin, "[b]", 1}};
  grader::process_runner runner;
  grader::run_limits limits;
  limits.timeout = 20s;
  limits.max_memory = 300ull << 20;
  for (unsigned parallel : {1u, 2u}) {
    INFO("parallel " << parallel);
    const auto runs = grader::run_all(runner, jobs, 5, limits, parallel);
    REQUIRE(runs.size() == 2);
    for (const auto& r : runs) {
      CHECK(r.process.memory_exceeded == (parallel == 2));
      CHECK(r.passed() == (parallel == 1));
      if (parallel == 2) CHECK_THAT(r.process.describe(), Contains("more than 150 MiB"));
    }
  }
}

TEST_CASE("run_all starts the longest jobs first and returns results in job order", "[run]") {
  // A runner that only notes the order jobs start in. One worker, so the order is exact.
  struct order_runner final : grader::runner {
    std::vector<std::string> started;
    std::string isolation() const override { return "test"; }
    grader::tag_run run(const grader::test_job& job, unsigned, const grader::run_limits&) override {
      started.push_back(job.tag);
      grader::tag_run t;
      t.tag = job.tag;
      return t;
    }
  } runner;
  std::vector<grader::test_job> jobs = {{"ex", "bin", "[a]", 1},
                                        {"ex", "bin", "[b]", 1},
                                        {"ex", "bin", "[c]", 1},
                                        {"ex", "bin", "[d]", 1}};
  jobs[0].estimate = 0.1;
  jobs[1].estimate = 0.5;
  jobs[3].estimate = 0.3;  // [c] never ran: no estimate, so it starts last
  const auto runs = grader::run_all(runner, jobs, 5, grader::run_limits{}, 1);
  CHECK(runner.started == std::vector<std::string>{"[b]", "[d]", "[a]", "[c]"});
  REQUIRE(runs.size() == 4);
  for (size_t i = 0; i < jobs.size(); ++i) CHECK(runs[i].tag == jobs[i].tag);
}

TEST_CASE("a cache's run times serve as estimates whatever binary made them", "[run]") {
  temp_dir dir;
  const fs::path bin = fake_binary(dir.path, "record '" + passing_line + "'\n");
  const fs::path cache = dir.path / "x.cache.json";
  grader::tag_run r = run_tag(bin, "[code.update]", 42, 10s, 1);
  r.process.seconds = 0.25;
  grader::save_cached_runs(cache, "an older binary", 42, 10s, {r});
  CHECK(grader::cached_run_seconds(cache) ==
        std::map<std::string, double>{{"[code.update]", 0.25}});
  CHECK(grader::cached_run_seconds(dir.path / "missing.json").empty());
  std::ofstream(dir.path / "bad.json") << "{\"runs\": {\"[x]\": {\"seconds\": \"no\"}}";
  CHECK(grader::cached_run_seconds(dir.path / "bad.json").empty());  // not even JSON: none
  std::ofstream(dir.path / "odd.json") << "{\"runs\": {\"[x]\": {\"seconds\": \"no\"}}}";
  CHECK(grader::cached_run_seconds(dir.path / "odd.json").empty());
}

TEST_CASE("run_grouped runs an exercise's judge tags in one process, and alone what it left",
          "[run]") {
  // A judge standing in for a lesson's: for each tag it is given ("[a],[b]": Catch2's
  // "or"), one record per test, two tests a tag; [bad] fails, [hang] hangs after its
  // first test, [crash] dies of SIGSEGV there, and nothing after either runs in that
  // process.
  temp_dir dir;
  const fs::path log = dir.path / "starts";
  const fs::path bin = fake_binary(
      dir.path,
      "echo \"$last\" >>'" + log.string() +
          "'\n"
          "IFS=,; for t in $last; do n=${t#[}; n=${n%]}\n"
          "  p=true; [ \"$n\" = bad ] && p=false\n"
          "  record \"{\\\"test\\\":\\\"$n 1\\\",\\\"tags\\\":[\\\"$n\\\"],\\\"passed\\\":$p}\"\n"
          "  [ \"$n\" = hang ] && sleep 30\n"
          "  [ \"$n\" = crash ] && kill -SEGV $$\n"
          "  record \"{\\\"test\\\":\\\"$n 2\\\",\\\"tags\\\":[\\\"$n\\\"],\\\"passed\\\":true}\"\n"
          "done\n"
          "$p\n");
  auto job = [&](const std::string& tag, const std::string& exercise = "ex") {
    return grader::test_job{exercise, bin, tag, 2, {}, bin};  // a compute: marking mode
  };
  grader::process_runner runner;
  grader::run_limits limits;
  limits.timeout = 2s;
  auto starts = [&] {
    std::ifstream in(log);
    std::vector<std::string> lines;
    for (std::string line; std::getline(in, line);) lines.push_back(line);
    fs::remove(log);
    return lines;
  };

  SECTION("all tags complete: one process, each tag its own verdict") {
    const auto runs =
        grader::run_grouped(runner, {job("[a]"), job("[bad]"), job("[c]")}, 5, limits, 2);
    CHECK(starts() == std::vector<std::string>{"[a],[bad],[c]"});
    REQUIRE(runs.size() == 3);
    CHECK(runs[0].tag == "[a]");
    CHECK(runs[0].records.size() == 2);
    CHECK(runs[0].passed());
    CHECK(runs[0].process.exit_code == 0);
    CHECK_FALSE(runs[1].passed());
    CHECK(runs[1].process.exit_code == 1);
    CHECK(runs[2].passed());
    // Each tag's lines alone: what the cache keeps and parses again.
    CHECK(grader::parse_records(runs[2].raw_records).size() == 2);
  }
  SECTION("a hang: the tags done before it stand, the rest run again alone") {
    const auto runs =
        grader::run_grouped(runner, {job("[a]"), job("[hang]"), job("[c]")}, 5, limits, 1);
    const auto s = starts();
    REQUIRE(s.size() == 3);
    CHECK(s[0] == "[a],[hang],[c]");
    CHECK(std::set<std::string>(s.begin() + 1, s.end()) == std::set<std::string>{"[hang]", "[c]"});
    REQUIRE(runs.size() == 3);
    CHECK(runs[0].passed());
    CHECK_FALSE(runs[0].process.timed_out);
    CHECK(runs[1].process.timed_out);  // alone, it hangs again
    CHECK_FALSE(runs[1].passed());
    CHECK(runs[2].passed());  // alone, nothing stops it
    CHECK(runs[2].records.size() == 2);
  }
  SECTION("a crash keeps the tags done before it, the rest run alone") {
    const auto runs =
        grader::run_grouped(runner, {job("[a]"), job("[crash]"), job("[c]")}, 5, limits, 2);
    const auto s = starts();
    REQUIRE(s.size() == 3);
    CHECK(s[0] == "[a],[crash],[c]");
    REQUIRE(runs.size() == 3);
    CHECK(runs[0].passed());
    CHECK(runs[1].process.term_signal == SIGSEGV);  // alone, it crashes again
    CHECK(runs[1].records.size() == 1);
    CHECK(runs[2].passed());
  }
  SECTION("jobs of other exercises, with no tests listed, or without a judge run as before") {
    auto untested = job("[x]");
    untested.expected_tests = 0;
    const grader::test_job plain{"ex", bin, "[p]", 2};  // practice mode: no compute process
    const auto runs = grader::run_grouped(
        runner, {job("[a]"), job("[c]", "other"), untested, plain, plain}, 5, limits, 2);
    const auto s = starts();
    CHECK(std::multiset<std::string>(s.begin(), s.end()) ==
          std::multiset<std::string>{"[a]", "[c]", "[x]", "[p]", "[p]"});
    REQUIRE(runs.size() == 5);
    CHECK(runs[1].exercise == "other");
    CHECK(runs[1].passed());
  }
}

TEST_CASE("list_tags reads the tags the binary lists, with their test counts", "[run]") {
  temp_dir dir;
  const fs::path bin = fake_binary(dir.path,
                                   "[ \"$1\" = \"--list-tags\" ] || exit 1\n"
                                   "echo 'All available tags:'\n"
                                   "echo '   2  [code.update]'\n"
                                   "echo '   1  [veto:flops-reduced]'\n"
                                   "echo '   1  [code.matches_reference]'\n"
                                   "echo '3 tags'\n");
  CHECK(grader::list_tags(bin) == std::map<std::string, int>{{"[code.matches_reference]", 1},
                                                             {"[code.update]", 2},
                                                             {"[veto:flops-reduced]", 1}});
  CHECK(grader::list_tags(dir.path / "missing").empty());
}

TEST_CASE("cached runs come back only for the same binary and every tag asked", "[run]") {
  temp_dir dir;
  const fs::path bin = fake_binary(dir.path, "record '" + passing_line + "'\n");
  const fs::path cache = dir.path / "x.cache.json";
  const std::string fp = grader::binary_fingerprint(bin);
  REQUIRE_FALSE(fp.empty());
  grader::save_cached_runs(cache, fp, 42, 10s, {run_tag(bin, "[code.update]", 42, 10s, 1)});

  unsigned seed = 0;
  const auto back = grader::load_cached_runs(cache, fp, 10s, {"[code.update]"}, &seed);
  REQUIRE(back.size() == 1);
  CHECK(seed == 42);
  CHECK(back.at("[code.update]").passed());
  CHECK(back.at("[code.update]").records.at(0).name == "m_new is the running max");

  CHECK(grader::load_cached_runs(cache, fp + "x", 10s, {"[code.update]"}, &seed)
            .empty());  // binary changed
  CHECK(grader::load_cached_runs(cache, fp, 10s, {"[code.update]", "[code.normalize]"}, &seed)
            .empty());
  // Another time limit, or (when asked) another seed: the results do not carry over.
  CHECK(grader::load_cached_runs(cache, fp, 3s, {"[code.update]"}, &seed).empty());
  CHECK(grader::load_cached_runs(cache, fp, 10s, {"[code.update]"}, &seed, 43u).empty());
  CHECK(grader::load_cached_runs(cache, fp, 10s, {"[code.update]"}, &seed, 42u).size() == 1);
  CHECK(grader::load_cached_runs(dir.path / "missing.json", fp, 10s, {"[code.update]"}, &seed)
            .empty());
}

TEST_CASE("a cached run keeps everything its score reads: exit status and output", "[run]") {
  temp_dir dir;
  const fs::path bin = fake_binary(dir.path, "record '" + passing_line + "'\n");
  const fs::path cache = dir.path / "x.cache.json";
  const std::string fp = grader::binary_fingerprint(bin);
  tag_run stopped = run_tag(bin, "[code.update]", 42, 10s, 1);
  stopped.process.exit_code = grader::sanitizer_exit_code;
  // A sanitizer's report, and bytes that are not UTF-8 (the student's program wrote them).
  stopped.process.output =
      "==1==ERROR: AddressSanitizer: heap-buffer-overflow on address 0\n"
      "    #0 0x1 in f /s/online_softmax.cpp:23\n\xff\xfe\n";
  grader::save_cached_runs(cache, fp, 42, 10s, {stopped});
  unsigned seed = 0;
  const auto back = grader::load_cached_runs(cache, fp, 10s, {"[code.update]"}, &seed);
  REQUIRE(back.size() == 1);
  const tag_run& again = back.at("[code.update]");
  CHECK(again.process.exit_code == grader::sanitizer_exit_code);
  CHECK(grader::sanitizer_summary(again.process.output, "online_softmax.cpp") ==
        grader::sanitizer_summary(stopped.process.output, "online_softmax.cpp"));
  CHECK_THAT(again.process.output, Contains("online_softmax.cpp:23"));
}

TEST_CASE("parse_records reads the unfilled-blank field the reporter sets", "[run]") {
  const auto records = parse_records(
      R"({"test":"t","passed":false,"blank":"m_new","failures":[{"kind":"exception","message":"x"}]})"
      "\n"
      R"({"test":"u","passed":true})");
  REQUIRE(records.size() == 2);
  CHECK(records[0].blank == "m_new");
  CHECK(records[1].blank.empty());
  tag_run run;
  run.records = records;
  CHECK(run.blank() == "m_new");
}
