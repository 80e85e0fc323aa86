// BLANK(name): an exercise blank the student has not filled in yet.
// A student file compiles with `x = BLANK(m_new);` (an expression) or
// `BLANK_STMT(barrier);` (a statement, e.g. where a __syncthreads() belongs);
// running either throws course::unfilled_blank, so the tests fail with the blank's
// name instead of crashing. The reporter also records the name in its own field
// (course/protocol.hpp: field::blank), so the grader never reads it from a message.
//
// Poison mode (issue 24: a verdict per blank): a test that judges one blank at a time sets
// course::blank_poison while it calls the student's code. An empty blank then yields a
// quiet NaN (a float or double blank) or does nothing (a statement), and is recorded in
// course::poisoned_blanks instead of stopping the function, so the blanks before it can
// still be judged. Outside such a test (every rubric item's test) a blank throws.
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

// Poison mode, and the empty blanks it met (names, in the order first met). Only
// host-side C++ exercises use it; a kernel on the emulator never sees it set.
inline bool blank_poison = false;
struct poisoned_list {
  const char* names[16] = {};
  int count = 0;
  COURSE_BLANK_UNCHECKED void add(const char* name) {
    for (int i = 0; i < count; ++i)
      if (names[i] == name || __builtin_strcmp(names[i], name) == 0) return;
    if (count < 16) names[count++] = name;
  }
  bool has(const char* name) const {
    for (int i = 0; i < count; ++i)
      if (__builtin_strcmp(names[i], name) == 0) return true;
    return false;
  }
};
inline poisoned_list poisoned_blanks;

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
  // A float or double blank: NaN in poison mode.
  COURSE_BLANK_UNCHECKED operator float() const { return static_cast<float>(poison()); }
  COURSE_BLANK_UNCHECKED operator double() const { return poison(); }
  // Converts to whatever else the blank's context needs, then refuses at run time.
  template <class T>
  [[noreturn]] COURSE_BLANK_UNCHECKED operator T() const {
    throw unfilled_blank(name);
  }
  COURSE_BLANK_UNCHECKED double poison() const {
    if (!blank_poison) throw unfilled_blank(name);
    poisoned_blanks.add(name);
    return __builtin_nan("");
  }
  // acc += BLANK(x) and friends compile too.
  template <class T>
  COURSE_BLANK_UNCHECKED friend T& operator+=(T& lhs, const blank_value& b) {
    b.poison();  // poison mode: recorded, lhs left as it was
    return lhs;
  }
  template <class T>
  COURSE_BLANK_UNCHECKED friend T& operator-=(T& lhs, const blank_value& b) {
    b.poison();  // poison mode: recorded, lhs left as it was
    return lhs;
  }
  template <class T>
  COURSE_BLANK_UNCHECKED friend T& operator*=(T& lhs, const blank_value& b) {
    b.poison();  // poison mode: recorded, lhs left as it was
    return lhs;
  }
};

COURSE_BLANK_UNCHECKED inline void unfilled(const char* name) {
  if (!blank_poison) throw unfilled_blank(name);
  poisoned_blanks.add(name);
}

}  // namespace course

#define BLANK(name) (::course::blank_value{#name})
#define BLANK_STMT(name) (::course::unfilled(#name))
// TUNABLE(value): a given value the exercise invites the student to change (lab 0's
// padding, `constexpr int PAD = TUNABLE(0);`). It is just the value, usable in constant
// expressions; the grader treats its line as the student's, like a blank's, so an edit
// there is not flagged as a change outside the blanks (grader/lesson/regions.hpp).
#define TUNABLE(value) (value)
