// BLANK(name): an exercise blank the student has not filled in yet.
// A student file compiles with `x = BLANK(m_new);` (an expression) or
// `BLANK_STMT(barrier);` (a statement, e.g. where a __syncthreads() belongs);
// running either throws course::unfilled_blank, so the tests fail with the blank's
// name instead of crashing.
#pragma once

#include <stdexcept>
#include <string>

namespace course {

class unfilled_blank : public std::logic_error {
 public:
  explicit unfilled_blank(const char* name)
      : std::logic_error(std::string("blank `") + name + "` is still empty: fill it in"),
        name_(name) {}
  const std::string& name() const { return name_; }

 private:
  std::string name_;
};

struct blank_value {
  const char* name;
  // Converts to whatever the blank's context needs, then refuses at run time.
  template <class T>
  [[noreturn]] operator T() const {
    throw unfilled_blank(name);
  }
};

[[noreturn]] inline void unfilled(const char* name) { throw unfilled_blank(name); }

}  // namespace course

#define BLANK(name) (::course::blank_value{#name})
#define BLANK_STMT(name) (::course::unfilled(#name))
