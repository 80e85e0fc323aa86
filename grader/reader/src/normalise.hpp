// zh/en normalisation: full-width forms, case, Traditional characters, quotes and spaces,
// so that a key's phrases and a student's text meet whatever the keyboard or the region.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace grader::reader {

// For claims: lower-cases ASCII, folds full-width forms (，：？ＡＢ) to ASCII, Traditional
// characters to Simplified, curly quotes to straight, every space to one ' ', and drops
// spaces next to non-ASCII characters or line ends, so a key's "写回 HBM" matches "写回HBM".
// origin[i]: the source byte of out[i] (one more at the end: in.size()); may be null.
void normalise(std::string_view in, std::string& out, std::vector<uint32_t>* origin);

// For numbers: one code point of the text and the bytes it came from. Full-width ASCII
// (０-９, ＭｉＢ, ＝, ％) and the ideographic space are folded to ASCII, minus signs to '-';
// bad UTF-8 is U+FFFD.
struct cp {
  char32_t c;
  size_t begin, end;
};
std::vector<cp> code_points(std::string_view s);

}  // namespace grader::reader
