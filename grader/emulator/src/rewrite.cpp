// <<<>>> rewrite (see rewrite.hpp). A small scanner, not a parser: it knows
// comments, string and character literals, and bracket nesting.
#include "cuda_emu/rewrite.hpp"

#include <cctype>
#include <vector>

namespace cuda_emu {
namespace {

bool ident_char(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) || c == '_';
}

int line_at(std::string_view s, size_t pos) {
  int line = 1;
  for (size_t i = 0; i < pos && i < s.size(); ++i) line += s[i] == '\n';
  return line;
}

// True when the token that ends just before position i starts with a digit.
bool starts_number(std::string_view s, size_t i) {
  size_t b = i;
  while (b > 0 && (ident_char(s[b - 1]) || s[b - 1] == '\'' || s[b - 1] == '.')) --b;
  return b < i && std::isdigit(static_cast<unsigned char>(s[b]));
}

// Marks which characters are code (not comment or literal).
std::vector<bool> code_mask(std::string_view s) {
  std::vector<bool> code(s.size(), true);
  for (size_t i = 0; i < s.size();) {
    if (s.compare(i, 2, "//") == 0) {
      while (i < s.size() && s[i] != '\n') code[i++] = false;
    } else if (s.compare(i, 2, "/*") == 0) {
      const size_t end = s.find("*/", i + 2);
      const size_t stop = end == std::string_view::npos ? s.size() : end + 2;
      while (i < stop) code[i++] = false;
    } else if (s[i] == '"' && i > 0 && s[i - 1] == 'R' &&
               (i < 2 || !ident_char(s[i - 2]) || s[i - 2] == '8' || s[i - 2] == 'u' ||
                s[i - 2] == 'U' || s[i - 2] == 'L')) {
      // A raw string R"delim( ... )delim": quotes inside it end nothing.
      const size_t open = s.find('(', i);
      const std::string close = ")" + std::string(s.substr(i + 1, open - i - 1)) + "\"";
      const size_t end =
          open == std::string_view::npos ? std::string_view::npos : s.find(close, open);
      const size_t stop = end == std::string_view::npos ? s.size() : end + close.size();
      while (i < stop) code[i++] = false;
    } else if (s[i] == '\'' && i > 0 && std::isxdigit(static_cast<unsigned char>(s[i - 1])) &&
               i + 1 < s.size() && std::isxdigit(static_cast<unsigned char>(s[i + 1])) &&
               starts_number(s, i)) {
      ++i;  // a digit separator, as in 1'000: not a character literal
    } else if (s[i] == '"' || s[i] == '\'') {
      const char q = s[i];
      code[i++] = false;
      while (i < s.size() && s[i] != q) {
        if (s[i] == '\\') code[i++] = false;
        if (i < s.size()) code[i++] = false;
      }
      if (i < s.size()) code[i++] = false;
    } else {
      ++i;
    }
  }
  return code;
}

// Index just past the bracket matching the one at `open`, counting only code.
size_t match(std::string_view s, const std::vector<bool>& code, size_t open, char o, char c) {
  int depth = 0;
  for (size_t i = open; i < s.size(); ++i) {
    if (!code[i]) continue;
    if (s[i] == o) ++depth;
    if (s[i] == c && --depth == 0) return i + 1;
  }
  throw rewrite_error(line_at(s, open), std::string("no matching '") + c + "'");
}

// Start of the callee before `<<<`: identifiers, ::, and template arguments.
size_t callee_start(std::string_view s, size_t end) {
  size_t i = end;
  while (i > 0 && std::isspace(static_cast<unsigned char>(s[i - 1]))) --i;
  while (i > 0) {
    if (s[i - 1] == '>') {  // template arguments: walk back to the matching '<'
      int depth = 0;
      size_t j = i;
      while (j > 0) {
        --j;
        if (s[j] == '>') ++depth;
        if (s[j] == '<' && --depth == 0) break;
      }
      i = j;
      continue;
    }
    if (ident_char(s[i - 1])) {
      while (i > 0 && ident_char(s[i - 1])) --i;
      if (i >= 2 && s[i - 1] == ':' && s[i - 2] == ':') {
        i -= 2;
        continue;
      }
      break;
    }
    break;
  }
  return i;
}

std::string trim(std::string_view s) {
  size_t b = 0, e = s.size();
  while (b < e && std::isspace(static_cast<unsigned char>(s[b]))) ++b;
  while (e > b && std::isspace(static_cast<unsigned char>(s[e - 1]))) --e;
  return std::string(s.substr(b, e - b));
}

}  // namespace

std::string rewrite_launches(std::string_view s) {
  const std::vector<bool> code = code_mask(s);
  std::string out;
  size_t copied = 0;
  for (size_t i = 0; i + 2 < s.size(); ++i) {
    if (!code[i] || s.compare(i, 3, "<<<") != 0) continue;
    const size_t start = callee_start(s, i);
    if (start < copied || start == i)
      throw rewrite_error(line_at(s, i), "<<< without a kernel name before it");
    const std::string callee(trim(s.substr(start, i - start)));
    if (callee.empty()) throw rewrite_error(line_at(s, i), "<<< without a kernel name before it");
    // The launch configuration runs to the first >>> at bracket depth 0.
    size_t j = i + 3;
    int depth = 0;
    for (; j + 2 < s.size(); ++j) {
      if (!code[j]) continue;
      if (s[j] == '(' || s[j] == '[' || s[j] == '{') ++depth;
      if (s[j] == ')' || s[j] == ']' || s[j] == '}') --depth;
      if (depth == 0 && s.compare(j, 3, ">>>") == 0) break;
    }
    if (j + 2 >= s.size()) throw rewrite_error(line_at(s, i), "<<< without >>>");
    const std::string_view config = s.substr(i + 3, j - i - 3);
    size_t k = j + 3;  // past spaces, comments and line continuations
    while (k < s.size() && (std::isspace(static_cast<unsigned char>(s[k])) || !code[k] ||
                            (s[k] == '\\' && k + 1 < s.size() && s[k + 1] == '\n')))
      ++k;
    if (k >= s.size() || s[k] != '(') throw rewrite_error(line_at(s, j), "expected ( after >>>");
    const size_t close = match(s, code, k, '(', ')');
    const std::string_view args = s.substr(k + 1, close - k - 2);

    out.append(s.substr(copied, start - copied));
    std::string name;
    for (char c : callee)
      if (c != '"' && c != '\\') name.push_back(c);
    out += "::cuda_emu::launch_kernel(::cuda_emu::launch_config{";
    out.append(config);
    out += "}, \"" + name + "\", " + callee;
    // Keep the line breaks between >>> and ( as well, escaped where they were (a macro).
    for (size_t p = j + 3; p < k; ++p)
      if (s[p] == '\n') out += s[p - 1] == '\\' ? "\\\n" : "\n";
    if (!trim(args).empty()) out.append(", ").append(args);
    out += ")";
    copied = close;
    i = close - 1;
  }
  out.append(s.substr(copied));
  return out;
}

}  // namespace cuda_emu
