// The online_softmax exercise's functions across the process boundary of marking mode
// (course/remote.hpp): built as the judge's stand-ins (COURSE_REMOTE_JUDGE) and as the
// compute process's table (COURSE_REMOTE_COMPUTE). One line per function and role; the
// array sizes are the ones online_softmax.hpp documents.
#include "course/remote.hpp"
#include "online_softmax.hpp"

#if defined(COURSE_REMOTE_JUDGE)
namespace lesson13 {
namespace {
using course::remote::call;
std::size_t area(long a, long b) {
  return static_cast<std::size_t>(a) * static_cast<std::size_t>(b);
}
}  // namespace

void online_softmax_update(const float* S_ij, const float* V_j, int Br, int Bc, int d, float* m_i,
                           float* l_i, float* O_i) {
  call("online_softmax_update", {Br, Bc, d},
       {{S_ij, area(Br, Bc)},
        {V_j, area(Bc, d)},
        {m_i, area(Br, 1)},
        {l_i, area(Br, 1)},
        {O_i, area(Br, d)}});
}

void normalize_rows(float* O, const float* l, int n, int d) {
  call("normalize_rows", {n, d}, {{O, area(n, d)}, {l, area(n, 1)}});
}

void flash_attention(const float* Q, const float* K, const float* V, int n, int d, int block_size,
                     float* O) {
  call("flash_attention", {n, d, block_size},
       {{Q, area(n, d)}, {K, area(n, d)}, {V, area(n, d)}, {O, area(n, d)}});
}
}  // namespace lesson13

#elif defined(COURSE_REMOTE_COMPUTE)
namespace course::remote {
std::map<std::string, handler> handlers() {
  using ints = std::vector<std::int64_t>;
  using arrays = std::vector<std::vector<float> >;
  auto i = [](const ints& v, size_t k) { return static_cast<int>(v.at(k)); };
  return {
      {"online_softmax_update",
       [=](const ints& n, arrays& a, course::remote::exchange&) {
         lesson13::online_softmax_update(a.at(0).data(), a.at(1).data(), i(n, 0), i(n, 1), i(n, 2),
                                         a.at(2).data(), a.at(3).data(), a.at(4).data());
       }},
      {"normalize_rows",
       [=](const ints& n, arrays& a, course::remote::exchange&) {
         lesson13::normalize_rows(a.at(0).data(), a.at(1).data(), i(n, 0), i(n, 1));
       }},
      {"flash_attention",
       [=](const ints& n, arrays& a, course::remote::exchange&) {
         lesson13::flash_attention(a.at(0).data(), a.at(1).data(), a.at(2).data(), i(n, 0), i(n, 1),
                                   i(n, 2), a.at(3).data());
       }},
  };
}
}  // namespace course::remote
#else
#error "build remote_online_softmax.cpp with COURSE_REMOTE_JUDGE or COURSE_REMOTE_COMPUTE"
#endif
