// Host entry points of wide_banks.cu: shared-memory float4 and float2 accesses, run by
// wide_banks_main.cu under Nsight Compute on a GPU and by test_shared_memory.cpp on the
// emulator. ncu_wide_banks.h100.txt holds the H100's counts for the float4 kernel (measured when
// it was the probe's only kernel, named float4_banks; the float2 one still waits for a GPU).
#pragma once

// One warp: each lane reads a float4 from row lane % 16 of rows 64 + pad floats long, then
// writes one to row lane % 16 of rows 128 + pad floats, at column 8 (lane / 16): the
// register-tiled FlashAttention's K_j reads and P^T writes. pad is 0, 4, 8, 12 or 16.
void wide_banks_float4(float* out, int pad);
// One warp: each lane reads a float2 at word (lane % 8) 2 + (lane / 8 % 2) 32 + (lane / 16) 16:
// each half-warp uses 16 banks twice, the whole warp each bank twice.
void wide_banks_float2(float* out);
