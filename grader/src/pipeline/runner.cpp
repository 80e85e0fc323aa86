// The runner registry (see runner.hpp). The runners register themselves, each at the
// end of its own src/pipeline/runners/<name>.cpp.
#include "grader/pipeline/runner.hpp"

namespace grader {

std::unique_ptr<runner> make_runner(std::string_view name, isolation level) {
  const runner_factory make = registry<runner_factory>::instance().find(name);
  return make ? make(level) : nullptr;
}

std::vector<std::string> runner_names() {
  return registry<runner_factory>::instance().names();
}

std::string default_runner(isolation level) {
  return level == isolation::none ? "process" : "sandbox";
}

}  // namespace grader
