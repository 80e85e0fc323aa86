// Host entry points of cuda_api.cu (CUDA API and syntax students use: dynamic
// shared memory, cooperative groups, symbols, device queries, template kernels).
//   build/bin/emulator_tests -# "[#test_cuda_api]"
#pragma once

#include <cuda_runtime.h>

// Reverses each block's slice of in through `extern __shared__` memory; `stream`
// picks the four-argument launch form. Returns the launch's error.
cudaError_t api_reverse_dynamic(const float* in, float* out, int blocks, int threads, bool stream);
// Same with `bytes` of dynamic shared memory (only the first block's threads used).
cudaError_t api_dynamic_bytes(float* out, size_t bytes);
// Two `extern __shared__` arrays of different types alias the same bytes.
void api_dynamic_alias(int* out);
// Block sums of doubles by a template kernel using the samples' SharedMemory<T> idiom.
void api_block_sums(const double* in, double* out, int blocks, int threads);
// Each thread writes its own byte of a dynamic `unsigned char` array (no race).
void api_byte_writes(int* out);

// Block sums by cooperative groups: thread_block, tiled_partition<32>, shfl_down.
void api_cg_block_sum(const int* in, int* out, int blocks, int threads);
// Per thread: tile<8> rank, meta-group rank, size, block rank (4 ints per thread).
void api_cg_tile_info(int* out, int threads);

// Per thread (tiles of 16): the tile's sum and maximum by cg::reduce (2 ints).
void api_cg_reduce(const int* in, int* out, int threads);
// A block reversal on a created stream, copied back with cudaMemcpyAsync.
void api_stream_copy(const float* in, float* out, float* host, int n);

// out[i] = c[0] + c[1] * in[i] with c in __constant__ memory set by cudaMemcpyToSymbol.
void api_set_coeffs(const float* c2);
void api_affine(const float* in, float* out, int n);
// Copies to and from a __device__ int through the symbol API.
int api_symbol_round_trip(int v);

// __activemask() of each thread of one block of `threads`.
void api_activemask(unsigned* out, int threads);

// Template kernels: deduced (float and int), explicit <T, N>, default argument, overload.
void api_templates(float* f, int* i, int n);
// Host code with variables named gridDim and blockDim (tutorial style): fills p[0..n*n).
void api_host_grid_block_names(int* p, int n);
// __shared__ arrays in template kernels: a transpose through shared memory with
// column-reads (bank conflicts when PAD is 0) and a race without a barrier.
void api_template_shared_transpose(const float* in, float* out, bool padded);
void api_template_shared_race(float* out);
