// Lab 4's function across marking mode's process boundary (course/remote_device.hpp): built
// as the judge's stand-in (COURSE_REMOTE_JUDGE) and as the compute process's table
// (COURSE_REMOTE_COMPUTE). Q, K, V and O are heads x n x d bf16 (flash_attention_wmma.hpp),
// carried as floats two elements at a time: d is even whenever the function accepts it.
#include <cstddef>

#include "course/remote_device.hpp"
#include "flash_attention_wmma.hpp"

#if defined(COURSE_REMOTE_JUDGE)
bool lesson13::flash_attention_wmma_forward(const __nv_bfloat16* Q, const __nv_bfloat16* K,
                                            const __nv_bfloat16* V, __nv_bfloat16* O, int heads,
                                            int n, int d) {
  auto nonneg = [](int x) { return static_cast<std::size_t>(x < 0 ? 0 : x); };
  const std::size_t floats = nonneg(heads) * nonneg(n) * nonneg(d) / 2;
  auto as_floats = [&](const __nv_bfloat16* p) {
    return course::remote::device_array{reinterpret_cast<const float*>(p), floats};
  };
  return course::remote::device_call("flash_attention_wmma_forward", {heads, n, d},
                                     {as_floats(Q), as_floats(K), as_floats(V), as_floats(O)}) != 0;
}
#elif defined(COURSE_REMOTE_COMPUTE)
std::map<std::string, course::remote::handler> course::remote::handlers() {
  return {{"flash_attention_wmma_forward",
           course::remote::on_device([](const std::vector<std::int64_t>& n,
                                        const std::vector<float*>& d) -> std::int64_t {
             auto bf16 = [&](std::size_t i) { return reinterpret_cast<__nv_bfloat16*>(d.at(i)); };
             return lesson13::flash_attention_wmma_forward(
                 bf16(0), bf16(1), bf16(2), bf16(3), static_cast<int>(n.at(0)),
                 static_cast<int>(n.at(1)), static_cast<int>(n.at(2)));
           })}};
}
#else
#error "build remote_flash_attention_wmma.cpp with COURSE_REMOTE_JUDGE or COURSE_REMOTE_COMPUTE"
#endif
