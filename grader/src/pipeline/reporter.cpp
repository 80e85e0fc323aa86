// The reporter registry: every report format, by name (see reporter.hpp).
#include "grader/pipeline/reporter.hpp"

namespace grader {

// One line per format; each is defined in src/pipeline/reporters/<name>.cpp.
std::unique_ptr<reporter> make_text_reporter(const reporter_options& o);
std::unique_ptr<reporter> make_json_reporter(const reporter_options& o);
std::unique_ptr<reporter> make_gradescope_reporter(const reporter_options& o);
std::unique_ptr<reporter> make_junit_reporter(const reporter_options& o);
std::unique_ptr<reporter> make_exercism_reporter(const reporter_options& o);
std::unique_ptr<reporter> make_classroom_reporter(const reporter_options& o);
std::unique_ptr<reporter> make_markdown_reporter(const reporter_options& o);

namespace {

struct format_entry {
  const char* name;
  std::unique_ptr<reporter> (*make)(const reporter_options&);
};

constexpr format_entry formats[] = {
    {"text", make_text_reporter},
    {"json", make_json_reporter},
    {"gradescope", make_gradescope_reporter},
    {"junit", make_junit_reporter},
    {"exercism", make_exercism_reporter},
    {"classroom", make_classroom_reporter},
    {"markdown", make_markdown_reporter},
};

}  // namespace

std::unique_ptr<reporter> make_reporter(std::string_view format, const reporter_options& o) {
  for (const auto& f : formats)
    if (format == f.name) return f.make(o);
  return nullptr;
}

std::vector<std::string> reporter_formats() {
  std::vector<std::string> out;
  for (const auto& f : formats) out.emplace_back(f.name);
  return out;
}

}  // namespace grader
