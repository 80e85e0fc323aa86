// Device printf (printf.hpp). A GPU's kernels print into a fixed FIFO that the host
// empties at the next synchronisation; what does not fit is dropped without an error
// (measured on an H200: tests/printf/printf_gpu_probe.h200.txt). Here each launch keeps
// the first kPrintfBufferBytes of formatted text, whole calls only, and prints it when
// the launch ends; over all launches a process shows at most kPrintfShownBytes. So a
// correct kernel that prints from every thread keeps its marks instead of losing the
// test to its output limit. What was dropped or not shown is said in one warning of
// the launch. The buffer lives here, not in device memory: it is no kernel traffic.
#include <algorithm>
#include <cstdarg>
#include <cstdio>
#include <string>
#include <vector>

#include "internal.hpp"

namespace cuda_emu::detail {
namespace {

struct printf_buffer {
  std::string kept;          // the formatted text of the calls that fit
  std::vector<size_t> ends;  // where each kept call ends in `kept`
  bool full = false;         // a call did not fit: every later one is dropped too
  uint64_t bytes = 0, calls = 0, threads = 0;
  std::vector<uint64_t> seen;  // per thread of a block: the (launch, block) it last printed in
};

printf_buffer g_buffer;
size_t g_shown = 0;  // device printf bytes this process has printed

// The arguments a format consumes, as CUDA's device printf counts them for its result:
// one per conversion, and one per `*` width or precision (measured: "%*d" returns 2).
int format_arguments(const char* f) {
  int n = 0;
  for (; *f; ++f) {
    if (*f != '%') continue;
    if (*++f == '%') continue;
    while (*f && std::char_traits<char>::find("-+ #0'", 6, *f)) ++f;  // flags
    if (*f == '*') ++n, ++f;
    while (*f >= '0' && *f <= '9') ++f;
    if (*f == '.') {
      ++f;
      if (*f == '*') ++n, ++f;
      while (*f >= '0' && *f <= '9') ++f;
    }
    while (*f && std::char_traits<char>::find("hlLqjzt", 7, *f)) ++f;  // length
    if (!*f) break;
    ++n;
  }
  return n;
}

std::string mib_or_bytes(size_t bytes) {
  if (bytes % (size_t{1} << 20) == 0) return std::to_string(bytes >> 20) + " MiB";
  if (bytes % 1024 == 0) return std::to_string(bytes >> 10) + " KiB";
  return grouped(bytes) + " bytes";
}

}  // namespace

int device_printf(const char* format, ...) {
  va_list args;
  va_start(args, format);
  if (!emu.in_kernel || !emu.record) {  // host code: printf itself
    const int r = std::vprintf(format, args);
    va_end(args);
    return r;
  }
  if (!format) {
    va_end(args);
    return -1;  // as CUDA documents for a null format
  }
  // The linker may pick a kernel file's instrumented copy of std::string's code: stop
  // tracking accesses while this runs (as access.cpp's reports do).
  emu.in_kernel = false;
  char small[512];
  va_list again;
  va_copy(again, args);
  const int n = std::vsnprintf(small, sizeof small, format, args);
  printf_buffer& b = g_buffer;
  if (n > 0) {
    const size_t len = static_cast<size_t>(n);
    ++b.calls;
    b.bytes += len;
    const thread& th = *emu.current;
    if (b.seen.size() < emu.threads.size()) b.seen.resize(emu.threads.size(), 0);
    const uint64_t here = (uint64_t{emu.launch_id} << 32) | (uint64_t{emu.block_seq} + 1);
    if (b.seen[th.linear] != here) {
      b.seen[th.linear] = here;
      ++b.threads;
    }
    if (!b.full && b.kept.size() + len <= kPrintfBufferBytes) {
      if (len < sizeof small) {
        b.kept.append(small, len);
      } else {
        const size_t at = b.kept.size();
        b.kept.resize(at + len + 1);
        std::vsnprintf(b.kept.data() + at, len + 1, format, again);
        b.kept.resize(at + len);
      }
      b.ends.push_back(b.kept.size());
    } else {
      b.full = true;
    }
  }
  va_end(again);
  va_end(args);
  emu.in_kernel = true;
  // CUDA: "printf() returns the number of arguments parsed" (not characters written).
  return format_arguments(format);
}

void finish_printf() {
  printf_buffer& b = g_buffer;
  if (b.calls == 0) return;
  // Whole calls, as far as this process's allowance goes.
  const size_t left = kPrintfShownBytes - std::min(g_shown, kPrintfShownBytes);
  const auto past = std::upper_bound(b.ends.begin(), b.ends.end(), left);
  const size_t shown = past == b.ends.begin() ? 0 : *(past - 1);
  if (shown) {
    std::fwrite(b.kept.data(), 1, shown, stdout);
    std::fflush(stdout);
    g_shown += shown;
  }
  if (shown < b.bytes) {
    std::string text = "Warning: device printf: " + grouped(b.bytes) + " bytes in " +
                       grouped(b.calls) + (b.calls == 1 ? " call" : " calls") + " from " +
                       grouped(b.threads) + (b.threads == 1 ? " thread" : " threads") + "; ";
    if (b.full)
      text += "the launch's " + mib_or_bytes(kPrintfBufferBytes) +
              " printf buffer kept the first " + grouped(b.ends.size()) + " calls (" +
              grouped(b.kept.size()) +
              " bytes) and dropped the rest, as a GPU's fixed printf buffer "
              "(cudaLimitPrintfFifoSize) drops what does not fit; ";
    else
      text += "all of it fit the launch's " + mib_or_bytes(kPrintfBufferBytes) + " printf buffer; ";
    text += grouped(shown) + " bytes shown (the emulator shows at most " +
            mib_or_bytes(kPrintfShownBytes) +
            " of device printf per process). The kernel's results are not affected.";
    emit(report_kind::warning, text);
  }
  b.kept.clear();
  b.kept.shrink_to_fit();
  b.ends.clear();
  b.ends.shrink_to_fit();
  b.full = false;
  b.bytes = b.calls = b.threads = 0;
}

size_t printf_shown_bytes() {
  return g_shown;
}
void reset_printf_shown() {
  g_shown = 0;
}

}  // namespace cuda_emu::detail
