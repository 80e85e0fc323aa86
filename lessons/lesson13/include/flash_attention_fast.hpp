// Lesson 13 CUDA lab 3, part 2: FlashAttention's forward pass in fp32, register-tiled
// (exercises/lesson13/flash_attention_fast.cu): the kernel lab 3's one-warp-per-row version
// grows into, and the one `--gpu` times against eager attention on cuBLAS. Same contract as
// flash_attention_forward (flash_attention_lab.hpp): O = softmax(Q K^T) V with no 1/sqrt(d),
// Q, K, V, O n x d row-major device pointers.
#pragma once

namespace lesson13 {

// d must be 64 or 128; returns false (and launches nothing) otherwise. `splits` is how many
// blocks share one query tile's keys (each takes a contiguous run of key tiles, and a second
// kernel merges their rows): 0 picks enough to fill the GPU, 1 keeps every row in one block.
bool flash_attention_fast_forward(const float* Q, const float* K, const float* V, float* O, int n,
                                  int d, int splits = 0);

}  // namespace lesson13
