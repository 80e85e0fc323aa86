// Checks of a student's source text that no test can make: constructs that take memory
// accesses out of the emulator's view. The emulator counts loads and stores through
// ThreadSanitizer's hooks (docs/emulator.md), so code compiled without them, inline
// assembly, or a libc copy moves memory the lab counters never see.
//   for (const auto& u : uninstrumented_accesses(read_text(file))) ...
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace grader {

struct source_finding {
  int line = 0;
  std::string token;  // as written: "no_sanitize", "asm", "memcpy", "##", ...
};

// Every such construct in `source`, outside comments, string and character literals,
// in order. Token pasting (##) is listed too: it can spell any of them.
std::vector<source_finding> uninstrumented_accesses(std::string_view source);

}  // namespace grader
