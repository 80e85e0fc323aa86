// Host entry points of schedules.cu: kernels whose result depends on the order threads
// and blocks run in (order bugs), their correct counterparts, and global-memory races.
//   build/bin/emulator_tests -# "[#test_schedules]"
#pragma once

// C (n x n, n a multiple of 16) = A * B with 16 x 16 tiles; `barrier` 0 __syncthreads,
// 1 __syncwarp in its place, 2 thread 0 stages both tiles alone with no barrier after.
void sched_tiled_matmul(const float* A, const float* B, float* C, int n, int barrier);
// C (m x n) += A (m x k) * B (k x n), the k range split over `splits` blocks per output
// tile: a non-atomic C += from several blocks, or atomicAdd.
void sched_split_k(const float* A, const float* B, float* C, int m, int n, int k, int splits,
                   bool atomic);
// out[i] = in[i] + out[i-1] for blocks of 32: each block reads the last value the block
// before it wrote (an order the GPU does not give).
void sched_chained_blocks(const float* in, float* out, int n);
// out[t] = t, then (with or without __syncthreads) out2[t] = out[(t+1) % n], one block.
void sched_neighbour(float* out, float* out2, int n, bool barrier);
// A block sum in shared memory with __syncwarp inside each warp and __syncthreads
// between warps: correct under every schedule.
void sched_block_sum(const float* in, float* out, int n);
// Every block adds its count to a __device__ counter, non-atomically or atomically,
// then block 0's thread 0 reads nothing else; returns the counter.
int sched_device_counter(int blocks, bool atomic);
