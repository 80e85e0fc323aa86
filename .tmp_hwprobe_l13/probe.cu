// Temporary hardware probe for lesson 13 notes (not part of the course).
#include <cstdio>
#include <cstdlib>
#include <vector>
#include <numeric>
#include <random>
#include <algorithm>
#include <cuda_runtime.h>
#define CK(x) do{cudaError_t e=(x); if(e!=cudaSuccess){printf("ERR %s line %d: %s\n",#x,__LINE__,cudaGetErrorString(e)); exit(1);} }while(0)

__global__ void chase(const unsigned* __restrict__ nxt, int iters, int mode, long long* cyc, unsigned* sink){
  unsigned p = 0;
  for (int i = 0; i < iters; ++i) p = mode ? __ldcg(nxt + p) : __ldca(nxt + p);   // warm pass
  long long t0 = clock64();
  for (int i = 0; i < iters; ++i) p = mode ? __ldcg(nxt + p) : __ldca(nxt + p);
  long long t1 = clock64();
  *cyc = t1 - t0; *sink = p;
}
__global__ void chase_smem(int n, int iters, long long* cyc, unsigned* sink){
  extern __shared__ unsigned s[];
  for (int i = 0; i < n; ++i) s[i] = (i * 97 + 13) % n;  // n prime-ish cycle not guaranteed; fine
  __syncthreads();
  unsigned p = 0;
  long long t0 = clock64();
  for (int i = 0; i < iters; ++i) p = s[p];
  long long t1 = clock64();
  *cyc = t1 - t0; *sink = p;
}
__global__ void strided_read(const float* __restrict__ a, long long n, int stride, float* out){
  long long t = blockIdx.x * (long long)blockDim.x + threadIdx.x;
  if (t < n) { float v = __ldcs(a + t * stride); if (v == 12345.f) out[0] = v; }
}
int main(){
  cudaDeviceProp pr; CK(cudaGetDeviceProperties(&pr, 0));
  printf("name=%s SMs=%d L2=%d B smemPerSM=%zu smemPerBlockOptin=%zu regsPerSM=%d warp=%d maxThrPerSM=%d totalGlobal=%zu B busWidth=%d\n",
    pr.name, pr.multiProcessorCount, pr.l2CacheSize, pr.sharedMemPerMultiprocessor, pr.sharedMemPerBlockOptin,
    pr.regsPerMultiprocessor, pr.warpSize, pr.maxThreadsPerMultiProcessor, pr.totalGlobalMem, pr.memoryBusWidth);
  long long* dcyc; unsigned* dsink; CK(cudaMalloc(&dcyc, 8)); CK(cudaMalloc(&dsink, 4));
  // pointer chase, one element per 128-byte line (32 unsigned), random cyclic order
  size_t foots[] = {16u<<10, 128u<<10, 4u<<20, 32u<<20, 256u<<20, 2048ull<<20};
  for (size_t f : foots) for (int mode = 0; mode < 2; ++mode) {
    size_t nelem = f / 4, nlines = f / 128;
    std::vector<unsigned> order(nlines); std::iota(order.begin(), order.end(), 0);
    std::mt19937 rng(1); std::shuffle(order.begin()+1, order.end(), rng);
    std::vector<unsigned> h(nelem, 0);
    for (size_t i = 0; i < nlines; ++i) h[(size_t)order[i]*32] = order[(i+1)%nlines]*32;
    unsigned* d; CK(cudaMalloc(&d, f)); CK(cudaMemcpy(d, h.data(), f, cudaMemcpyHostToDevice));
    int iters = (int)std::min<size_t>(nlines, 200000);
    chase<<<1,1>>>(d, iters, mode, dcyc, dsink); CK(cudaGetLastError()); CK(cudaDeviceSynchronize());
    long long c; CK(cudaMemcpy(&c, dcyc, 8, cudaMemcpyDeviceToHost));
    printf("chase footprint=%zu KiB mode=%s cycles/load=%.1f\n", f>>10, mode?"ldcg(L2)":"ldca(L1)", (double)c/iters);
    CK(cudaFree(d));
  }
  chase_smem<<<1,1,4096*4>>>(4096, 100000, dcyc, dsink); CK(cudaDeviceSynchronize());
  { long long c; CK(cudaMemcpy(&c, dcyc, 8, cudaMemcpyDeviceToHost)); printf("smem chase cycles/load=%.1f\n", (double)c/100000); }
  // strided reads: n threads each read one float at index t*stride
  long long n = 1ll<<26; int strides[] = {1,2,4,8,16,32};
  float* a; CK(cudaMalloc(&a, (size_t)n*32*4)); CK(cudaMemset(a, 0, (size_t)n*32*4));
  float* o; CK(cudaMalloc(&o, 4));
  cudaEvent_t e0, e1; cudaEventCreate(&e0); cudaEventCreate(&e1);
  for (int s : strides) {
    int th = 256; long long bl = (n + th - 1) / th;
    strided_read<<<bl, th>>>(a, n, s, o); CK(cudaDeviceSynchronize());
    float best = 1e9;
    for (int r = 0; r < 5; ++r) { cudaEventRecord(e0); strided_read<<<bl, th>>>(a, n, s, o); cudaEventRecord(e1); CK(cudaEventSynchronize(e1)); float ms; cudaEventElapsedTime(&ms, e0, e1); best = std::min(best, ms); }
    printf("stride=%2d floats: %.3f ms, useful bytes %.2f GB/s-> useful BW %.0f GB/s\n", s, best, n*4/1e9, n*4/1e6/best);
  }
  return 0;
}
