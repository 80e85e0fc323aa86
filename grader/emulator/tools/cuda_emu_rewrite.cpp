// Build tool: rewrites a .cu file's <<<>>> launches for g++ and writes the result
// with a #line directive, so diagnostics point at the original file.
//   cuda_emu_rewrite in.cu out.cpp
#include <fstream>
#include <iostream>
#include <sstream>

#include "cuda_emu/rewrite.hpp"

int main(int argc, char** argv) {
  if (argc != 3) {
    std::cerr << "usage: cuda_emu_rewrite IN.cu OUT.cpp\n";
    return 2;
  }
  std::ifstream in(argv[1], std::ios::binary);
  if (!in) {
    std::cerr << argv[1] << ": cannot read\n";
    return 1;
  }
  std::ostringstream text;
  text << in.rdbuf();
  try {
    const std::string body = cuda_emu::rewrite_launches(text.str());
    std::ostringstream result;
    result << "#line 1 \"" << argv[1] << "\"\n" << body;
    std::ofstream out(argv[2], std::ios::binary);
    out << result.str();
    if (!out) {
      std::cerr << argv[2] << ": cannot write\n";
      return 1;
    }
  } catch (const cuda_emu::rewrite_error& e) {
    std::cerr << argv[1] << ":" << e.what() << "\n";
    return 1;
  }
  return 0;
}
