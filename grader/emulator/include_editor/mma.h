// Editor-only wrapper, never compiled by the grader: clangd finds it before the emulator's
// <mma.h> (cmake/course_editor.cmake) and makes its functions __host__ __device__, so
// kernels may call them in clang's CUDA mode (cuda_emu_editor.hpp).
#pragma once

#pragma clang force_cuda_host_device begin
#include_next <mma.h>
#pragma clang force_cuda_host_device end
