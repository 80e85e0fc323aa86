// Adversarial case forged-records-cmdline (solutions/lesson13/attacks/forged-records-cmdline/case.json): appended to a wrong online_softmax.cpp.
// Run: grader/tests/adversarial_test.py build/bin/grader . --only forged-records-cmdline

#include <sys/wait.h>
#include <unistd.h>

#include <fstream>
#include <iterator>
#include <string>
#include <vector>

namespace {

// The test binary's own command line: the grader names the records file (--out FILE).
std::vector<std::string> adv_argv() {
  std::ifstream in("/proc/self/cmdline", std::ios::binary);
  const std::string all((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  std::vector<std::string> args;
  std::string cur;
  for (char c : all) {
    if (c == '\0') {
      args.push_back(cur);
      cur.clear();
    } else {
      cur += c;
    }
  }
  return args;
}

std::string adv_out_file() {
  const std::vector<std::string> args = adv_argv();
  for (size_t i = 0; i + 1 < args.size(); ++i)
    if (args[i] == "--out") return args[i + 1];
  return {};
}

struct adv_forger {
  adv_forger() {
    const std::string out = adv_out_file();
    if (out.empty()) return;  // listing the tags: behave
    const pid_t child = fork();
    if (child == 0) return;  // the child runs the real tests and writes the real records
    int status = 0;
    waitpid(child, &status, 0);
    std::string text;
    {
      std::ifstream in(out, std::ios::binary);
      text.assign(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
    }
    const std::string from = "\"passed\":false", to = "\"passed\":true";
    for (size_t p = text.find(from); p != std::string::npos; p = text.find(from, p + to.size()))
      text.replace(p, from.size(), to);
    std::ofstream(out, std::ios::binary | std::ios::trunc) << text;
    _exit(0);  // and the process "succeeded"
  }
} adv_forge_results;
}  // namespace
