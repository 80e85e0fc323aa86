// CUDA's barriers for the CPU emulator: __syncthreads() (the block's threads wait
// for each other; the scheduler runs every other fiber up to the same barrier)
// and __syncwarp(). Part of cuda_emu/cuda.hpp; include that, not this.
#pragma once

void __syncthreads();
void __syncwarp(unsigned mask = 0xffffffffu);
