// Device printf for the CPU emulator. The build's rewrite (src/rewrite.cpp) turns every
// printf call of a .cu file into device_printf, which outside a kernel is printf and
// inside one appends to the launch's printf buffer, as a GPU's fixed FIFO does: what
// does not fit is dropped, and at the end of the launch what was kept is printed, at
// most 64 KiB per process, so a kernel printing from every thread cannot flood a
// test's output. Part of cuda_emu/cuda.hpp; include that, not this. See src/printf.cpp.
#pragma once

#include <cstddef>

namespace cuda_emu {

// The launch's printf buffer: 1 MiB of formatted text (CUDA documents 1 MiB as
// cudaLimitPrintfFifoSize's default; an H200 under CUDA 13 starts at 8.25 MiB of records).
constexpr size_t kPrintfBufferBytes = size_t{1} << 20;
// The most device printf text one process prints, over all its launches.
constexpr size_t kPrintfShownBytes = size_t{64} << 10;

namespace detail {
// Outside a kernel: vprintf's result. Inside: the number of arguments the format
// consumed, as CUDA's device printf returns ("%*d" counts two), or -1 for a null format.
int device_printf(const char* format, ...) __attribute__((format(printf, 1, 2)));
// The device printf bytes this process has printed, against kPrintfShownBytes; tests
// start it afresh (cuda_emu::reset() does not: the allowance is per process).
size_t printf_shown_bytes();
void reset_printf_shown();
}  // namespace detail

}  // namespace cuda_emu
