// Text made safe for the formats other systems parse (see text.hpp).
#include "grader/base/text.hpp"

#include <algorithm>
#include <cctype>

namespace grader {
namespace {

unsigned char byte(std::string_view s, size_t i) {
  return static_cast<unsigned char>(s[i]);
}

// The length of a valid UTF-8 sequence at s[i], or 0.
size_t utf8_sequence(std::string_view s, size_t i) {
  const auto b = [&](size_t k) { return byte(s, k); };
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

// s made valid UTF-8, with U+FFFD for each character `unwanted(valid, i)` names: it
// returns the byte length of the one at valid[i] to replace, or 0 to keep that byte.
template <class Unwanted>
std::string replaced_characters(std::string_view s, Unwanted unwanted) {
  const std::string valid = valid_utf8(s);
  std::string out;
  out.reserve(valid.size());
  for (size_t i = 0; i < valid.size(); ++i) {
    if (const size_t n = unwanted(valid, i)) {
      out += kReplacement;
      i += n - 1;
    } else {
      out += valid[i];
    }
  }
  return out;
}

// Controls other than tab and newlines, and U+FFFE and U+FFFF: not XML characters.
size_t not_xml(std::string_view s, size_t i) {
  const unsigned char c = byte(s, i);
  if (c < 0x20 && c != '\t' && c != '\n' && c != '\r') return 1;
  if (c == 0xEF && i + 2 < s.size() && byte(s, i + 1) == 0xBF &&
      (byte(s, i + 2) == 0xBE || byte(s, i + 2) == 0xBF))
    return 3;
  return 0;
}

// ESC, CR, backspace, DEL and the C1 controls (U+0080..U+009F, CSI among them): nothing
// that moves the cursor or recolours.
size_t terminal_control(std::string_view s, size_t i) {
  const unsigned char c = byte(s, i);
  if ((c < 0x20 && c != '\t' && c != '\n') || c == 0x7F) return 1;
  if (c == 0xC2 && i + 1 < s.size() && byte(s, i + 1) < 0xA0) return 2;
  return 0;
}

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
  const std::string text = replaced_characters(s, not_xml);
  std::string out;
  out.reserve(text.size());
  for (const char c : text) {
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
        out += c;
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
  return replaced_characters(s, terminal_control);
}

namespace {
// The code point at s[i], and how many bytes it takes (a bad byte: itself, one byte).
char32_t decode_at(std::string_view s, size_t i, int& len) {
  const unsigned char c = s[i];
  char32_t cp = c;
  len = 1;
  if (c >= 0xF0) {
    cp = c & 0x07;
    len = 4;
  } else if (c >= 0xE0) {
    cp = c & 0x0F;
    len = 3;
  } else if (c >= 0xC0) {
    cp = c & 0x1F;
    len = 2;
  }
  for (int k = 1; k < len && i + k < s.size(); ++k) cp = (cp << 6) | (s[i + k] & 0x3F);
  return cp;
}

bool is_wide(char32_t cp) {
  return (cp >= 0x1100 && cp <= 0x115F) || (cp >= 0x2E80 && cp <= 0xA4CF) ||
         (cp >= 0xAC00 && cp <= 0xD7A3) || (cp >= 0xF900 && cp <= 0xFAFF) ||
         (cp >= 0xFE30 && cp <= 0xFE4F) || (cp >= 0xFF00 && cp <= 0xFF60) ||
         (cp >= 0xFFE0 && cp <= 0xFFE6) || (cp >= 0x20000 && cp <= 0x3FFFD);
}

// Combining marks and zero-width characters take no column.
bool is_zero_width(char32_t cp) {
  return (cp >= 0x0300 && cp <= 0x036F) || (cp >= 0x200B && cp <= 0x200F) || cp == 0xFE0F;
}
}  // namespace

size_t display_width(std::string_view s) {
  size_t w = 0;
  for (size_t i = 0; i < s.size();) {
    int len = 1;
    const char32_t cp = decode_at(s, i, len);
    i += len;
    w += is_zero_width(cp) ? 0 : is_wide(cp) ? 2 : 1;
  }
  return w;
}

std::vector<std::string> wrap_text(std::string_view s, size_t rest_width, size_t first_width) {
  rest_width = std::max<size_t>(rest_width, 8);
  size_t width = first_width ? std::max<size_t>(first_width, 8) : rest_width;
  // Pieces that may not be split: a run of narrow non-space characters (a word), or one
  // wide character; a space between pieces is where a line may break.
  struct piece {
    std::string text;
    size_t width = 0;
    size_t spaces_before = 0;  // kept inside a line, dropped where the line breaks
    bool wide = false;
  };
  std::vector<piece> pieces;
  size_t spaces = 0;
  for (size_t i = 0; i < s.size();) {
    int len = 1;
    const char32_t cp = decode_at(s, i, len);
    const std::string_view bytes = s.substr(i, len);
    i += len;
    if (cp == ' ' || cp == '\t') {
      ++spaces;
      continue;
    }
    const bool wide = is_wide(cp);
    const size_t w = is_zero_width(cp) ? 0 : wide ? 2 : 1;
    if (pieces.empty() || spaces > 0 || wide || pieces.back().wide)
      pieces.push_back({std::string(bytes), w, pieces.empty() ? 0 : spaces, wide});
    else
      pieces.back().text += bytes, pieces.back().width += w;
    spaces = 0;
  }
  std::vector<std::string> lines(1);
  size_t used = 0;
  for (piece& p : pieces) {
    const size_t gap = used > 0 ? p.spaces_before : 0;
    if (used > 0 && used + gap + p.width > width) {
      lines.emplace_back();
      used = 0;
      width = rest_width;
    } else if (gap) {
      lines.back() += std::string(gap, ' ');
      used += gap;
    }
    // A word longer than a line: cut it at the width, character by character.
    while (p.width > width - used) {
      std::string head;
      size_t head_w = 0, i = 0;
      for (int len = 1; i < p.text.size(); i += len) {
        const char32_t cp = decode_at(p.text, i, len);
        const size_t w = is_zero_width(cp) ? 0 : is_wide(cp) ? 2 : 1;
        if (used + head_w + w > width) break;
        head_w += w;
      }
      if (i == 0) break;  // not even one character fits a fresh line: keep it whole
      lines.back() += p.text.substr(0, i);
      lines.emplace_back();
      used = 0;
      width = rest_width;
      p.text.erase(0, i);
      p.width -= head_w;
    }
    lines.back() += p.text;
    used += p.width;
  }
  return lines;
}

}  // namespace grader
