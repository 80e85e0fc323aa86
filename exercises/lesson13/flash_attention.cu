// Lesson 13 lab 3: FlashAttention's forward pass as a CUDA kernel (fp32).
// Fill in the BLANKs, then grade with: grader lesson13 --unit lab_flash
//
// One block per tile of kFlashBr query rows, one thread per query row. The block
// walks over K and V in tiles of kFlashBc rows staged in shared memory; each
// thread keeps its row's running max m, running sum l and unnormalised output o
// in registers, exactly as the C++ exercise (online_softmax.cpp) does, and writes
// O once at the end. No n x n matrix ever exists. API:
// lessons/lesson13/include/flash_attention_lab.hpp.
#include <cuda_runtime.h>

#include "course/blank.hpp"
#include "flash_attention_lab.hpp"

namespace lesson13 {
namespace {

constexpr int Br = kFlashBr, Bc = kFlashBc, kMaxD = 128;

// The K_j and V_j tiles, sized for the largest d. Declared outside the kernel
// template: a __shared__ array inside a template is invisible to the emulator.
__shared__ float K_tile[Bc * kMaxD];
__shared__ float V_tile[Bc * kMaxD];

template <int D>
__global__ void flash_attention_kernel(const float* Q, const float* K, const float* V, float* O, int n) {
  float(*K_j)[D] = reinterpret_cast<float(*)[D]>(K_tile);  // K_j[c][k]: row c of this tile
  float(*V_j)[D] = reinterpret_cast<float(*)[D]>(V_tile);
  const int r = blockIdx.x * Br + threadIdx.x;  // this thread's query row
  const bool active = r < n;

  float q[D], o[D], s[Bc];
  for (int k = 0; k < D; ++k) {
    q[k] = active ? Q[r * D + k] : 0.0f;
    o[k] = 0.0f;
  }
  float m_i = -INFINITY, l_i = 0.0f;

  for (int j = 0; j < n; j += Bc) {
    const int bc = min(Bc, n - j);  // the last tile may be partial
    // Stage K_j and V_j: consecutive threads copy consecutive floats.
    for (int idx = threadIdx.x; idx < bc * D; idx += Br) {
      K_j[idx / D][idx % D] = K[j * D + idx];
      V_j[idx / D][idx % D] = V[j * D + idx];
    }
    __syncthreads();

    if (active) {
      float block_max = -INFINITY;
      for (int c = 0; c < bc; ++c) {
        float dot = 0.0f;
        for (int k = 0; k < D; ++k) dot += q[k] * K_j[c][k];
        s[c] = dot;
        block_max = fmaxf(block_max, dot);
      }

      // 1) New running max.
      const float m_new = BLANK(m_new);

      // 2) Re-base what was accumulated under the old max.
      const float scale = BLANK(scale);

      float p_sum = 0.0f;
      for (int c = 0; c < bc; ++c) {
        s[c] = expf(s[c] - m_new);  // this tile's unnormalised weights p_ij
        p_sum += s[c];
      }

      // 3) Running sum.
      const float l_new = BLANK(l_new);

      // 4) Running output: the old row re-based, plus this tile's weighted rows of V_j.
      for (int k = 0; k < D; ++k) {
        o[k] = BLANK(O_update);  // uses o[k], scale, s[c] (= p_ij) and V_j[c][k]
      }
      m_i = m_new;
      l_i = l_new;
    }
    __syncthreads();  // the next tile overwrites K_j and V_j
  }

  if (active)
    for (int k = 0; k < D; ++k) {
      // 5) Normalise once, at the end.
      O[r * D + k] = BLANK(normalize);
    }
}

template <int D>
void launch(const float* Q, const float* K, const float* V, float* O, int n) {
  flash_attention_kernel<D><<<(n + Br - 1) / Br, Br>>>(Q, K, V, O, n);
}

}  // namespace

bool flash_attention_forward(const float* Q, const float* K, const float* V, float* O, int n, int d) {
  switch (d) {
    case 16: launch<16>(Q, K, V, O, n); return true;
    case 32: launch<32>(Q, K, V, O, n); return true;
    case 64: launch<64>(Q, K, V, O, n); return true;
    case 128: launch<128>(Q, K, V, O, n); return true;
    default: return false;
  }
}

}  // namespace lesson13
