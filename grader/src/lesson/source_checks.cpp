// Source-text checks of student code (see source_checks.hpp).
#include "grader/lesson/source_checks.hpp"

#include <cctype>
#include <set>

namespace grader {

namespace {

// Translation phase 2 first: a backslash-newline joins two lines, so "no_sani\<newline>tize"
// is one word to the compiler and must be one here. Each kept byte keeps its line.
struct spliced {
  std::string text;
  std::vector<int> line;  // of each byte of text
};
spliced splice(std::string_view s) {
  spliced out;
  out.text.reserve(s.size());
  out.line.reserve(s.size());
  int line = 1;
  for (size_t i = 0; i < s.size(); ++i) {
    if (s[i] == '\\' && i + 1 < s.size() && s[i + 1] == '\n') {
      ++i, ++line;
      continue;
    }
    if (s[i] == '\\' && i + 2 < s.size() && s[i + 1] == '\r' && s[i + 2] == '\n') {
      i += 2, ++line;
      continue;
    }
    out.text.push_back(s[i]);
    out.line.push_back(line);
    if (s[i] == '\n') ++line;
  }
  out.line.push_back(line);
  return out;
}

bool header_name(std::string_view name) {
  for (std::string_view ext : {".h", ".hpp", ".hh", ".hxx", ".cuh", ".inl"})
    if (name.size() > ext.size() && name.substr(name.size() - ext.size()) == ext) return true;
  return false;
}

bool ident(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) || c == '_';
}

// A preprocessor directive at s[i] ('#' or its digraph "%:"): an #include, #include_next or
// #import that brings in another source file (a sibling exercise's, whose own text is
// never checked here), or one whose file a macro computes, is a finding. Returns where the
// directive's name starts, for the scan to go on from.
size_t read_directive(std::string_view s, size_t i, int line, std::vector<source_finding>& out) {
  size_t j = i + (s[i] == '#' ? 1 : 2);
  while (j < s.size() && (s[j] == ' ' || s[j] == '\t')) ++j;
  size_t k = j;
  while (k < s.size() && ident(s[k])) ++k;
  const std::string_view directive = s.substr(j, k - j);
  if (directive != "include" && directive != "include_next" && directive != "import") return j;
  while (k < s.size() && (s[k] == ' ' || s[k] == '\t')) ++k;
  if (k < s.size() && s[k] == '"') {
    const size_t close = s.find('"', k + 1);
    const std::string_view name =
        s.substr(k + 1, close == std::string_view::npos ? 0 : close - k - 1);
    if (!header_name(name))
      out.push_back({line, "#" + std::string(directive) + " \"" + std::string(name) + "\""});
  } else if (k < s.size() && ident(s[k])) {
    size_t m = k;
    while (m < s.size() && ident(s[m])) ++m;
    out.push_back({line, "#" + std::string(directive) + " " + std::string(s.substr(k, m - k))});
  }
  return j;
}

// Past the string or character literal that opens at s[i]; a raw string's body may hold
// quotes: R"delim( ... )delim".
size_t skip_literal(std::string_view s, size_t i) {
  const char quote = s[i];
  if (quote == '"' && i > 0 && s[i - 1] == 'R') {
    const size_t open = s.find('(', i);
    const std::string close =
        ")" + std::string(s.substr(i + 1, open == std::string_view::npos ? 0 : open - i - 1)) +
        "\"";
    const size_t end =
        open == std::string_view::npos ? std::string_view::npos : s.find(close, open);
    return end == std::string_view::npos ? s.size() : end + close.size();
  }
  for (++i; i < s.size() && s[i] != quote && s[i] != '\n'; ++i)
    if (s[i] == '\\' && i + 1 < s.size()) ++i;
  return i + 1;
}

// Past the comment that opens at s[i] ("//" to the end of its line, or "/* ... */").
size_t skip_comment(std::string_view s, size_t i) {
  if (s.substr(i, 2) == "//") {
    while (i < s.size() && s[i] != '\n') ++i;
    return i;
  }
  const size_t end = s.find("*/", i + 2);
  return end == std::string_view::npos ? s.size() : end + 2;
}

// Attributes that drop the hooks, inline assembly, and the C library's bulk copies (not
// instrumented: libtsan, which would intercept them, is never linked).
bool banned_word(std::string_view word) {
  static const std::set<std::string, std::less<>> banned = {
      "no_sanitize", "no_sanitize_thread", "__no_sanitize__", "no_sanitize_address",
      "disable_sanitizer_instrumentation", "__no_sanitize_thread__", "asm", "__asm", "__asm__",
      "memcpy", "memmove", "memset", "memcmp", "__builtin_memcpy", "__builtin_memmove",
      "__builtin_memset", "__builtin_memcmp", "bcopy",
      // the emulator's own API: its records
      kEmulatorNamespace};
  return banned.count(word) > 0;
}

}  // namespace

std::vector<source_finding> uninstrumented_accesses(std::string_view original) {
  const spliced sp = splice(original);
  const std::string_view s = sp.text;
  std::vector<source_finding> out;
  bool line_start = true;  // only blanks since the last newline: a directive may start here
  for (size_t i = 0; i < s.size();) {
    const char c = s[i];
    const int line = sp.line[i];
    const bool at_start = line_start;
    line_start = c == '\n' || (line_start && (c == ' ' || c == '\t'));
    if (at_start && (c == '#' || s.substr(i, 2) == "%:") && s.substr(i, 4) != "%:%:") {
      i = read_directive(s, i, line, out);
    } else if (c == '\n') {
      ++i;
    } else if (s.substr(i, 2) == "//" || s.substr(i, 2) == "/*") {
      i = skip_comment(s, i);
    } else if (c == '"' || c == '\'') {
      i = skip_literal(s, i);
    } else if (s.substr(i, 2) == "##" || s.substr(i, 4) == "%:%:") {  // and its digraph
      out.push_back({line, s.substr(i, 2) == "##" ? "##" : "%:%:"});
      i += s.substr(i, 2) == "##" ? 2 : 4;
    } else if (ident(c)) {
      size_t j = i;
      while (j < s.size() && ident(s[j])) ++j;
      const std::string_view word = s.substr(i, j - i);
      if (!std::isdigit(static_cast<unsigned char>(c)) && banned_word(word))
        out.push_back({line, std::string(word)});
      i = j;
    } else {
      ++i;
    }
  }
  return out;
}

}  // namespace grader
