// The course's two languages: a text in both, and the grader's own messages
// chosen by language.
#pragma once

#include <fmt/format.h>

#include <string>

namespace grader {

enum class lang { zh, en };

// A text in both of the course's languages.
struct text {
  std::string zh, en;
  const std::string& in(lang l) const { return l == lang::zh || en.empty() ? zh : en; }
};

inline const char* tr(lang l, const char* zh, const char* en) {
  return l == lang::zh ? zh : en;
}

// fmt::format with a message chosen by language.
template <class... Args>
std::string trf(lang l, const char* zh, const char* en, Args&&... args) {
  return fmt::format(fmt::runtime(tr(l, zh, en)), std::forward<Args>(args)...);
}

}  // namespace grader
