// Text made safe for the formats other systems parse (see text.hpp).
#include "grader/base/text.hpp"

#include <algorithm>
#include <cctype>

namespace grader {
namespace {

// The length of a valid UTF-8 sequence at s[i], or 0.
size_t utf8_sequence(std::string_view s, size_t i) {
  const auto b = [&](size_t k) { return static_cast<unsigned char>(s[k]); };
  const unsigned char c = b(i);
  if (c < 0x80) return 1;
  size_t n = c >= 0xF0 && c <= 0xF4 ? 4 : c >= 0xE0 ? 3 : c >= 0xC2 && c < 0xE0 ? 2 : 0;
  if (n == 0 || i + n > s.size()) return 0;
  for (size_t k = 1; k < n; ++k)
    if ((b(i + k) & 0xC0) != 0x80) return 0;
  // Overlong, surrogate and past-U+10FFFF forms.
  if (n == 3 && ((c == 0xE0 && b(i + 1) < 0xA0) || (c == 0xED && b(i + 1) >= 0xA0))) return 0;
  if (n == 4 && ((c == 0xF0 && b(i + 1) < 0x90) || (c == 0xF4 && b(i + 1) >= 0x90))) return 0;
  return n;
}

constexpr std::string_view kReplacement = "\xEF\xBF\xBD";

}  // namespace

std::string valid_utf8(std::string_view s) {
  std::string out;
  out.reserve(s.size());
  for (size_t i = 0; i < s.size();) {
    const size_t n = utf8_sequence(s, i);
    if (n == 0) {
      out += kReplacement;
      ++i;
    } else {
      out.append(s.substr(i, n));
      i += n;
    }
  }
  return out;
}

std::string xml_text(std::string_view s) {
  const std::string valid = valid_utf8(s);
  std::string out;
  out.reserve(valid.size());
  for (size_t i = 0; i < valid.size(); ++i) {
    const unsigned char c = static_cast<unsigned char>(valid[i]);
    switch (c) {
      case '&':
        out += "&amp;";
        break;
      case '<':
        out += "&lt;";
        break;
      case '>':
        out += "&gt;";
        break;
      case '"':
        out += "&quot;";
        break;
      case '\'':
        out += "&apos;";
        break;
      default:
        if (c < 0x20 && c != '\t' && c != '\n' && c != '\r')
          out += kReplacement;
        else if (c == 0xEF && i + 2 < valid.size() &&
                 static_cast<unsigned char>(valid[i + 1]) == 0xBF &&
                 (static_cast<unsigned char>(valid[i + 2]) == 0xBE ||
                  static_cast<unsigned char>(valid[i + 2]) == 0xBF)) {
          out += kReplacement;  // U+FFFE and U+FFFF are not XML characters
          i += 2;
        } else
          out += static_cast<char>(c);
    }
  }
  return out;
}

std::string one_line(std::string_view s) {
  std::string out = terminal_text(s);
  for (char& c : out)
    if (c == '\n' || c == '\t') c = ' ';
  return out;
}

std::string markdown_text(std::string_view s) {
  const std::string flat = one_line(s);
  std::string out;
  out.reserve(flat.size() + 8);
  // A block marker counts only at the start: "# x" is a heading, "1. x" a list, "    x" code.
  size_t digits = 0;
  while (digits < flat.size() && std::isdigit(static_cast<unsigned char>(flat[digits]))) ++digits;
  for (size_t i = 0; i < flat.size(); ++i) {
    const char c = flat[i];
    if (c == '&')
      out += "&amp;";
    else if (c == '<')
      out += "&lt;";
    else if (c == '>')
      out += "&gt;";
    else if (std::string_view("\\`*_[]|~$").find(c) != std::string_view::npos)
      out += std::string("\\") + c;
    else if (i == 0 && (c == '#' || c == '+' || c == '-' || c == '='))
      out += std::string("\\") + c;
    else if (i == 0 && c == ' ')
      out += "&#32;";
    else if (i == digits && digits > 0 && (c == '.' || c == ')'))
      out += std::string("\\") + c;
    else
      out += c;
  }
  return out;
}

std::string terminal_text(std::string_view s) {
  const std::string valid = valid_utf8(s);
  std::string out;
  out.reserve(valid.size());
  for (size_t i = 0; i < valid.size(); ++i) {
    const unsigned char c = static_cast<unsigned char>(valid[i]);
    if ((c < 0x20 && c != '\t' && c != '\n') || c == 0x7F) {
      out += kReplacement;  // ESC, CR, backspace: nothing that moves the cursor or recolours
    } else if (c == 0xC2 && i + 1 < valid.size() &&
               static_cast<unsigned char>(valid[i + 1]) < 0xA0) {
      out += kReplacement;  // C1 controls, U+0080..U+009F (CSI among them)
      ++i;
    } else {
      out += static_cast<char>(c);
    }
  }
  return out;
}

}  // namespace grader
