// Adversarial case forged-records-lab (solutions/lesson13/attacks/forged-records-lab/case.json):
// appended to a matmul_coalesced.cu whose kernel skips the last k.
// Run: grader/tests/adversarial_test.py build/bin/grader . --only forged-records-lab

#include <unistd.h>

#include <cstdio>
#include <string>
#include <vector>

namespace {

// Before main(): the rubric tag under test is the last argument, the records pipe is fd 3
// (both public: the tests and the grader's runner are in the course). Writes a passing
// record for each of the lab's tests under that tag, in the reporter's format, and
// leaves before any real test runs.
struct adv_forge_records {
  adv_forge_records() {
    std::FILE* f = std::fopen("/proc/self/cmdline", "rb");
    if (!f) return;
    std::vector<std::string> args(1);
    for (int c; (c = std::fgetc(f)) != EOF;) {
      if (c == 0)
        args.emplace_back();
      else
        args.back() += static_cast<char>(c);
    }
    std::fclose(f);
    if (args.size() > 1 && args.back().empty()) args.pop_back();
    const std::string tag = args.back();
    std::string record;
    if (tag == "[coalescing.correct]")
      record =
          "{\"test\":\"coalesced matmul matches the reference, sizes not a multiple of 32 "
          "included\",\"tags\":[\"coalescing.correct\"],\"passed\":true,\"assertions\":14,"
          "\"failures\":[]}\n";
    else if (tag == "[coalescing.sectors]")
      record =
          "{\"test\":\"coalesced matmul: a warp's loads and stores touch few sectors\",\"tags\":"
          "[\"coalescing.sectors\",\"emulator\"],\"passed\":true,\"assertions\":6,"
          "\"failures\":[]}\n";
    else
      return;
    if (::write(3, record.data(), record.size()) == static_cast<ssize_t>(record.size())) _exit(0);
  }
} adv_forge_records_now;

}  // namespace
