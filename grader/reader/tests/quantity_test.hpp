// What the quantity tests share: binary units and readings that must succeed.
#pragma once

#include <catch2/catch.hpp>

#include <string>

#include "grader/reader/reader.hpp"

using grader::lang;
using grader::parse_unit;
using grader::quantity_error;
using grader::read_quantity;

inline const double kib = 1024.0, mib = kib * kib, gib = mib * kib, tib = gib * kib,
                    pib = tib * kib;

// The answer's value in key_unit; fails the test when it cannot be read.
inline double value_of(const std::string& answer, const std::string& key_unit) {
  const auto q = read_quantity(answer, key_unit);
  INFO("answer: " << answer << "  key unit: " << key_unit << "  quoted: " << q.quoted);
  REQUIRE(q.error == quantity_error::none);
  return q.value;
}

inline quantity_error error_of(const std::string& answer, const std::string& key_unit) {
  return read_quantity(answer, key_unit).error;
}

// Exact to the last few bits: the conversions multiply and divide once each.
inline Approx exactly(double x) {
  return Approx(x).epsilon(1e-12).margin(1e-300);
}
