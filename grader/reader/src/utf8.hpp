// UTF-8 code points and ASCII character classes, for the reader's two scanners: the claims'
// normalised bytes and the quantities' code points. Any bytes are read, invalid ones too.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace grader::reader {

// An invalid sequence: one byte, read as this code point.
constexpr uint32_t kInvalid = UINT32_MAX;

// The code point at s[i] and its length; an invalid sequence is one byte, cp = kInvalid.
int decode(std::string_view s, size_t i, uint32_t* cp);
// Appends cp's UTF-8 bytes to out.
void encode(uint32_t cp, std::string& out);

inline bool is_digit(char32_t c) {
  return c >= '0' && c <= '9';
}
inline bool is_alpha(char32_t c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
}
// A letter, digit or '_': what an ASCII word is made of.
inline bool is_word(char32_t c) {
  return is_alpha(c) || is_digit(c) || c == '_';
}
// A byte of text as a character to classify (a char may be signed).
inline bool word_char(unsigned char c) {
  return is_word(c);
}

}  // namespace grader::reader
