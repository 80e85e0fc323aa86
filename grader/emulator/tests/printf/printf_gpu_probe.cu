// How a GPU's device printf behaves when its FIFO overflows, and what printf returns
// in a kernel: run on an H200 to set the emulator's model (src/printf.cpp). Usage:
//   printf_gpu_probe returns | limit | linesK [FIFO_BYTES]
// `linesK` prints one line with K arguments from each of 65,536 threads (K = 0, 2, 4,
// 8, 16; K = 1 is one %s of a 200-character string), after setting
// cudaLimitPrintfFifoSize to FIFO_BYTES if given; count the lines that come out (and
// which) to see what the FIFO keeps.
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <cuda_runtime.h>

__global__ void returns(int* r) {
  r[0] = printf("hello\n");
  r[1] = printf("%d\n", 5);
  r[2] = printf("%d %f %s\n", 1, 2.0, "x");
  r[3] = printf("%*d|\n", 5, 3);
  r[4] = printf("100%%\n");
  r[5] = printf("%s\n", "a longer string argument");
  r[6] = printf("");
}

__global__ void lines(int k) {
  const int b = blockIdx.x, t = threadIdx.x;
  if (k == 0) printf("a line with no arguments at all, 40 b.\n");
  if (k == 2) printf("b %5d t %5d\n", b, t);
  if (k == 4) printf("b %5d t %5d %f %f\n", b, t, 1.5f * t, 0.25f * b);
  if (k == 8) printf("b %d t %d %d %d %d %d %d %d\n", b, t, 1, 2, 3, 4, 5, 6);
  if (k == 9)
    printf("b %d t %d %d %d %d %d %d %d %d %d %d %d %d %d %d %d\n", b, t, 1, 2, 3, 4, 5, 6, 7, 8, 9,
           10, 11, 12, 13, 14);
  if (k == 1)
    printf("%s\n",
           "012345678901234567890123456789012345678901234567890123456789012345678901234567890123456"
           "7890123456789"
           "012345678901234567890123456789012345678901234567890123456789012345678901234567890123456"
           "7890123456789");
}

int main(int argc, char** argv) {
  const char* what = argc > 1 ? argv[1] : "returns";
  if (!strcmp(what, "limit")) {
    size_t fifo = 0;
    cudaDeviceGetLimit(&fifo, cudaLimitPrintfFifoSize);
    printf("cudaLimitPrintfFifoSize %zu\n", fifo);
    return 0;
  }
  if (!strcmp(what, "returns")) {
    int* d = nullptr;
    cudaMalloc(&d, 7 * sizeof(int));
    returns<<<1, 1>>>(d);
    int h[7];
    cudaMemcpy(h, d, sizeof h, cudaMemcpyDeviceToHost);
    for (int i = 0; i < 7; ++i) printf("return %d: %d\n", i, h[i]);
    return 0;
  }
  const int k = what[5] - '0';
  if (argc > 2) cudaDeviceSetLimit(cudaLimitPrintfFifoSize, static_cast<size_t>(atol(argv[2])));
  lines<<<256, 256>>>(k);
  cudaError_t e = cudaDeviceSynchronize();
  fprintf(stderr, "sync: %s\n", cudaGetErrorString(e));
  return 0;
}
