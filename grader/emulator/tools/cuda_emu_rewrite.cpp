// Build tool: rewrites a .cu file's <<<>>> launches for g++ and writes the result
// with a #line directive, so diagnostics point at the original file.
//   cuda_emu_rewrite IN.cu OUT.cpp [--depfile OUT.d]
// When IN.cu is only a one-line `#include "/abs/file.cu"` wrapper (the grader
// writes those, so that a student's file is only ever read), the included file is
// the one rewritten; the depfile names it, so the build notices when it changes.
#include <fstream>
#include <iostream>
#include <regex>
#include <sstream>
#include <string>

#include "cuda_emu/rewrite.hpp"

namespace {

bool read(const std::string& path, std::string* text) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return false;
  std::ostringstream s;
  s << in.rdbuf();
  *text = s.str();
  return true;
}

// The path of a wrapper's single #include, or "" when the file is real code.
std::string wrapped_file(const std::string& text) {
  static const std::regex include_line(R"re(^\s*#\s*include\s*"([^"]+)"\s*$)re");
  std::istringstream lines(text);
  std::string line, target;
  while (std::getline(lines, line)) {
    const auto first = line.find_first_not_of(" \t\r");
    if (first == std::string::npos || line.compare(first, 2, "//") == 0) continue;
    std::smatch m;
    if (!target.empty() || !std::regex_match(line, m, include_line)) return "";
    target = m[1].str();
  }
  return target;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 3 && !(argc == 5 && std::string(argv[3]) == "--depfile")) {
    std::cerr << "usage: cuda_emu_rewrite IN.cu OUT.cpp [--depfile OUT.d]\n";
    return 2;
  }
  std::string source = argv[1], text;
  if (!read(source, &text)) {
    std::cerr << source << ": cannot read\n";
    return 1;
  }
  if (const std::string target = wrapped_file(text); !target.empty()) {
    source = target;
    if (!read(source, &text)) {
      std::cerr << source << ": cannot read\n";
      return 1;
    }
  }
  try {
    const std::string body = cuda_emu::rewrite_launches(text);
    std::ofstream out(argv[2], std::ios::binary);
    out << "#line 1 \"" << source << "\"\n" << body;
    if (!out) {
      std::cerr << argv[2] << ": cannot write\n";
      return 1;
    }
    if (argc == 5) {
      std::ofstream dep(argv[4]);
      dep << argv[2] << ": " << source << "\n";
    }
  } catch (const cuda_emu::rewrite_error& e) {
    std::cerr << source << ":" << e.what() << "\n";
    return 1;
  }
  return 0;
}
