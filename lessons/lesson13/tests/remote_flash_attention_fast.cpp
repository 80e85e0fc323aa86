// Lab 3 part 2's function across marking mode's process boundary (course/remote_device.hpp):
// built as the judge's stand-in (COURSE_REMOTE_JUDGE) and as the compute process's table
// (COURSE_REMOTE_COMPUTE). Q, K, V and O are n x d (flash_attention_fast.hpp).
#include <cstddef>

#include "course/remote_device.hpp"
#include "flash_attention_fast.hpp"

#if defined(COURSE_REMOTE_JUDGE)
bool lesson13::flash_attention_fast_forward(const float* Q, const float* K, const float* V,
                                            float* O, int n, int d, int splits) {
  const std::size_t area = static_cast<std::size_t>(n < 0 ? 0 : n) * (d < 0 ? 0 : d);
  return course::remote::device_call("flash_attention_fast_forward", {n, d, splits},
                                     {{Q, area}, {K, area}, {V, area}, {O, area}}) != 0;
}
#elif defined(COURSE_REMOTE_COMPUTE)
std::map<std::string, course::remote::handler> course::remote::handlers() {
  return {{"flash_attention_fast_forward",
           course::remote::on_device([](const std::vector<std::int64_t>& n,
                                        const std::vector<float*>& d) -> std::int64_t {
             return lesson13::flash_attention_fast_forward(
                 d.at(0), d.at(1), d.at(2), d.at(3), static_cast<int>(n.at(0)),
                 static_cast<int>(n.at(1)), static_cast<int>(n.at(2)));
           })}};
}
#else
#error "build remote_flash_attention_fast.cpp with COURSE_REMOTE_JUDGE or COURSE_REMOTE_COMPUTE"
#endif
