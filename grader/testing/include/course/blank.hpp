// BLANK(name): an exercise blank the student has not filled in yet.
// A student file compiles with `x = BLANK(m_new);` (an expression) or
// `BLANK_STMT(barrier);` (a statement, e.g. where a __syncthreads() belongs);
// running either throws course::unfilled_blank, so the tests fail with the blank's
// name instead of crashing. The reporter also records the name in its own field
// (course/protocol.hpp: field::blank), so the grader never reads it from a message.
#pragma once

// <exception>, not <stdexcept>: every exercise file includes this header, and <stdexcept>
// brings <string>, whose templates cost each compile of a kernel file 0.1 s of CPU even
// when precompiled.
#include <exception>

// The throw path is never instrumented: a blank may sit in a CUDA kernel running
// on the emulator, which would otherwise check the message's heap memory as if
// the kernel touched it.
#if defined(__GNUC__) || defined(__clang__)
#define COURSE_BLANK_UNCHECKED __attribute__((no_sanitize("thread"), noinline))
#else
#define COURSE_BLANK_UNCHECKED
#endif

namespace course {

// The last blank that threw, for the test reporter; reset at each test case.
inline const char* thrown_blank = nullptr;

class unfilled_blank : public std::exception {
 public:
  COURSE_BLANK_UNCHECKED explicit unfilled_blank(const char* name)
      : message_(message(name)), name_(name) {
    thrown_blank = name;
  }
  const char* what() const noexcept override { return message_.text; }
  // The blank's name, as written in BLANK(name).
  const char* name() const { return name_; }

 private:
  struct text_buffer {
    char text[192];
  };
  // "blank `NAME` is still empty: fill it in", built by hand: no library inline
  // code, which in a kernel file would be the instrumented copy.
  COURSE_BLANK_UNCHECKED static text_buffer message(const char* name) {
    text_buffer b{};
    const char* parts[] = {"blank `", name, "` is still empty: fill it in"};
    int n = 0;
    for (const char* part : parts)
      for (const char* c = part; *c && n + 1 < static_cast<int>(sizeof b.text); ++c)
        b.text[n++] = *c;
    b.text[n] = '\0';
    return b;
  }
  text_buffer message_;
  const char* name_;  // a string literal, from #name
};

struct blank_value {
  const char* name;
  // Converts to whatever the blank's context needs, then refuses at run time.
  template <class T>
  [[noreturn]] COURSE_BLANK_UNCHECKED operator T() const {
    throw unfilled_blank(name);
  }
  // acc += BLANK(x) and friends compile too.
  template <class T>
  COURSE_BLANK_UNCHECKED friend T& operator+=(T& lhs, const blank_value& b) {
    throw unfilled_blank(b.name);
    return lhs;
  }
  template <class T>
  COURSE_BLANK_UNCHECKED friend T& operator-=(T& lhs, const blank_value& b) {
    throw unfilled_blank(b.name);
    return lhs;
  }
  template <class T>
  COURSE_BLANK_UNCHECKED friend T& operator*=(T& lhs, const blank_value& b) {
    throw unfilled_blank(b.name);
    return lhs;
  }
};

[[noreturn]] COURSE_BLANK_UNCHECKED inline void unfilled(const char* name) {
  throw unfilled_blank(name);
}

}  // namespace course

#define BLANK(name) (::course::blank_value{#name})
#define BLANK_STMT(name) (::course::unfilled(#name))
