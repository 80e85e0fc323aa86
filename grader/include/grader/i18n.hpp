// The grader's own messages in the course's two languages.
#pragma once

#include <fmt/format.h>

#include "grader/manifest.hpp"

namespace grader {

inline const char* tr(lang l, const char* zh, const char* en) {
  return l == lang::zh ? zh : en;
}

// fmt::format with a message chosen by language.
template <class... Args>
std::string trf(lang l, const char* zh, const char* en, Args&&... args) {
  return fmt::format(fmt::runtime(tr(l, zh, en)), std::forward<Args>(args)...);
}

}  // namespace grader
