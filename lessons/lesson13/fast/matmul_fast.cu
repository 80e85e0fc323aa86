// Lab 2's coarsened matmul taken to 2-D register blocking (issue 26): C = A B in fp32,
// row-major, A M x K, B K x N. A block of 256 threads computes a 128 x 128 tile of C; each
// thread an 8 x 8 block of it, as two 4-row by two 4-column pieces (rows ty*4 and
// 64 + ty*4, columns tx*4 and 64 + tx*4), so its float4 reads of a shared row are
// consecutive across lanes: no bank conflict. Per step of BK = 8 along k, a thread reads 4
// float4s from shared memory and makes 64 FMAs. A is staged transposed (k-major, padded)
// so a thread's 8 rows are float4s too. The next step's tiles are loaded from global
// memory into registers while this one computes, and stored to the other of two shared
// buffers after: one barrier per step. Timed against cuBLAS by lesson13_gpu_bench.
#include <cuda_runtime.h>

#include "matmul_fast.hpp"

namespace lesson13 {
namespace {

constexpr int BM = 128, BN = 128, BK = 8, kThreads = 256;
constexpr int LDA = BM + 4;  // padded: the transposed stores of two k-columns land 16 banks apart

// Outside the kernel (the emulator sees namespace-scope __shared__ arrays): two buffers.
__shared__ float As[2][BK * LDA];
__shared__ float Bs[2][BK * BN];

struct tile_regs {
  float4 a, b;  // this thread's share of the next step's A and B tiles
};

// Thread t loads A[row0 + t/2][k0 + (t%2)*4 .. +3] and B[k0 + t/32][col0 + (t%32)*4 .. +3]:
// float4 where the row allows, element by element (zero past the edges) where it does not.
__device__ float4 load4(const float* M, int rows, int cols, int r, int c, bool vec) {
  if (r >= rows) return make_float4(0.f, 0.f, 0.f, 0.f);
  const float* p = M + static_cast<size_t>(r) * cols + c;
  if (vec && c + 3 < cols) return *reinterpret_cast<const float4*>(p);
  return make_float4(c < cols ? p[0] : 0.f, c + 1 < cols ? p[1] : 0.f, c + 2 < cols ? p[2] : 0.f,
                     c + 3 < cols ? p[3] : 0.f);
}

__device__ tile_regs load_tiles(const float* A, const float* B, int M, int N, int K, int row0,
                                int col0, int k0) {
  const int t = threadIdx.x;
  return {load4(A, M, K, row0 + t / 2, k0 + (t % 2) * 4, K % 4 == 0),
          load4(B, K, N, k0 + t / 32, col0 + (t % 32) * 4, N % 4 == 0)};
}

__device__ void store_tiles(const tile_regs& r, int buf) {
  const int t = threadIdx.x, row = t / 2, k = (t % 2) * 4;
  As[buf][(k + 0) * LDA + row] = r.a.x;
  As[buf][(k + 1) * LDA + row] = r.a.y;
  As[buf][(k + 2) * LDA + row] = r.a.z;
  As[buf][(k + 3) * LDA + row] = r.a.w;
  *reinterpret_cast<float4*>(&Bs[buf][(t / 32) * BN + (t % 32) * 4]) = r.b;
}

__global__ void __launch_bounds__(kThreads, 2)
    matmul_fast_kernel(const float* __restrict__ A, const float* __restrict__ B,
                       float* __restrict__ C, int M, int N, int K) {
  const int tx = threadIdx.x % 16, ty = threadIdx.x / 16;
  const int row0 = blockIdx.y * BM, col0 = blockIdx.x * BN;
  float acc[8][8] = {};

  store_tiles(load_tiles(A, B, M, N, K, row0, col0, 0), 0);
  __syncthreads();
  int buf = 0;
  for (int k0 = 0; k0 < K; k0 += BK) {
    const bool more = k0 + BK < K;
    tile_regs next{};
    if (more) next = load_tiles(A, B, M, N, K, row0, col0, k0 + BK);  // in flight meanwhile
    for (int k = 0; k < BK; ++k) {
      const float4 a0 = *reinterpret_cast<const float4*>(&As[buf][k * LDA + ty * 4]);
      const float4 a1 = *reinterpret_cast<const float4*>(&As[buf][k * LDA + 64 + ty * 4]);
      const float4 b0 = *reinterpret_cast<const float4*>(&Bs[buf][k * BN + tx * 4]);
      const float4 b1 = *reinterpret_cast<const float4*>(&Bs[buf][k * BN + 64 + tx * 4]);
      const float a[8] = {a0.x, a0.y, a0.z, a0.w, a1.x, a1.y, a1.z, a1.w};
      const float b[8] = {b0.x, b0.y, b0.z, b0.w, b1.x, b1.y, b1.z, b1.w};
      for (int i = 0; i < 8; ++i)
        for (int j = 0; j < 8; ++j) acc[i][j] = fmaf(a[i], b[j], acc[i][j]);
    }
    if (more) store_tiles(next, buf ^ 1);  // the other buffer: nobody reads it this step
    __syncthreads();
    buf ^= 1;
  }

  for (int i = 0; i < 8; ++i) {
    const int r = row0 + (i < 4 ? ty * 4 + i : 64 + ty * 4 + i - 4);
    if (r >= M) continue;
    for (int h = 0; h < 2; ++h) {
      const int c = col0 + h * 64 + tx * 4;
      float* out = C + static_cast<size_t>(r) * N + c;
      const float* v = &acc[i][h * 4];
      if (N % 4 == 0 && c + 3 < N) {
        *reinterpret_cast<float4*>(out) = make_float4(v[0], v[1], v[2], v[3]);
      } else {
        for (int e = 0; e < 4; ++e)
          if (c + e < N) out[e] = v[e];
      }
    }
  }
}

}  // namespace

void matmul_fast(const float* A, const float* B, float* C, int M, int N, int K) {
  const dim3 grid((N + BN - 1) / BN, (M + BM - 1) / BM);
  matmul_fast_kernel<<<grid, kThreads>>>(A, B, C, M, N, K);
}

}  // namespace lesson13
