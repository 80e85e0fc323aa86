// Lab 1's function across marking mode's process boundary (course/remote_device.hpp):
// built as the judge's stand-in (COURSE_REMOTE_JUDGE) and as the compute process's
// table (COURSE_REMOTE_COMPUTE).
#include "remote_matmul.hpp"

#if defined(COURSE_REMOTE_JUDGE)
void lesson13::matmul_coalesced(const float* A, const float* B, float* C, int M, int N, int K) {
  remote_glue::matmul_call("matmul_coalesced", A, B, C, M, N, K);
}
#elif defined(COURSE_REMOTE_COMPUTE)
std::map<std::string, course::remote::handler> course::remote::handlers() {
  return {{"matmul_coalesced", lesson13::remote_glue::matmul_handler(lesson13::matmul_coalesced)}};
}
#else
#error "build remote_matmul_coalesced.cpp with COURSE_REMOTE_JUDGE or COURSE_REMOTE_COMPUTE"
#endif
