// Reads a student's answers file (answers.md) as CommonMark into parts, ticks, answers
// and problems (see answers.hpp). Tests: build/bin/grader_tests "[answers]"
//
// cmark gives the block structure (headings, lists, quotes, code, HTML), so a `#` in a
// code fence or a heading in a comment is never a part. Inside a part each line of a
// paragraph is read on its own: cmark joins a box written under a list item without a
// blank line ("lazy continuation") into that item's paragraph.
//
// Decisions (the tests pin them):
//   ticked:    [x] [X] [ x ] [√] [✓] [✔] [☑] [✅] [ｘ] (any padding), bare ☑ ✅;
//   unticked:  [ ] [] [  ] [　] and bare ☐;
//   a problem: any other short mark ([y], [v], [×], [✗], ☒: a cross can mean "no"), and a
//              tick or blank box without its label;
//   labels:    (a) a) a. (A) （a）, read as lower case; a box needs no list marker;
//   answer:    answer: / Answer： / **answer:**, at the start of a line; its text and every
//              block below it up to the next heading, code included, one line each;
//   headings:  a setext heading without an id ("answer: 32" over a "---") is read as text,
//              since the "---" was meant as a rule; every other heading ends the part;
//   a part id given twice is a problem of the first part, naming both lines; the second
//   occurrence's content is not read.
#include <cmark.h>
#include <fmt/format.h>
#include <iconv.h>

#include <algorithm>
#include <cerrno>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "grader/lesson/answers.hpp"

namespace grader {
namespace {

// ---- bytes to UTF-8 -----------------------------------------------------------------

// The length of the longest valid UTF-8 prefix of s (no overlongs, surrogates or
// code points past U+10FFFF).
size_t valid_utf8_prefix(std::string_view s) {
  const auto* p = reinterpret_cast<const unsigned char*>(s.data());
  const size_t n = s.size();
  size_t i = 0;
  while (i < n) {
    const unsigned c = p[i];
    if (c < 0x80) {
      ++i;
      continue;
    }
    size_t len = 0;
    unsigned lo = 0x80, hi = 0xBF;  // the range of the second byte
    if (c >= 0xC2 && c <= 0xDF) {
      len = 2;
    } else if (c >= 0xE0 && c <= 0xEF) {
      len = 3;
      if (c == 0xE0) lo = 0xA0;
      if (c == 0xED) hi = 0x9F;
    } else if (c >= 0xF0 && c <= 0xF4) {
      len = 4;
      if (c == 0xF0) lo = 0x90;
      if (c == 0xF4) hi = 0x8F;
    } else {
      return i;
    }
    if (i + len > n || p[i + 1] < lo || p[i + 1] > hi) return i;
    for (size_t k = 2; k < len; ++k)
      if ((p[i + k] & 0xC0) != 0x80) return i;
    i += len;
  }
  return n;
}

// The 1-based line of byte `offset`; CRLF, CR and LF each end a line.
int line_at(std::string_view s, size_t offset) {
  int line = 1;
  for (size_t i = 0; i < offset && i < s.size(); ++i)
    if (s[i] == '\n' || (s[i] == '\r' && (i + 1 >= s.size() || s[i + 1] != '\n'))) ++line;
  return line;
}

// `in` converted from `from` to UTF-8 by glibc's iconv; false on any invalid sequence.
bool to_utf8(std::string_view in, const char* from, std::string* out) {
  iconv_t cd = iconv_open("UTF-8", from);
  if (cd == reinterpret_cast<iconv_t>(-1)) return false;
  std::unique_ptr<void, int (*)(iconv_t)> closer(cd, iconv_close);
  out->assign(in.size() * 2 + 16, '\0');
  char* src = const_cast<char*>(in.data());  // iconv's signature; it does not write
  size_t src_left = in.size(), done = 0;
  while (src_left > 0) {
    char* dst = out->data() + done;
    size_t dst_left = out->size() - done;
    const size_t r = iconv(cd, &src, &src_left, &dst, &dst_left);
    done = out->size() - dst_left;
    if (r != static_cast<size_t>(-1)) break;
    if (errno != E2BIG) return false;  // EILSEQ, or EINVAL: cut in the middle of a character
    out->resize(out->size() * 2);
  }
  out->resize(done);
  return true;
}

// Decodes one code point of valid UTF-8 at s[*i] and advances *i.
char32_t next_code_point(std::string_view s, size_t* i) {
  const auto c = static_cast<unsigned char>(s[*i]);
  const size_t len = c < 0x80 ? 1 : c < 0xE0 ? 2 : c < 0xF0 ? 3 : 4;
  char32_t cp = len == 1 ? c : len == 2 ? (c & 0x1F) : len == 3 ? (c & 0x0F) : (c & 0x07);
  for (size_t k = 1; k < len && *i + k < s.size(); ++k)
    cp = (cp << 6) | (static_cast<unsigned char>(s[*i + k]) & 0x3F);
  *i += len;
  return cp;
}

bool is_control(char32_t cp) {
  return (cp < 0x20 && cp != '\t' && cp != '\n' && cp != '\r' && cp != '\f') || cp == 0x7F;
}

// Whether legacy bytes decoded to text a person wrote in Chinese: no control or
// private-use characters, and at least half of what is not ASCII is CJK. Latin-1 or
// random bytes that happen to decode fail it.
bool plausible_chinese(std::string_view utf8) {
  size_t cjk = 0, other = 0;
  for (size_t i = 0; i < utf8.size();) {
    const char32_t cp = next_code_point(utf8, &i);
    if (is_control(cp) || (cp >= 0xE000 && cp <= 0xF8FF)) return false;
    if (cp < 0x80) continue;
    const bool is_cjk = (cp >= 0x2E80 && cp <= 0x303F) || (cp >= 0x3400 && cp <= 0x4DBF) ||
                        (cp >= 0x4E00 && cp <= 0x9FFF) || (cp >= 0xFF00 && cp <= 0xFFEF);
    (is_cjk ? cjk : other)++;
  }
  return cjk > 0 && cjk >= other;
}

bool no_controls(std::string_view utf8) {
  for (size_t i = 0; i < utf8.size();)
    if (is_control(next_code_point(utf8, &i))) return false;
  return true;
}

// The file's text as UTF-8, or the doc's one problem. Sets doc->encoding when the bytes
// were something else.
bool decode(std::string_view bytes, std::string* text, answers_doc* doc) {
  if (bytes.starts_with("\xEF\xBB\xBF")) bytes.remove_prefix(3);
  // UTF-16: a byte-order mark, or (without one) an ASCII first character's zero byte.
  const char* utf16 = nullptr;
  bool bom = false;
  if (bytes.starts_with("\xFF\xFE") || bytes.starts_with("\xFE\xFF")) {
    utf16 = bytes[0] == '\xFF' ? "UTF-16LE" : "UTF-16BE";
    bom = true;
  } else if (bytes.size() >= 2 && bytes.size() % 2 == 0 && (bytes[0] == 0) != (bytes[1] == 0)) {
    utf16 = bytes[0] != 0 ? "UTF-16LE" : "UTF-16BE";
  }
  if (utf16) {
    std::string out;
    if (to_utf8(bytes.substr(bom ? 2 : 0), utf16, &out) && (bom || no_controls(out))) {
      *text = out.starts_with("\xEF\xBB\xBF") ? out.substr(3) : out;
      doc->encoding = utf16;
      return true;
    }
    if (bom) {
      doc->problems.push_back({0, "not valid UTF-16: save the file as UTF-8"});
      return false;
    }
  }
  const size_t valid = valid_utf8_prefix(bytes);
  if (valid == bytes.size()) {
    *text = std::string(bytes);
    return true;
  }
  // A Chinese Windows editor's "ANSI" is GB18030 (GBK); the report warns about it. Not
  // when more characters are good UTF-8 than are damaged: that is damaged UTF-8.
  size_t good = 0, bad = 0;
  for (size_t i = 0; i < bytes.size();) {
    const size_t v = valid_utf8_prefix(bytes.substr(i));
    good += static_cast<size_t>(std::count_if(bytes.begin() + i, bytes.begin() + i + v,
                                              [](char c) { return (c & 0xC0) == 0xC0; }));
    i += v;
    if (i == bytes.size()) break;
    ++bad;  // one damaged character: its lead and the continuation bytes after it
    for (++i; i < bytes.size() && (bytes[i] & 0xC0) == 0x80;) ++i;
  }
  std::string out;
  if (good <= bad && to_utf8(bytes, "GB18030", &out) && plausible_chinese(out)) {
    *text = std::move(out);
    doc->encoding = "GB18030";
    return true;
  }
  doc->problems.push_back(
      {line_at(bytes, valid), "not UTF-8 (and not GB18030): save the file as UTF-8"});
  return false;
}

// ---- lines ------------------------------------------------------------------------------

// Spaces, tabs and the ideographic space U+3000 (an IME's space).
std::string_view trim(std::string_view s) {
  for (;;) {
    if (!s.empty() &&
        (s.front() == ' ' || s.front() == '\t' || s.front() == '\r' || s.front() == '\n'))
      s.remove_prefix(1);
    else if (s.starts_with("\u3000"))
      s.remove_prefix(3);
    else
      break;
  }
  for (;;) {
    if (!s.empty() && (s.back() == ' ' || s.back() == '\t' || s.back() == '\r' || s.back() == '\n'))
      s.remove_suffix(1);
    else if (s.ends_with("\u3000"))
      s.remove_suffix(3);
    else
      break;
  }
  return s;
}

size_t code_points(std::string_view s) {
  return static_cast<size_t>(std::count_if(
      s.begin(), s.end(), [](char c) { return (static_cast<unsigned char>(c) & 0xC0) != 0x80; }));
}

bool is_letter(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
}
char lower(char c) {
  return c >= 'A' && c <= 'Z' ? static_cast<char>(c - 'A' + 'a') : c;
}

// A box at the start of a line: "[x] (a) ...", "☐ (b) ...".
struct box {
  enum state { none, ticked, unticked, unreadable } state = none;
  std::string mark;    // as written, for the message
  std::string option;  // the label's lower-case letter; empty when it has none
};

// The label after a box, or "" : (a) a) a. (A) （a）.
std::string read_label(std::string_view s) {
  if (s.size() >= 3 && s[0] == '(' && is_letter(s[1]) && s[2] == ')') return {lower(s[1])};
  if (s.starts_with("\uFF08") && s.size() >= 7 && is_letter(s[3]) &&
      s.substr(4).starts_with("\uFF09"))
    return {lower(s[3])};
  if (s.size() >= 2 && is_letter(s[0]) && (s[1] == ')' || s[1] == '.') &&
      (s.size() == 2 || s[2] == ' ' || s[2] == '\t'))
    return {lower(s[0])};
  return {};
}

box read_box(std::string_view line) {
  std::string_view s = trim(line);
  // "-[x]": a bullet without its space is no list in CommonMark, but it is still a box.
  if (s.size() > 1 && (s[0] == '-' || s[0] == '*' || s[0] == '+') && s[1] == '[')
    s.remove_prefix(1);
  box b;
  std::string_view inner;
  bool bracketed = true;
  auto open = [&](std::string_view o, std::string_view c1, std::string_view c2) {
    if (!s.starts_with(o)) return false;
    const size_t limit = std::min<size_t>(s.size(), o.size() + 24);
    for (size_t i = o.size(); i < limit; ++i)
      for (std::string_view c : {c1, c2})
        if (s.substr(i).starts_with(c)) {
          inner = s.substr(o.size(), i - o.size());
          b.mark = std::string(s.substr(0, i + c.size()));
          s.remove_prefix(i + c.size());
          return true;
        }
    return false;
  };
  if (!open("[", "]", "\uFF3D") && !open("\uFF3B", "]", "\uFF3D")) {
    bracketed = false;
    for (std::string_view bare : {"\u2610", "\u2611", "\u2612", "\u2705"})
      if (s.starts_with(bare)) {
        inner = bare;
        b.mark = std::string(bare);
        s.remove_prefix(bare.size());
        break;
      }
    if (b.mark.empty()) return b;
  }
  const std::string_view m = trim(inner);
  if (code_points(m) > 3) return b;  // "[note] ...": prose, not a box
  static constexpr std::string_view ticks[] = {"x",      "X",      "\u221A", "\u2713", "\u2714",
                                               "\u2611", "\u2705", "\uFF58", "\uFF38"};
  const bool tick = std::find(std::begin(ticks), std::end(ticks), m) != std::end(ticks);
  if (bracketed && m.empty())
    b.state = box::unticked;
  else if (!bracketed && m == "\u2610")
    b.state = box::unticked;
  else if (tick && (bracketed || m == "\u2611" || m == "\u2705"))
    b.state = box::ticked;
  else
    b.state = box::unreadable;
  b.option = read_label(trim(s));
  // An unknown mark without a label is some other bracket ("[1] see ..."), not a box.
  if (b.option.empty() && b.state == box::unreadable) b.state = box::none;
  return b;
}

// ---- the document -----------------------------------------------------------------------

// A heading's or paragraph's text, line by line, with the line each starts on. Inline
// markup is dropped (**answer:** reads as answer:), links keep their brackets ([x](a)
// is a box and its label), code spans their backticks, HTML comments vanish.
std::vector<std::pair<std::string, int>> inline_lines(cmark_node* block) {
  std::vector<std::pair<std::string, int>> lines{{"", cmark_node_get_start_line(block)}};
  const int last = cmark_node_get_end_line(block);
  cmark_iter* it = cmark_iter_new(block);
  for (cmark_event_type ev; (ev = cmark_iter_next(it)) != CMARK_EVENT_DONE;) {
    cmark_node* n = cmark_iter_get_node(it);
    if (n == block) continue;
    auto& [text, line] = lines.back();
    // A new line starts where its first node does (after a code span across lines).
    const int at = cmark_node_get_start_line(n);
    if (ev == CMARK_EVENT_ENTER && text.empty() && at > line && at <= last) line = at;
    const char* lit = cmark_node_get_literal(n);
    switch (cmark_node_get_type(n)) {
      case CMARK_NODE_TEXT:
        text += lit ? lit : "";
        break;
      case CMARK_NODE_CODE:
        text += fmt::format("`{}`", lit ? lit : "");
        break;
      case CMARK_NODE_HTML_INLINE:
        if (lit && !std::string_view(lit).starts_with("<!--")) text += lit;
        break;
      case CMARK_NODE_SOFTBREAK:
      case CMARK_NODE_LINEBREAK:
        lines.emplace_back("", line + 1);
        break;
      case CMARK_NODE_LINK:
      case CMARK_NODE_IMAGE:
        if (ev == CMARK_EVENT_ENTER) {
          text += cmark_node_get_type(n) == CMARK_NODE_IMAGE ? "![" : "[";
        } else {
          const char* url = cmark_node_get_url(n);
          text += fmt::format("]({})", url ? url : "");
        }
        break;
      default:  // emphasis and strong: their text only
        break;
    }
  }
  cmark_iter_free(it);
  return lines;
}

// An HTML block's lines with its comments removed; the newlines inside a comment stay,
// so each line keeps its number ("... --> tail text" keeps its tail).
std::vector<std::pair<std::string, int>> html_lines(cmark_node* block) {
  const char* lit = cmark_node_get_literal(block);
  const std::string_view s = lit ? lit : "";
  std::string kept;
  for (size_t i = 0; i < s.size();) {
    if (s.compare(i, 4, "<!--") == 0) {
      const size_t end = s.find("-->", i + 4);
      const size_t stop = end == std::string_view::npos ? s.size() : end + 3;
      kept.append(static_cast<size_t>(std::count(s.begin() + i, s.begin() + stop, '\n')), '\n');
      i = stop;
    } else {
      kept += s[i++];
    }
  }
  std::vector<std::pair<std::string, int>> lines;
  int n = cmark_node_get_start_line(block);
  size_t b = 0;
  for (size_t e; (e = kept.find('\n', b)) != std::string::npos; b = e + 1, ++n)
    lines.emplace_back(kept.substr(b, e - b), n);
  if (b < kept.size()) lines.emplace_back(kept.substr(b), n);
  return lines;
}

// "[q1.a] ..." -> "q1.a", or "".
std::string part_id(std::string_view heading) {
  heading = trim(heading);
  if (!heading.starts_with("[")) return {};
  size_t i = 1;
  while (i < heading.size() && (is_letter(heading[i]) || (heading[i] >= '0' && heading[i] <= '9') ||
                                heading[i] == '_' || heading[i] == '.' || heading[i] == '-'))
    ++i;
  if (i == 1 || i >= heading.size() || heading[i] != ']') return {};
  return std::string(heading.substr(1, i - 1));
}

void add_line(std::string& to, std::string_view line) {
  line = trim(line);
  if (line.empty()) return;
  if (!to.empty()) to += '\n';
  to += line;
}

// Walks the blocks in document order; each line lands in the current part.
struct markdown_reader {
  answers_doc doc;
  answer_part* part = nullptr;
  bool in_answer = false;

  void heading(cmark_node* h) {
    std::string text;
    for (const auto& [t, n] : inline_lines(h)) text += (text.empty() ? "" : " ") + t;
    const std::string id = part_id(text);
    const int line = cmark_node_get_start_line(h);
    if (id.empty() && part && cmark_node_get_end_line(h) > line) {
      for (const auto& [t, n] : inline_lines(h)) text_line(t, n);  // setext: text over a rule
      return;
    }
    part = nullptr;
    in_answer = false;
    if (id.empty()) return;
    if (const auto first = doc.parts.find(id); first != doc.parts.end()) {
      first->second.problems.push_back(
          {line,
           fmt::format("part [{}] appears twice (first at line {})", id, first->second.line)});
      return;  // the second occurrence is not read
    }
    part = &doc.parts[id];
    part->id = id;
    part->line = line;
  }

  // A line of a paragraph or of an HTML block: an answer, a box or prose.
  void text_line(std::string_view raw, int line) {
    if (!part) return;
    std::string_view t = trim(raw);
    if (in_answer) {
      // "answer:" twice ("answer:" then "answer: 32" below it) is one answer.
      if (part->answer.empty()) t = trim(t.substr(answer_prefix(t)));
      add_line(part->answer, t);
      return;
    }
    if (const size_t k = answer_prefix(t)) {
      in_answer = true;
      part->answer_line = line;
      add_line(part->answer, t.substr(k));
      return;
    }
    const box b = read_box(t);
    if (b.state == box::none) {
      add_line(part->prose, t);
      return;
    }
    if (b.option.empty()) {
      part->problems.push_back(
          {line, fmt::format("checkbox {} lost its (a)-style label: write - [x] (a) ...", b.mark)});
      return;
    }
    part->options.insert(b.option);
    if (b.state == box::ticked) part->ticked.insert(b.option);
    if (b.state == box::unreadable)
      part->problems.push_back(
          {line, fmt::format("checkbox mark '{}': use [x] to tick or [ ] to leave", b.mark)});
  }

  // A code block's line: the answer's or the prose's, never a box.
  void code_line(std::string_view line) {
    if (part) add_line(in_answer ? part->answer : part->prose, line);
  }

  void read(cmark_node* root) {
    cmark_iter* it = cmark_iter_new(root);
    for (cmark_event_type ev; (ev = cmark_iter_next(it)) != CMARK_EVENT_DONE;) {
      if (ev != CMARK_EVENT_ENTER) continue;
      cmark_node* n = cmark_iter_get_node(it);
      switch (cmark_node_get_type(n)) {
        case CMARK_NODE_HEADING:
          heading(n);
          cmark_iter_reset(it, n, CMARK_EVENT_EXIT);  // its inlines are read
          break;
        case CMARK_NODE_PARAGRAPH:
          for (const auto& [t, line] : inline_lines(n)) text_line(t, line);
          cmark_iter_reset(it, n, CMARK_EVENT_EXIT);
          break;
        case CMARK_NODE_HTML_BLOCK:
          for (const auto& [t, line] : html_lines(n)) text_line(t, line);
          break;
        case CMARK_NODE_CODE_BLOCK: {
          const char* lit = cmark_node_get_literal(n);
          const std::string_view code = lit ? lit : "";
          size_t b = 0;
          for (size_t e; (e = code.find('\n', b)) != std::string_view::npos; b = e + 1)
            code_line(code.substr(b, e - b));
          code_line(code.substr(b));
          break;
        }
        default:  // document, quotes, lists, items: their blocks follow; rules: nothing
          break;
      }
    }
    cmark_iter_free(it);
  }
};

}  // namespace

size_t answer_prefix(std::string_view t) {
  if (t.size() < 7) return 0;
  for (size_t i = 0; i < 6; ++i)
    if (lower(t[i]) != "answer"[i]) return 0;
  size_t i = 6;
  while (i < t.size() && (t[i] == ' ' || t[i] == '\t')) ++i;  // "answer :"
  if (t.substr(i).starts_with(":")) return i + 1;
  if (t.substr(i).starts_with("\uFF1A")) return i + 3;  // full-width colon
  return 0;
}

answers_doc parse_answers(std::string_view bytes) {
  markdown_reader r;
  std::string text;
  if (!decode(bytes, &text, &r.doc)) return std::move(r.doc);
  cmark_node* root = cmark_parse_document(text.data(), text.size(), CMARK_OPT_SOURCEPOS);
  if (!root) {  // out of memory: cmark aborts before that, but say something if not
    r.doc.problems.push_back({0, "the file could not be parsed"});
    return std::move(r.doc);
  }
  r.read(root);
  cmark_node_free(root);
  return std::move(r.doc);
}

}  // namespace grader
