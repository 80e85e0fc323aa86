// Unit tests for the reader's feedback messages (describe_reading, describe_error:
// messages.cpp).
//   build/dev/bin/grader_reader_tests "[quantity]"
#include <catch2/catch.hpp>

#include "quantity_test.hpp"

TEST_CASE("describe_reading and describe_error, in en and zh", "[quantity]") {
  using grader::describe_error;
  using grader::describe_reading;
  CHECK(describe_reading(read_quantity("3350 GB/s", "TB/s"), "TB/s", lang::en) ==
        "\"3350 GB/s\" = 3.35 TB/s");
  CHECK(describe_reading(read_quantity("3350 GB/s", "TB/s"), "TB/s", lang::zh) ==
        "“3350 GB/s” = 3.35 TB/s");
  CHECK(describe_reading(read_quantity("3.35 TB/s", "TB/s"), "TB/s", lang::en) == "\"3.35 TB/s\"");
  CHECK(describe_reading(read_quantity("19", "TB/s"), "TB/s", lang::en) ==
        "\"19\" (read as 19 TB/s)");
  CHECK(describe_reading(read_quantity("19", "TB/s"), "TB/s", lang::zh) == "“19”（按 19 TB/s 读）");
  CHECK(describe_reading(read_quantity("5 sectors", "sectors"), "sectors", lang::en) ==
        "\"5 sectors\"");
  CHECK(describe_reading(read_quantity("5", ""), "", lang::en) == "\"5\"");
  CHECK(describe_reading(read_quantity("50%", ""), "", lang::en) == "\"50%\" = 0.5");
  CHECK(describe_error(read_quantity("32 GB/s", "MiB"), "MiB", lang::en) ==
        "\"32 GB/s\" is a rate, the question asks for bytes (MiB)");
  CHECK(describe_error(read_quantity("32 GB/s", "MiB"), "MiB", lang::zh) ==
        "“32 GB/s”是速率，题目问的是字节数（MiB）");
  CHECK(describe_error(read_quantity("3.35 TB", "TB/s"), "TB/s", lang::en) ==
        "\"3.35 TB\" is a number of bytes, the question asks for a rate (TB/s)");
  CHECK(describe_error(read_quantity("50%", "MiB"), "MiB", lang::en) ==
        "\"50%\" is a percentage, the question asks for bytes (MiB)");
  CHECK(describe_error(read_quantity("128 B", "sectors"), "sectors", lang::en) ==
        "\"128 B\" is a number of bytes, the question asks for a count (sectors)");
  CHECK(describe_error(read_quantity("4 GB", ""), "", lang::en) ==
        "\"4 GB\" is a number of bytes, the question asks for a plain number");
  CHECK(describe_error(read_quantity("1e309", ""), "", lang::en) ==
        "\"1e309\" is not a finite number");
  CHECK(describe_error(read_quantity("1e309", ""), "", lang::zh) == "“1e309”不是有限的数");
  CHECK(describe_error(read_quantity("fast", ""), "", lang::en) == "needs a number, got \"fast\"");
  CHECK(describe_error(read_quantity("3~4", "TB/s"), "TB/s", lang::en) ==
        "\"3~4\" can be read more than one way; write one number and its unit (TB/s)");
  CHECK(grader::format_number(0.0035) == "0.0035");
  CHECK(grader::format_number(32.043457031) == "32.0435");
  CHECK(grader::format_number(3.35e12) == "3.35e+12");
}
