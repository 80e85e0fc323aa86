// The build-time source rewrite that lets g++ compile CUDA launches:
//   kernel<<<grid, block>>>(a, b)
// becomes
//   ::cuda_emu::launch_kernel(::cuda_emu::launch_config{grid, block}, "kernel",
//                             launch_callable("kernel"), a, b)
// and `extern __shared__ T s[];` names the emulator's dynamic shared buffer; printf
// calls become ::cuda_emu::detail::device_printf (printf.hpp).
// Comments, strings and line breaks are kept, so compiler messages keep their lines.
#pragma once

#include <stdexcept>
#include <string>
#include <string_view>

namespace cuda_emu {

class rewrite_error : public std::runtime_error {
 public:
  rewrite_error(int line, const std::string& what)
      : std::runtime_error(std::to_string(line) + ": " + what), line_(line) {}
  int line() const { return line_; }

 private:
  int line_;
};

std::string rewrite_launches(std::string_view source);

// The lambda that stands for `callee` in a rewritten launch (tests compare with it).
std::string launch_callable(const std::string& callee);

}  // namespace cuda_emu
