// The matmul labs' functions across marking mode's process boundary
// (course/remote_device.hpp), shared by remote_matmul_coalesced.cpp and
// remote_matmul_tiled.cpp: A is M x K, B is K x N, C is M x N (matmul_labs.hpp).
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "course/remote_device.hpp"
#include "matmul_labs.hpp"

namespace lesson13::remote_glue {

inline std::size_t area(long a, long b) {
  return static_cast<std::size_t>(a) * static_cast<std::size_t>(b);
}

// Judge side: the body of a stand-in for the student's matmul called `name`.
inline void matmul_call(const char* name, const float* A, const float* B, float* C, int M, int N,
                        int K) {
  course::remote::device_call(name, {M, N, K}, {{A, area(M, K)}, {B, area(K, N)}, {C, area(M, N)}});
}

// Compute side: the handler that calls the student's `f` on the compute process's copies.
using matmul_fn = void (*)(const float*, const float*, float*, int, int, int);
inline course::remote::handler matmul_handler(matmul_fn f) {
  return course::remote::on_device(
      [f](const std::vector<std::int64_t>& n, const std::vector<float*>& d) -> std::int64_t {
        f(d.at(0), d.at(1), d.at(2), static_cast<int>(n.at(0)), static_cast<int>(n.at(1)),
          static_cast<int>(n.at(2)));
        return 0;
      });
}

}  // namespace lesson13::remote_glue
