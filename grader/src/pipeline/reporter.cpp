// The reporter registry: every report format, by name (see reporter.hpp). The formats
// register themselves, each at the end of its own src/pipeline/reporters/<name>.cpp.
#include "grader/pipeline/reporter.hpp"

namespace grader {

std::unique_ptr<reporter> make_reporter(std::string_view format, const reporter_options& o) {
  const reporter_factory make = registry<reporter_factory>::instance().find(format);
  return make ? make(o) : nullptr;
}

std::vector<std::string> reporter_formats() {
  return registry<reporter_factory>::instance().names();
}

}  // namespace grader
