// Source-text checks of student code (see source_checks.hpp).
#include "grader/lesson/source_checks.hpp"

#include <cctype>
#include <set>

namespace grader {

std::vector<source_finding> uninstrumented_accesses(std::string_view s) {
  // Attributes that drop the hooks, inline assembly, and the C library's bulk copies
  // (not instrumented: libtsan, which would intercept them, is never linked).
  static const std::set<std::string, std::less<>> banned = {
      "no_sanitize", "no_sanitize_thread", "__no_sanitize__", "no_sanitize_address",
      "disable_sanitizer_instrumentation", "__no_sanitize_thread__", "asm", "__asm", "__asm__",
      "memcpy", "memmove", "memset", "memcmp", "__builtin_memcpy", "__builtin_memmove",
      "__builtin_memset", "__builtin_memcmp", "bcopy",
      // the emulator's own API: its records
      kEmulatorNamespace};
  std::vector<source_finding> out;
  int line = 1;
  auto ident = [](char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; };
  for (size_t i = 0; i < s.size();) {
    const char c = s[i];
    if (c == '\n') {
      ++line, ++i;
    } else if (s.substr(i, 2) == "//") {
      while (i < s.size() && s[i] != '\n') ++i;
    } else if (s.substr(i, 2) == "/*") {
      const size_t end = s.find("*/", i + 2);
      const size_t stop = end == std::string_view::npos ? s.size() : end + 2;
      for (; i < stop; ++i) line += s[i] == '\n';
    } else if (c == '"' || c == '\'') {
      // A raw string's body may hold quotes: R"delim( ... )delim".
      if (c == '"' && i > 0 && s[i - 1] == 'R') {
        const size_t open = s.find('(', i);
        const std::string close =
            ")" + std::string(s.substr(i + 1, open == std::string_view::npos ? 0 : open - i - 1)) +
            "\"";
        const size_t end =
            open == std::string_view::npos ? std::string_view::npos : s.find(close, open);
        const size_t stop = end == std::string_view::npos ? s.size() : end + close.size();
        for (; i < stop; ++i) line += s[i] == '\n';
        continue;
      }
      for (++i; i < s.size() && s[i] != c && s[i] != '\n'; ++i)
        if (s[i] == '\\' && i + 1 < s.size()) ++i;
      ++i;
    } else if (s.substr(i, 2) == "##") {
      out.push_back({line, "##"});
      i += 2;
    } else if (ident(c)) {
      size_t j = i;
      while (j < s.size() && ident(s[j])) ++j;
      const std::string_view word = s.substr(i, j - i);
      if (!std::isdigit(static_cast<unsigned char>(c)) && banned.count(word))
        out.push_back({line, std::string(word)});
      i = j;
    } else {
      ++i;
    }
  }
  return out;
}

}  // namespace grader
