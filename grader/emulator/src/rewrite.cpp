// <<<>>> rewrite (see rewrite.hpp). A small scanner, not a parser: it knows
// comments, string and character literals, and bracket nesting.
#include "cuda_emu/rewrite.hpp"

#include <algorithm>
#include <cctype>
#include <optional>
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

}  // namespace

std::string launch_callable(const std::string& callee) {
  return "[&](auto&... cuda_emu_args) __attribute__((no_sanitize_thread)) { (" + callee +
         ")(cuda_emu_args...); }";
}

namespace {

std::string trim(std::string_view s) {
  size_t b = 0, e = s.size();
  while (b < e && std::isspace(static_cast<unsigned char>(s[b]))) ++b;
  while (e > b && std::isspace(static_cast<unsigned char>(s[e - 1]))) --e;
  return std::string(s.substr(b, e - b));
}

bool starts_word(std::string_view s, size_t i, std::string_view word) {
  return s.compare(i, word.size(), word) == 0 && (i == 0 || !ident_char(s[i - 1])) &&
         (i + word.size() >= s.size() || !ident_char(s[i + word.size()]));
}

// The code before the `{` at `open`, back to the previous ; { or }, without
// comments or preprocessor lines: "template <int N> __global__ void k(float* p)".
std::string header_before(std::string_view s, const std::vector<bool>& code, size_t open) {
  size_t b = open;
  while (b > 0 && !(code[b - 1] && (s[b - 1] == ';' || s[b - 1] == '{' || s[b - 1] == '}'))) --b;
  std::string out;
  bool line_start = true, directive = false;
  for (size_t i = b; i < open; ++i) {
    if (s[i] == '\n') {
      line_start = true;
      directive = false;
      out += ' ';
      continue;
    }
    if (line_start && !std::isspace(static_cast<unsigned char>(s[i]))) {
      line_start = false;
      directive = s[i] == '#';
    }
    if (!directive && code[i]) out += s[i];
  }
  return trim(out);
}

// True when the innermost function around `opens` (the unclosed { before a
// position) is a template; namespaces and extern "C" blocks are looked through.
bool in_template_function(std::string_view s, const std::vector<bool>& code,
                          const std::vector<size_t>& opens) {
  for (size_t open : opens) {
    const std::string h = header_before(s, code, open);
    if (h.starts_with("namespace") || h.starts_with("extern")) continue;
    return h.starts_with("template");
  }
  return false;
}

// A `__shared__ T name[dims];` inside a template kernel becomes a reference to a
// slot of the emulator's pool in the shared section (g++ ignores the
// section attribute there): `T (&name)[dims] = template_shared_slot<T[dims], tag>();`
std::string rewrite_template_shared(std::string_view s) {
  const std::vector<bool> code = code_mask(s);
  std::vector<size_t> opens;
  std::string out;
  size_t copied = 0;
  for (size_t i = 0; i < s.size(); ++i) {
    if (!code[i]) continue;
    if (s[i] == '{') opens.push_back(i);
    if (s[i] == '}' && !opens.empty()) opens.pop_back();
    if (s[i] != '_' || !starts_word(s, i, "__shared__")) continue;
    size_t p = i;  // `extern __shared__` is dynamic shared memory: not this
    while (p > 0 && (std::isspace(static_cast<unsigned char>(s[p - 1])) || !code[p - 1])) --p;
    if (p >= 6 && starts_word(s, p - 6, "extern")) continue;
    if (!in_template_function(s, code, opens)) continue;
    size_t end = i + 10;
    int depth = 0;
    size_t bracket = std::string_view::npos;
    for (; end < s.size(); ++end) {
      if (!code[end]) continue;
      const char c = s[end];
      if (c == ';' || c == '{' || c == '}') break;
      if (c == '(' || c == '[') {
        if (c == '[' && depth == 0 && bracket == std::string_view::npos) bracket = end;
        ++depth;
      }
      if (c == ')' || c == ']') --depth;
      if (c == ',' && depth == 0)
        throw rewrite_error(line_at(s, i),
                            "the course's emulator does not support several __shared__ variables "
                            "in one declaration of a template kernel; declare one per line, or "
                            "run `grader <lesson> --gpu` on a GPU machine");
    }
    if (end >= s.size() || s[end] != ';')
      throw rewrite_error(line_at(s, i), "__shared__ declaration without ';'");
    const size_t head_end = bracket == std::string_view::npos ? end : bracket;
    size_t name_end = head_end;
    while (name_end > i + 10 && std::isspace(static_cast<unsigned char>(s[name_end - 1])))
      --name_end;
    size_t name_begin = name_end;
    while (name_begin > i + 10 && ident_char(s[name_begin - 1])) --name_begin;
    const std::string type = trim(s.substr(i + 10, name_begin - i - 10));
    const std::string name(s.substr(name_begin, name_end - name_begin));
    const std::string dims(s.substr(head_end, end - head_end));
    if (type.empty() || name.empty())
      throw rewrite_error(line_at(s, i), "cannot read this __shared__ declaration");
    out.append(s.substr(copied, i - copied));
    out += type + " (&" + name + ")" + dims + " = ::cuda_emu::detail::template_shared_slot<" +
           type + dims + ", decltype([] {})>()";
    copied = end;
    i = end;
  }
  out.append(s.substr(copied));
  return out;
}

// Dynamic shared memory: `extern __shared__ T name[];` becomes a constant pointer,
// `T *const name = reinterpret_cast<...>(::cuda_emu_dynamic_shared);`, to the
// emulator's one buffer in the shared section (src/scheduler.cpp): every such array
// aliases the same bytes, as on a GPU. (An asm label on a local extern would be
// simpler, but g++ drops it in templates.)
std::string rewrite_extern_shared(std::string_view s) {
  const std::vector<bool> code = code_mask(s);
  std::string out;
  size_t copied = 0;
  for (size_t i = 0; i + 6 <= s.size(); ++i) {
    if (!code[i] || s.compare(i, 6, "extern") != 0 || (i > 0 && ident_char(s[i - 1])) ||
        (i + 6 < s.size() && ident_char(s[i + 6])))
      continue;
    size_t j = i + 6;
    while (j < s.size() && (std::isspace(static_cast<unsigned char>(s[j])) || !code[j])) ++j;
    if (s.compare(j, 10, "__shared__") != 0 || (j + 10 < s.size() && ident_char(s[j + 10])))
      continue;
    size_t end = j + 10;
    while (end < s.size() && !(code[end] && (s[end] == ';' || s[end] == '{'))) ++end;
    if (end >= s.size() || s[end] != ';')
      throw rewrite_error(line_at(s, i), "extern __shared__ declaration without ';'");
    // `T name[]` -> `T *const name = ...`; a further `[N]` stays: `T (*const name)[N]`.
    const size_t bracket = s.find('[', j + 10);
    if (bracket == std::string_view::npos || bracket > end)
      throw rewrite_error(line_at(s, i), "extern __shared__ declaration without []");
    const size_t close = s.find(']', bracket);
    size_t name_end = bracket;
    while (name_end > j + 10 && std::isspace(static_cast<unsigned char>(s[name_end - 1])))
      --name_end;
    size_t name_begin = name_end;
    while (name_begin > j + 10 && ident_char(s[name_begin - 1])) --name_begin;
    const std::string name(s.substr(name_begin, name_end - name_begin));
    if (name.empty() || close > end || trim(s.substr(bracket + 1, close - bracket - 1)) != "")
      throw rewrite_error(line_at(s, i), "cannot read this extern __shared__ declaration");
    out.append(s.substr(copied, i - copied));
    for (size_t p = i; p < j; ++p)  // keep the lines
      if (s[p] == '\n') out += '\n';
    out.append(s.substr(j + 10, name_begin - j - 10));
    const std::string rest(s.substr(close + 1, end - close - 1));
    out += trim(rest).empty() ? "*const " + name + rest : "(*const " + name + ")" + rest;
    out += " = reinterpret_cast<::std::remove_cv_t<decltype(" + name +
           ")>>(::cuda_emu_dynamic_shared)";
    copied = end;
    i = end;
  }
  out.append(s.substr(copied));
  return out;
}

// True when position i lies on a preprocessor line (a #define's body, say), continued
// lines included: nothing is inserted there.
bool in_directive(std::string_view s, size_t i) {
  size_t b = i;
  for (;;) {
    while (b > 0 && s[b - 1] != '\n') --b;
    if (b >= 2 && s[b - 2] == '\\') {
      --b;
      continue;
    }
    break;
  }
  while (b < s.size() && (s[b] == ' ' || s[b] == '\t')) ++b;
  return b < s.size() && s[b] == '#';
}

// The names a declaration declares, from the text after its qualifier up to its `;`:
// "float a[16][17], b[4]" -> {a, b}; "Smem s" -> {s}; "float k = 2" -> {k}. A name is
// the identifier before the declarator's first top-level '[' or '=', or its last one.
std::vector<std::string> declared_names(std::string_view d, const std::vector<bool>& code,
                                        size_t offset) {
  std::vector<std::string> names;
  size_t from = 0;
  int depth = 0;
  for (size_t i = 0; i <= d.size(); ++i) {
    const bool is_code = i < d.size() && code[offset + i];
    const char c = i < d.size() ? d[i] : ',';
    if (is_code && (c == '(' || c == '[' || c == '{' || c == '<')) ++depth;
    if (is_code && (c == ')' || c == ']' || c == '}' || c == '>')) --depth;
    if (i < d.size() && !(is_code && c == ',' && depth == 0)) continue;
    // One declarator: [from, i).
    size_t stop = i;
    int inner = 0;
    for (size_t j = from; j < i; ++j) {
      if (!code[offset + j]) continue;
      if (d[j] == '(' || d[j] == '{') ++inner;
      if (d[j] == ')' || d[j] == '}') --inner;
      if (inner == 0 && (d[j] == '[' || d[j] == '=')) {
        stop = j;
        break;
      }
    }
    size_t e = stop;
    while (e > from && !(code[offset + e - 1] && ident_char(d[e - 1]))) --e;
    size_t b = e;
    while (b > from && ident_char(d[b - 1])) --b;
    if (b < e && !std::isdigit(static_cast<unsigned char>(d[b])))
      names.emplace_back(d.substr(b, e - b));
    from = i + 1;
  }
  return names;
}

// The namespace an opening brace opens ("a::b"; "" for an anonymous one), or nullopt
// when the brace opens something else; `extern "C" {` opens nothing named.
std::optional<std::string> namespace_of(const std::string& header) {
  std::string h = header;
  if (h.starts_with("extern")) return std::string();
  if (h.starts_with("inline ")) h = trim(h.substr(7));
  if (!h.starts_with("namespace")) return std::nullopt;
  return trim(h.substr(9));
}

// The sm_90 limits ptxas enforces, checked when g++ compiles the file (static_assert),
// since a GPU build of such a file fails: a kernel's static __shared__ arrays over 48 KiB
// (each declaration asserts the sum of the kernel's arrays in scope), and the file's
// __constant__ variables over 64 KiB. g++ then prints the figure ("the comparison
// reduces to '(49280 <= 49152)'") at the student's line. Failing the build, not the
// launch, is what a GPU does, and needs no run-time state. Each static __shared__
// declaration in a function also tells the launch its size (note_static_shared), for
// the limits on static and dynamic shared memory together and for arrays the assert
// cannot sum (several scopes, __device__ functions); an array at namespace scope is
// asserted alone and registered (note_file_shared), since which kernels use it is not
// known until one runs. Inserted after the declaration's
// `;`, on its line, so line numbers stay.
constexpr const char* kSharedAssert =
    "static __shared__ memory over 48 KiB (49,152 bytes) per block: nvcc's ptxas refuses to "
    "build this kernel for sm_90 (\\\"uses too much shared data\\\"), so it would not build for "
    "a GPU; use dynamic shared memory (extern __shared__) with cudaFuncSetAttribute(kernel, "
    "cudaFuncAttributeMaxDynamicSharedMemorySize, bytes)";
constexpr const char* kConstantAssert =
    "__constant__ memory of this file over 64 KiB (65,536 bytes): nvcc's ptxas refuses to build "
    "it for sm_90 (\\\"uses too much global constant data\\\"), so it would not build for a GPU; "
    "keep large tables in global memory (cudaMalloc)";

std::string rewrite_static_limits(std::string_view s) {
  const std::vector<bool> code = code_mask(s);
  struct shared_decl {
    std::string name;
    size_t function;  // the opening brace of its outermost function
    size_t scope;     // the innermost brace around it
  };
  std::vector<shared_decl> shared;
  std::vector<std::string> constants;  // qualified from the global namespace
  std::vector<size_t> opens;
  std::vector<std::optional<std::string>> kinds;  // per open brace: its namespace, if one
  std::string out;
  size_t copied = 0;
  for (size_t i = 0; i < s.size(); ++i) {
    if (!code[i]) continue;
    if (s[i] == '{') {
      opens.push_back(i);
      kinds.push_back(namespace_of(header_before(s, code, i)));
    }
    if (s[i] == '}' && !opens.empty()) {
      opens.pop_back();
      kinds.pop_back();
    }
    const bool is_shared = s[i] == '_' && starts_word(s, i, "__shared__");
    const bool is_constant = s[i] == '_' && starts_word(s, i, "__constant__");
    if (!is_shared && !is_constant) continue;
    size_t p = i;  // `extern` declares, without storage: not counted
    while (p > 0 && (std::isspace(static_cast<unsigned char>(s[p - 1])) || !code[p - 1])) --p;
    if (p >= 6 && starts_word(s, p - 6, "extern")) continue;
    if (in_directive(s, i)) continue;
    const size_t after = i + (is_shared ? 10 : 12);
    size_t end = after;
    int depth = 0;
    for (; end < s.size(); ++end) {
      if (!code[end]) continue;
      const char c = s[end];
      if (depth == 0 && (c == ';' || c == '}')) break;
      if (c == '(' || c == '[' || c == '{') ++depth;
      if (c == ')' || c == ']' || c == '}') --depth;
    }
    if (end >= s.size() || s[end] != ';') continue;  // not a declaration this pass reads
    const std::vector<std::string> names =
        declared_names(s.substr(after, end - after), code, after);
    if (names.empty()) continue;
    // The innermost function around it: the outermost brace that is no namespace.
    size_t function = std::string_view::npos;
    for (size_t k = 0; k < opens.size(); ++k)
      if (!kinds[k]) {
        function = opens[k];
        break;
      }
    std::string insert;
    if (is_shared) {
      std::string sum;
      const size_t scope = opens.empty() ? std::string_view::npos : opens.back();
      if (function != std::string_view::npos)
        for (const shared_decl& d : shared)
          if (d.function == function &&
              std::find(opens.begin(), opens.end(), d.scope) != opens.end())
            sum += "sizeof(" + d.name + ") + ";
      for (size_t k = 0; k < names.size(); ++k)
        sum += (k ? " + " : "") + std::string("sizeof(") + names[k] + ")";
      insert = "static_assert(" + sum + " <= 49152, \"" + kSharedAssert + "\");";
      for (const std::string& name : names) {
        const std::string args = "__builtin_addressof(" + name + "), sizeof(" + name + ")";
        if (function != std::string_view::npos) {
          insert += "::cuda_emu::detail::note_static_shared(" + args + ");";
          shared.push_back({name, function, scope});
        } else {
          // At namespace scope which kernels use an array is not known here: the
          // emulator registers it and counts it for a launch whose first block touches it.
          insert += "[[maybe_unused]] static const bool cuda_emu_file_shared_" + name +
                    " = ::cuda_emu::detail::note_file_shared(" + args + ");";
        }
      }
    } else {
      if (function != std::string_view::npos) continue;  // not at namespace scope: not CUDA
      std::string prefix = "::";
      for (const auto& k : kinds)
        if (k && !k->empty()) prefix += *k + "::";
      std::string sum;
      for (const std::string& q : constants) sum += "sizeof(" + q + ") + ";
      for (size_t k = 0; k < names.size(); ++k) {
        sum += (k ? " + " : "") + std::string("sizeof(") + names[k] + ")";
        constants.push_back(prefix + names[k]);
      }
      insert = "static_assert(" + sum + " <= 65536, \"" + kConstantAssert + "\");";
    }
    out.append(s.substr(copied, end + 1 - copied));
    out += insert;
    copied = end + 1;
    i = end;
  }
  out.append(s.substr(copied));
  return out;
}

std::string rewrite_kernel_launches(std::string_view s) {
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
    // A generic lambda calls the kernel as a plain call would: deduced template
    // arguments, default arguments and overloads all work (launch.hpp).
    out += "}, \"" + name + "\", " + launch_callable(callee);
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

// Device printf: each call of printf, std::printf or ::printf becomes a call of
// ::cuda_emu::detail::device_printf (printf.hpp), which is printf outside a kernel and
// inside one buffers the text as a GPU's printf FIFO does. Only calls (the name, then
// '(' past spaces and comments), in code: not snprintf or fprintf, not a member
// (.printf, ->printf, T::printf), not another namespace's printf, not a macro named
// printf, nothing in a literal or comment.
std::string rewrite_printf(std::string_view s) {
  const std::vector<bool> code = code_mask(s);
  std::string out;
  size_t copied = 0;
  for (size_t i = 0; i + 6 <= s.size(); ++i) {
    if (!code[i] || s[i] != 'p' || !starts_word(s, i, "printf")) continue;
    size_t k = i + 6;
    while (k < s.size() && (std::isspace(static_cast<unsigned char>(s[k])) || !code[k])) ++k;
    if (k >= s.size() || s[k] != '(') continue;
    auto back = [&](size_t p) {  // past spaces and comments before position p
      while (p > 0 && (std::isspace(static_cast<unsigned char>(s[p - 1])) ||
                       (!code[p - 1] && s[p - 1] != '"' && s[p - 1] != '\'')))
        --p;
      return p;
    };
    size_t from = i;
    const size_t p = back(i);
    if (p > 0 && (s[p - 1] == '.' || (s[p - 1] == '>' && p > 1 && s[p - 2] == '-'))) continue;
    if (p >= 6 && starts_word(s, p - 6, "define")) continue;
    if (p >= 2 && s[p - 1] == ':' && s[p - 2] == ':') {
      const size_t e = back(p - 2);
      size_t w = e;
      while (w > 0 && ident_char(s[w - 1])) --w;
      if (w < e && s.substr(w, e - w) != "std") continue;  // another namespace's or class's
      if (w == e && e > 0 && (s[e - 1] == '>' || s[e - 1] == ')')) continue;  // T<...>::printf
      from = w < e ? w : p - 2;
    }
    out.append(s.substr(copied, from - copied));
    for (size_t q = from; q < i; ++q)  // keep the lines
      if (s[q] == '\n') out += '\n';
    out += "::cuda_emu::detail::device_printf";
    copied = i + 6;
    i = copied - 1;
  }
  out.append(s.substr(copied));
  return out;
}

}  // namespace

std::string rewrite_launches(std::string_view source) {
  return rewrite_printf(rewrite_kernel_launches(
      rewrite_extern_shared(rewrite_template_shared(rewrite_static_limits(source)))));
}

}  // namespace cuda_emu
