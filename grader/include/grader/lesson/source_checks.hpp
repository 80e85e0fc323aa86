// Checks of a student's source text that no test can make: constructs that take memory
// accesses out of the emulator's view. The emulator counts loads and stores through
// ThreadSanitizer's hooks (docs/emulator.md), so code compiled without them, inline
// assembly, or a libc copy moves memory the lab counters never see; and naming the
// emulator itself, whose records (counters, reports) live in the student's process and
// could be rewritten there before they are sent to the judge.
//   for (const auto& u : uninstrumented_accesses(read_text(file))) ...
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace grader {

// The emulator's namespace: student code has no use for it but rewriting its records.
inline constexpr const char* kEmulatorNamespace = "cuda_emu";

struct source_finding {
  int line = 0;
  std::string token;  // as written: "no_sanitize", "asm", "memcpy", "##", "cuda_emu", ...
};

// Every such construct in `source`, outside comments, string and character literals,
// in order, read as the compiler reads it (backslash-newlines joined first). Token pasting
// (## and its digraph %:%:) is listed too: it can spell any of them; so is an #include of a
// quoted file that is not a header (a sibling exercise's source) or of a macro's file.
std::vector<source_finding> uninstrumented_accesses(std::string_view source);

}  // namespace grader
