// Double-precision CPU reference for lesson 13's matmul tests (matmul_coalesced,
// matmul_tiled): what a correct kernel's C must approach.
#pragma once

#include <vector>

namespace lesson13::reference {

// C = A B in double, row-major: A is M x K, B is K x N, C is M x N.
std::vector<double> matmul_reference(const std::vector<float>& A, const std::vector<float>& B,
                                     int M, int N, int K);

}  // namespace lesson13::reference
