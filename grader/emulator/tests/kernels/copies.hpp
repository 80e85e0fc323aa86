// Host entry points of copies.cu: plain copies several adversarial tests share.
#pragma once

struct adv_big {  // 32 bytes: wider than any __tsan_readN hook
  float v[8];
};

void adv_copy(const float* in, float* out, int threads);
void adv_copy_big(const adv_big* in, adv_big* out, int threads);
// Kernels that write device memory behind the instrumentation's back (unseen writes).
void adv_hidden_library_store(const float* in, float* out);
void adv_hidden_asm_store(const float* in, float* out, int threads);
