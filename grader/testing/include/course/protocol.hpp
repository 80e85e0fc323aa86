// The protocol between a lesson's test binaries and the grader, in one place:
// the reporter's name, the fields of the records it writes, how rubric items and
// veto detectors are tagged, the seed line, and the unfilled-blank signal. The
// harness (catch_main.cpp, testing.hpp, blank.hpp) writes it; the grader's run and
// score stages read it. Header-only and dependency-free so both sides include it.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace course::protocol {

// Catch2 reporter that writes one JSON record per test case to --out.
inline constexpr std::string_view reporter = "course-json";

// The fields of a record (one line of JSON per test case).
namespace field {
inline constexpr const char* test = "test";              // the test case's name
inline constexpr const char* tags = "tags";              // its tags, without brackets
inline constexpr const char* passed = "passed";          // every assertion held, and there was one
inline constexpr const char* assertions = "assertions";  // how many ran
inline constexpr const char* failures = "failures";      // the failed assertions, below
inline constexpr const char* seed = "seed";              // Catch2's --rng-seed
// WARN() messages: what the student should know even when the case passed (an
// emulator warning, say). Optional.
inline constexpr const char* warnings = "warnings";
// Set when the case ran into a BLANK(name) the student has not filled: the name.
inline constexpr const char* blank = "blank";
}  // namespace field

// The fields of one failure inside a record.
namespace failure_field {
inline constexpr const char* file = "file";
inline constexpr const char* line = "line";
inline constexpr const char* expression = "expression";
inline constexpr const char* expanded = "expanded";
inline constexpr const char* message = "message";
inline constexpr const char* kind = "kind";  // one of failure_kind
inline constexpr const char* info = "info";  // INFO() messages in scope
}  // namespace failure_field

namespace failure_kind {
inline constexpr std::string_view assertion = "assertion";  // a CHECK/REQUIRE that did not hold
inline constexpr std::string_view exception = "exception";  // an exception escaped the test
inline constexpr std::string_view fatal = "fatal";          // a signal (crash) during the test
inline constexpr std::string_view fail = "fail";            // an explicit FAIL()
}  // namespace failure_kind

// Tests earn rubric item <id> by carrying the tag [<id>], e.g. [code.update].
inline std::string item_tag(std::string_view item) {
  return "[" + std::string(item) + "]";
}
// A veto's detector tests in a unit carry [veto:<unit>:<veto>]; a detector that
// runs to the end and fails an assertion raises the veto.
inline std::string veto_tag(std::string_view unit, std::string_view veto) {
  return "[veto:" + std::string(unit) + ":" + std::string(veto) + "]";
}
// A verdict per blank (issue 24): a test that judges blank <name> alone carries
// [blank:<name>] and [blanks]. The grader runs [blanks] once per exercise when a student
// practises, and gives each blank its tests' verdict. Such a test that ran into another,
// empty blank (field::blank names it) cannot judge its own yet: it waits for that one.
inline constexpr std::string_view blanks_tag = "[blanks]";
inline constexpr std::string_view blank_tag_prefix = "blank:";
inline std::string blank_tag(std::string_view blank) {
  return "[" + std::string(blank_tag_prefix) + std::string(blank) + "]";
}
// Tests that need the CPU emulator's counters; a GPU run skips them.
inline constexpr std::string_view emulator_tag = "[emulator]";
// Checks of a figure an item's test quotes instead of measuring it again in every grade (a
// given reference kernel's counters, say). No grade runs them, only the lesson's own suite.
inline constexpr std::string_view baseline_tag = "[baseline]";

// The INFO() line that tells how to reproduce a run. The report states the seed
// once, so the grader drops these lines from feedback.
inline constexpr std::string_view seed_line_prefix = "rng seed ";
inline std::string seed_line(std::uint64_t seed) {
  return std::string(seed_line_prefix) + std::to_string(seed) + " (reproduce with --rng-seed " +
         std::to_string(seed) + ")";
}
// A tag for tests only a GPU runs, at sizes past 2^31 elements: too slow to repeat
// under compute-sanitizer.
inline constexpr std::string_view gpu_large_tag = "[gpu_large]";

// An INFO line a test writes when it knows why its check failed (no kernel ran, say):
// the grader then shows that cause instead of the item's generic advice, which would
// guess at another one.
inline constexpr std::string_view cause_prefix = "cause: ";
inline bool is_cause_line(std::string_view line) {
  return line.substr(0, cause_prefix.size()) == cause_prefix;
}

// Marking mode (course/remote.hpp): the judge binary finds the command of its compute
// process, the one that runs student code, in this environment variable (fields
// separated by '\x1f').
inline constexpr const char* compute_variable = "COURSE_COMPUTE";
// The command of a compute process whose memory the judge measures (the same program,
// its sanitizer keeping no freed blocks aside; course/remote.hpp).
inline constexpr const char* compute_measured_variable = "COURSE_COMPUTE_MEASURED";

// Every message of a call the compute process failed (it ended, or answered out of
// protocol) starts so: that is the cause, and the grader shows it without the item's
// advice about the maths, which would guess at another.
inline constexpr std::string_view compute_failure_prefix = "the student's code ";
inline bool is_compute_failure(std::string_view message) {
  return message.substr(0, compute_failure_prefix.size()) == compute_failure_prefix;
}

// A GPU test whose process could not use the GPU at all (no device, no driver, the device
// busy or forbidden: device_buffer's first cudaMalloc says which) fails with a message that
// starts so; the grader reports the item as not judged on the GPU, never as a GPU verdict
// against the emulator's.
inline constexpr std::string_view gpu_unavailable_prefix = "the GPU could not be used: ";
inline bool is_gpu_unavailable(std::string_view message) {
  return message.substr(0, gpu_unavailable_prefix.size()) == gpu_unavailable_prefix;
}

inline bool is_seed_line(std::string_view line) {
  return line.substr(0, seed_line_prefix.size()) == seed_line_prefix;
}

}  // namespace course::protocol
