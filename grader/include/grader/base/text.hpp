// Text made safe for formats other programs parse: valid UTF-8 for JSON, XML 1.0
// character data (for JUnit reports and SVG charts), Markdown that renders as the text
// itself; and for a terminal. Student output, answers and names may hold any bytes.
// Tests: grader_tests "[formats]", ctest -R grader.batch (hostile names)
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace grader {

// Valid UTF-8: each byte that does not start a valid sequence becomes U+FFFD.
std::string valid_utf8(std::string_view s);

// Text any XML 1.0 parser accepts, in an attribute or an element: valid UTF-8, control
// characters other than tab, newline and carriage return (and U+FFFE, U+FFFF) become
// U+FFFD, and & < > " ' are escaped.
std::string xml_text(std::string_view s);

// Text safe to print on an instructor's terminal (grader review shows students' answers):
// valid UTF-8, and every control character but tab and newline (escape sequences, carriage
// returns, backspaces, the C1 range) becomes U+FFFD.
std::string terminal_text(std::string_view s);

// terminal_text on one line: newlines and tabs become spaces too. For text a student
// controls (an exception's message, a quoted answer) inside a report line, so that it
// can neither recolour the terminal nor start a line that looks like the grader's own.
std::string one_line(std::string_view s);

// one_line as Markdown text that renders as itself, for a heading, a list item or a table
// cell: & < > become entities (no raw HTML, no autolink), every other character that can
// open inline markup (\ ` * _ [ ] | ~ $) is escaped with a backslash, and so is a leading
// one that could open a block (# + - = digits then . or ), a leading space).
std::string markdown_text(std::string_view s);

// Terminal columns a UTF-8 string takes (CJK and full-width characters take two).
size_t display_width(std::string_view s);

// `s` (one paragraph, no newlines) in lines of at most `width` columns: broken at spaces,
// between two CJK characters, or inside a word longer than a line. Never an empty vector.
// `first_width`, when given, is the first line's width (after a longer lead).
std::vector<std::string> wrap_text(std::string_view s, size_t width, size_t first_width = 0);

}  // namespace grader
