// Emulator stand-in for CUDA's runtime header: a .cu file that includes it (or
// nothing, as nvcc allows) compiles with g++ against the CPU emulator.
#pragma once
#include "cuda_emu/cuda.hpp"
