// A device buffer for tests of CUDA code: cudaMalloc'd, freed on scope exit.
// Works with the CPU emulator's <cuda_runtime.h> and with the real one.
#pragma once

#include <cuda_runtime.h>

#include <vector>

#ifdef CUDART_VERSION  // the toolkit's runtime, on a GPU; the emulator's defines none
#include <stdexcept>
#include <string>

#include "course/protocol.hpp"
namespace course::detail {
// Errors that say the process cannot use a GPU at all, which no student code causes (a
// kernel's fault makes later calls fail too, but with that fault's own error, which stays
// the test's failure).
inline bool gpu_unavailable(cudaError_t e) {
  return e == cudaErrorNoDevice || e == cudaErrorInsufficientDriver ||
         e == cudaErrorInitializationError || e == cudaErrorDevicesUnavailable ||
         e == cudaErrorSystemNotReady || e == cudaErrorSystemDriverMismatch ||
         e == cudaErrorCompatNotSupportedOnDevice || e == cudaErrorStartupFailure ||
         e == cudaErrorInvalidDevice || e == cudaErrorNotPermitted;
}
}  // namespace course::detail
#endif

template <class T>
struct device_buffer {
  T* ptr = nullptr;
  size_t n = 0;
  explicit device_buffer(size_t count) : n(count) {
    [[maybe_unused]] const cudaError_t e = cudaMalloc(&ptr, count * sizeof(T));
#ifdef CUDART_VERSION
    if (course::detail::gpu_unavailable(e))
      throw std::runtime_error(std::string(course::protocol::gpu_unavailable_prefix) +
                               cudaGetErrorName(e) + ": " + cudaGetErrorString(e));
#endif
  }
  device_buffer(const std::vector<T>& host) : device_buffer(host.size()) {
    cudaMemcpy(ptr, host.data(), n * sizeof(T), cudaMemcpyHostToDevice);
  }
  ~device_buffer() {
    cudaFree(ptr);
  }
  // All bits set: a float output the kernel forgets to write reads back as NaN.
  void poison() {
    cudaMemset(ptr, 0xFF, n * sizeof(T));
  }
  device_buffer(const device_buffer&) = delete;
  device_buffer& operator=(const device_buffer&) = delete;
  std::vector<T> download() const {
    std::vector<T> host(n);
    cudaMemcpy(host.data(), ptr, n * sizeof(T), cudaMemcpyDeviceToHost);
    return host;
  }
  // Elements [first, first + count): a large output checked piece by piece, so the
  // test's host memory stays small (a GPU process's memory limit, docs/grader.md).
  std::vector<T> download(size_t first, size_t count) const {
    std::vector<T> host(count);
    cudaMemcpy(host.data(), ptr + first, count * sizeof(T), cudaMemcpyDeviceToHost);
    return host;
  }
};
