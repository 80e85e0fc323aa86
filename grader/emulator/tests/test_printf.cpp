// Device printf (src/printf.cpp): a kernel printing from every thread runs and keeps its
// results, the launch keeps 1 MiB of its text as a GPU's printf buffer would and the
// process shows at most 64 KiB, with one warning saying so; formats and the return
// value follow CUDA; printf in host code is plain printf; printf is no global traffic.
//   build/bin/emulator_tests "[printf]"
#include <catch2/catch.hpp>

#include <algorithm>
#include <string>
#include <vector>

#include "course/device_buffer.hpp"
#include "cuda_emu/emulator.hpp"
#include "adversarial_support.hpp"
#include "device_printf.hpp"

using namespace adversarial;  // quiet, last(), capture_stdout()

namespace {

std::vector<std::string> warnings(const cuda_emu::launch_record& r) {
  std::vector<std::string> out;
  for (const auto& rep : r.reports)
    if (rep.kind == cuda_emu::report_kind::warning) out.push_back(rep.text);
  return out;
}

}  // namespace

TEST_CASE("a kernel printing from 65,536 threads runs, its output capped, with one warning",
          "[printf]") {
  quiet q;
  cuda_emu::detail::reset_printf_shown();
  device_buffer<int> out(65536);
  const std::string text = capture_stdout([&] { printf_every_thread(out.ptr, 256, 256); });
  const auto& r = last();
  REQUIRE(r.ok());
  const auto got = out.download();
  for (int i = 0; i < 65536; i += 997) CHECK(got[i] == 2 * i);
  CHECK(got[65535] == 2 * 65535);
  // 65,536 lines of 36 bytes: 2,359,296 bytes. Kept: 29,127 whole lines (1,048,572
  // bytes, under 1 MiB); shown: 1,820 whole lines (65,520 bytes, under 64 KiB).
  CHECK(text.size() == 65520);
  CHECK(text.starts_with(
      "block     0 thread     0 m    0.000\nblock     0 thread     1 m    0.500\n"));
  CHECK(text.ends_with("block     7 thread    27 m   13.500\n"));
  CHECK(std::count(text.begin(), text.end(), '\n') == 1820);
  CHECK(cuda_emu::detail::printf_shown_bytes() == 65520);
  const auto said = warnings(r);
  REQUIRE(said.size() == 1);
  CHECK_THAT(said[0], Catch::StartsWith("Warning: device printf: 2,359,296 bytes in 65,536 calls "
                                        "from 65,536 threads; "));
  CHECK_THAT(said[0], Catch::Contains("printf buffer kept the first 29,127 calls (1,048,572 "
                                      "bytes) and dropped the rest"));
  CHECK_THAT(said[0], Catch::Contains("65,520 bytes shown"));

  // The allowance is the process's: a later launch shows nothing more, and says so.
  const std::string later = capture_stdout([&] { printf_every_thread(out.ptr, 1, 64); });
  CHECK(later.empty());
  const auto again = warnings(last());
  REQUIRE(again.size() == 1);
  CHECK_THAT(again[0], Catch::StartsWith("Warning: device printf: 2,304 bytes in 64 calls from "
                                         "64 threads; all of it fit"));
  CHECK_THAT(again[0], Catch::Contains("; 0 bytes shown"));
  cuda_emu::detail::reset_printf_shown();
}

TEST_CASE("device printf formats %d %f %s and returns the argument count, as CUDA's does",
          "[printf]") {
  quiet q;
  cuda_emu::detail::reset_printf_shown();
  device_buffer<int> r(std::vector<int>{-9, -9});
  const std::string text = capture_stdout([&] { printf_formats(r.ptr); });
  REQUIRE(last().ok());
  CHECK(text == "7 1.500000 str| 3.14|%|   9\nno arguments\n");
  CHECK(r.download() == std::vector<int>{6, 0});  // %*d takes two; no arguments gives 0
  CHECK(warnings(last()).empty());                // all shown: nothing to say
}

TEST_CASE("std::printf and ::printf in a kernel are device printf too", "[printf]") {
  quiet q;
  cuda_emu::detail::reset_printf_shown();
  device_buffer<int> r(std::vector<int>{-9, -9});
  const std::string text = capture_stdout([&] { printf_qualified(r.ptr); });
  REQUIRE(last().ok());
  CHECK(text == "std 1\nglobal\n");
  CHECK(r.download() == std::vector<int>{1, 0});  // host printf would return 6 and 7
}

TEST_CASE("printf in host code of a .cu file is printf", "[printf]") {
  quiet q;
  cuda_emu::detail::reset_printf_shown();
  int result = 0;
  const std::string text = capture_stdout([&] { result = printf_on_host(42); });
  CHECK(text == "host 42\n");
  CHECK(result == 8);  // characters, as C's printf returns
  CHECK(cuda_emu::detail::printf_shown_bytes() == 0);
  CHECK(cuda_emu::launches().empty());
}

TEST_CASE("device printf is not the kernel's global memory traffic", "[printf]") {
  quiet q;
  cuda_emu::detail::reset_printf_shown();
  const std::string text = capture_stdout([] { printf_only(64); });
  const auto& r = last();
  REQUIRE(r.ok());
  CHECK(std::count(text.begin(), text.end(), '\n') == 64);
  CHECK(r.counters.global_load_requests == 0);
  CHECK(r.counters.global_store_requests == 0);
  CHECK(r.counters.global_load_bytes == 0);
  CHECK(r.counters.global_store_bytes == 0);
  CHECK(r.counters.global_written_bytes == 0);
  CHECK(r.counters.max_thread_global_reads == 0);
}
