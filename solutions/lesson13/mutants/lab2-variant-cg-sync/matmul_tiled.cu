// Lab 2 written with cooperative groups: the block is a cg::thread_block and its
// barrier is block.sync() (the same __syncthreads() underneath); thread and block
// coordinates come from the group too.
#include <cooperative_groups.h>
#include <cuda_runtime.h>

#include "matmul_labs.hpp"

namespace cg = cooperative_groups;

namespace lesson13 {
namespace {

constexpr int TS = kTile;

__global__ void cg_tiled(const float* A, const float* B, float* C, int M, int N, int K) {
  cg::thread_block block = cg::this_thread_block();
  __shared__ float a_tile[TS][TS];
  __shared__ float b_tile[TS][TS];
  const dim3 t = block.thread_index();
  const dim3 g = block.group_index();
  const int row = g.y * TS + t.y;
  const int col = g.x * TS + t.x;
  float result = 0.0f;
  for (int base = 0; base < K; base += TS) {
    const int ac = base + t.x, br = base + t.y;
    a_tile[t.y][t.x] = (row < M && ac < K) ? A[size_t(row) * K + ac] : 0.0f;
    b_tile[t.y][t.x] = (br < K && col < N) ? B[size_t(br) * N + col] : 0.0f;
    block.sync();  // tiles complete before anyone reads them
    for (int k = 0; k < TS; ++k) result += a_tile[t.y][k] * b_tile[k][t.x];
    block.sync();  // everyone done reading before the next step overwrites
  }
  if (row < M && col < N) C[size_t(row) * N + col] = result;
}

// Coarsened: a 1-D block of 256 threads computes a 64 x 64 tile of C; thread
// `rank` owns rows (rank / 16) + 16 i and columns (rank % 16) + 16 j, i, j < 4.
constexpr int CT = kCoarseTile, CF = kCoarseFactor, CS = CT / CF, CK = 16;

__global__ void cg_coarsened(const float* A, const float* B, float* C, int M, int N, int K) {
  cg::thread_block block = cg::this_thread_block();
  __shared__ float a_slab[CT][CK];
  __shared__ float b_slab[CK][CT];
  const int rank = static_cast<int>(block.thread_rank());
  const int tr = rank / CS, tc = rank % CS;
  const int row0 = blockIdx.y * CT, col0 = blockIdx.x * CT;
  float acc[CF][CF];
  for (int i = 0; i < CF; ++i)
    for (int j = 0; j < CF; ++j) acc[i][j] = 0.0f;
  for (int base = 0; base < K; base += CK) {
    for (int i = 0; i < CF; ++i) {
      const int r = row0 + tr + CS * i;  // A: 64 rows x 16 columns, lanes along the columns
      a_slab[tr + CS * i][tc] = (r < M && base + tc < K) ? A[size_t(r) * K + base + tc] : 0.0f;
      const int c = col0 + tc + CS * i;  // B: 16 rows x 64 columns
      b_slab[tr][tc + CS * i] = (base + tr < K && c < N) ? B[size_t(base + tr) * N + c] : 0.0f;
    }
    block.sync();
    for (int k = 0; k < CK; ++k) {
      float ar[CF], br[CF];
      for (int i = 0; i < CF; ++i) ar[i] = a_slab[tr + CS * i][k];
      for (int j = 0; j < CF; ++j) br[j] = b_slab[k][tc + CS * j];
      for (int i = 0; i < CF; ++i)
        for (int j = 0; j < CF; ++j) acc[i][j] += ar[i] * br[j];
    }
    block.sync();
  }
  for (int i = 0; i < CF; ++i) {
    const int r = row0 + tr + CS * i;
    for (int j = 0; j < CF; ++j) {
      const int c = col0 + tc + CS * j;
      if (r < M && c < N) C[size_t(r) * N + c] = acc[i][j];
    }
  }
}

}  // namespace

void matmul_tiled(const float* A, const float* B, float* C, int M, int N, int K) {
  cg_tiled<<<dim3((N + TS - 1) / TS, (M + TS - 1) / TS), dim3(TS, TS)>>>(A, B, C, M, N, K);
}

void matmul_coarsened(const float* A, const float* B, float* C, int M, int N, int K) {
  cg_coarsened<<<dim3((N + CT - 1) / CT, (M + CT - 1) / CT), CS * CS>>>(A, B, C, M, N, K);
}

}  // namespace lesson13
