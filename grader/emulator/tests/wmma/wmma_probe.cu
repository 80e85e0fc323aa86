// What nvcuda::wmma and bf16 do, printed line by line, so the emulator's output can be
// compared with a GPU's (wmma_probe.gpu.txt, built there with nvcc -arch=sm_90): which
// element of a fragment each lane holds (matrices whose entries encode their position),
// an exact product of small integers, the error of a product of random values against
// the host's double-precision one, and float-to-bf16 conversions at the rounding edges.
// ctest emulator.wmma_probe runs it on the emulator and compares (compare_probe.py).
#include <cuda_bf16.h>
#include <cuda_runtime.h>
#include <mma.h>

#include <cmath>
#include <cstdio>
#include <cstdint>
#include <cstring>
#include <random>
#include <vector>

using namespace nvcuda;

namespace {

// Each lane's 8 elements of each fragment, as loaded from M[r][c] = 16 r + c.
__global__ void layouts(const __nv_bfloat16* m, const float* mf, float* out) {
  const int lane = threadIdx.x;
  wmma::fragment<wmma::matrix_a, 16, 16, 16, __nv_bfloat16, wmma::row_major> a_row;
  wmma::fragment<wmma::matrix_a, 16, 16, 16, __nv_bfloat16, wmma::col_major> a_col;
  wmma::fragment<wmma::matrix_b, 16, 16, 16, __nv_bfloat16, wmma::row_major> b_row;
  wmma::fragment<wmma::matrix_b, 16, 16, 16, __nv_bfloat16, wmma::col_major> b_col;
  wmma::fragment<wmma::accumulator, 16, 16, 16, float> c_row, c_col;
  wmma::load_matrix_sync(a_row, m, 16);
  wmma::load_matrix_sync(a_col, m, 16);
  wmma::load_matrix_sync(b_row, m, 16);
  wmma::load_matrix_sync(b_col, m, 16);
  wmma::load_matrix_sync(c_row, mf, 16, wmma::mem_row_major);
  wmma::load_matrix_sync(c_col, mf, 16, wmma::mem_col_major);
  for (int i = 0; i < 8; ++i) {
    out[(0 * 32 + lane) * 8 + i] = __bfloat162float(a_row.x[i]);
    out[(1 * 32 + lane) * 8 + i] = __bfloat162float(a_col.x[i]);
    out[(2 * 32 + lane) * 8 + i] = __bfloat162float(b_row.x[i]);
    out[(3 * 32 + lane) * 8 + i] = __bfloat162float(b_col.x[i]);
    out[(4 * 32 + lane) * 8 + i] = c_row.x[i];
    out[(5 * 32 + lane) * 8 + i] = c_col.x[i];
  }
}

// D = A B + C, A row-major, B column-major (B^T stored row by row), D stored row-major.
__global__ void product(const __nv_bfloat16* A, const __nv_bfloat16* Bt, const float* C, float* D) {
  wmma::fragment<wmma::matrix_a, 16, 16, 16, __nv_bfloat16, wmma::row_major> a;
  wmma::fragment<wmma::matrix_b, 16, 16, 16, __nv_bfloat16, wmma::col_major> b;
  wmma::fragment<wmma::accumulator, 16, 16, 16, float> c;
  wmma::load_matrix_sync(a, A, 16);
  wmma::load_matrix_sync(b, Bt, 16);
  wmma::load_matrix_sync(c, C, 16, wmma::mem_row_major);
  wmma::mma_sync(c, a, b, c);
  wmma::store_matrix_sync(D, c, 16, wmma::mem_row_major);
}

__global__ void convert(const float* in, unsigned short* rn, unsigned short* rz, float* back,
                        int n) {
  const int i = threadIdx.x;
  if (i >= n) return;
  rn[i] = __bfloat16_as_ushort(__float2bfloat16_rn(in[i]));
  rz[i] = __bfloat16_as_ushort(__float2bfloat16_rz(in[i]));
  back[i] = __bfloat162float(__float2bfloat16(in[i]));
}

template <class T>
T* upload(const std::vector<T>& h) {
  T* d = nullptr;
  cudaMalloc(&d, h.size() * sizeof(T));
  cudaMemcpy(d, h.data(), h.size() * sizeof(T), cudaMemcpyHostToDevice);
  return d;
}
template <class T>
std::vector<T> download(const T* d, size_t n) {
  std::vector<T> h(n);
  cudaMemcpy(h.data(), d, n * sizeof(T), cudaMemcpyDeviceToHost);
  return h;
}

// D for A (row-major) and Bt (B transposed, row-major) from the GPU or emulator, and the
// double-precision product from the same bf16 inputs.
std::vector<float> run_product(const std::vector<float>& A, const std::vector<float>& Bt,
                               const std::vector<float>& C, std::vector<double>* exact) {
  std::vector<__nv_bfloat16> a(256), bt(256);
  for (int i = 0; i < 256; ++i) a[i] = __float2bfloat16(A[i]), bt[i] = __float2bfloat16(Bt[i]);
  __nv_bfloat16 *dA = upload(a), *dB = upload(bt);
  float *dC = upload(C), *dD = upload(std::vector<float>(256, NAN));
  product<<<1, 32>>>(dA, dB, dC, dD);
  const std::vector<float> D = download(dD, 256);
  exact->assign(256, 0.0);
  for (int r = 0; r < 16; ++r)
    for (int c = 0; c < 16; ++c) {
      double s = C[r * 16 + c];
      for (int k = 0; k < 16; ++k)
        s += double(__bfloat162float(a[r * 16 + k])) * double(__bfloat162float(bt[c * 16 + k]));
      (*exact)[r * 16 + c] = s;
    }
  cudaFree(dA), cudaFree(dB), cudaFree(dC), cudaFree(dD);
  return D;
}

}  // namespace

int main() {
  cudaDeviceProp prop{};
  cudaGetDeviceProperties(&prop, 0);
  std::printf("device %s\n", prop.name);
  {
    using fa = wmma::fragment<wmma::matrix_a, 16, 16, 16, __nv_bfloat16, wmma::row_major>;
    using fb = wmma::fragment<wmma::matrix_b, 16, 16, 16, __nv_bfloat16, wmma::col_major>;
    using fc = wmma::fragment<wmma::accumulator, 16, 16, 16, float>;
    std::printf("num_elements matrix_a %d matrix_b %d accumulator %d\n", fa::num_elements,
                fb::num_elements, fc::num_elements);
  }
  {  // layouts
    std::vector<__nv_bfloat16> m(256);
    std::vector<float> mf(256);
    for (int i = 0; i < 256; ++i) m[i] = __float2bfloat16(float(i)), mf[i] = float(i);
    __nv_bfloat16* dm = upload(m);
    float *dmf = upload(mf), *dout = upload(std::vector<float>(6 * 32 * 8, -1.0f));
    layouts<<<1, 32>>>(dm, dmf, dout);
    const std::vector<float> out = download(dout, 6 * 32 * 8);
    const char* names[] = {"matrix_a row_major",        "matrix_a col_major",
                           "matrix_b row_major",        "matrix_b col_major",
                           "accumulator mem_row_major", "accumulator mem_col_major"};
    for (int f = 0; f < 6; ++f)
      for (int lane = 0; lane < 32; ++lane) {
        std::printf("layout %s lane %2d:", names[f], lane);
        for (int i = 0; i < 8; ++i) {
          const int v = int(out[(f * 32 + lane) * 8 + i]);
          std::printf(" %d,%d", v / 16, v % 16);  // the element's (row, column) in memory
        }
        std::printf("\n");
      }
    cudaFree(dm), cudaFree(dmf), cudaFree(dout);
  }
  std::mt19937 rng(7);
  {  // exact: small integers, every sum exact in float
    std::uniform_int_distribution<int> small(-3, 3), acc(-8, 8);
    std::vector<float> A(256), Bt(256), C(256);
    for (int i = 0; i < 256; ++i) A[i] = small(rng), Bt[i] = small(rng), C[i] = acc(rng);
    std::vector<double> exact;
    const std::vector<float> D = run_product(A, Bt, C, &exact);
    int wrong = 0;
    for (int i = 0; i < 256; ++i) wrong += D[i] != exact[i];
    std::printf("mma exact: %d of 256 elements differ from the integer product\n", wrong);
    for (int r = 0; r < 16; ++r) {
      std::printf("mma exact row %2d:", r);
      for (int c = 0; c < 16; ++c) std::printf(" %g", D[r * 16 + c]);
      std::printf("\n");
    }
  }
  {  // random values: the relative error against the exact sum
    std::uniform_real_distribution<float> u(-1.0f, 1.0f);
    std::vector<float> A(256), Bt(256), C(256);
    for (int i = 0; i < 256; ++i) A[i] = u(rng), Bt[i] = u(rng), C[i] = u(rng);
    std::vector<double> exact;
    const std::vector<float> D = run_product(A, Bt, C, &exact);
    double worst = 0, scale = 0;
    for (int i = 0; i < 256; ++i) scale = std::max(scale, std::fabs(exact[i]));
    for (int i = 0; i < 256; ++i) worst = std::max(worst, std::fabs(D[i] - exact[i]) / scale);
    std::printf("mma random: max |D - exact| / max |exact| = %.3g\n", worst);
  }
  {  // conversions at the edges of rounding
    const uint32_t bits[] = {0x3f800000u, 0x3f808000u, 0x3f818000u, 0x3f80c000u, 0x3f807fffu,
                             0xbf808001u, 0x80000000u, 0x7f800000u, 0xff800000u, 0x7fc00000u,
                             0x7f800001u, 0xffc00001u, 0x7f7fffffu, 0x00000001u, 0x00008000u,
                             0x00018000u, 0x007fffffu, 0x40490fdbu};
    const int n = sizeof bits / sizeof bits[0];
    std::vector<float> in(n);
    for (int i = 0; i < n; ++i) std::memcpy(&in[i], &bits[i], 4);
    float *din = upload(in), *dback = upload(std::vector<float>(n));
    unsigned short *drn = upload(std::vector<unsigned short>(n)),
                   *drz = upload(std::vector<unsigned short>(n));
    convert<<<1, 32>>>(din, drn, drz, dback, n);
    const auto rn = download(drn, n), rz = download(drz, n);
    const auto back = download(dback, n);
    for (int i = 0; i < n; ++i) {
      uint32_t b;
      std::memcpy(&b, &back[i], 4);
      std::printf("bf16 %08x: rn %04x rz %04x back %08x\n", bits[i], rn[i], rz[i], b);
    }
    cudaFree(din), cudaFree(dback), cudaFree(drn), cudaFree(drz);
  }
  const cudaError_t e = cudaDeviceSynchronize();
  std::printf("status %s\n", cudaGetErrorName(e));
  return e == cudaSuccess ? 0 : 1;
}
