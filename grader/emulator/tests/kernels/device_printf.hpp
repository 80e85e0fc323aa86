// Host entry points of device_printf.cu (printf in kernels and in host code).
//   build/bin/emulator_tests "[printf]"
#pragma once

// Every thread of blocks x threads prints one 36-byte line and writes out[i] = 2 i.
void printf_every_thread(int* out, int blocks, int threads);
// One thread prints "%d %f %s|%5.2f|%%|%*d" and "no arguments"; r[0], r[1] get the results.
void printf_formats(int* r);
// std::printf and ::printf in a kernel; r[0], r[1] get their results.
void printf_qualified(int* r);
// A thread printing nothing but the text: no global memory touched.
void printf_only(int threads);
// printf in host code of the same file: its result (the characters printed).
int printf_on_host(int value);
