// Stage 5, report: a reporter writes a report in one format. Each format is one
// file, src/pipeline/reporters/<name>.cpp, behind this interface, that registers
// itself at its end (reporter_registration); `grader --format NAME` picks one.
#pragma once

#include <memory>
#include <nlohmann/json.hpp>
#include <ostream>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

#include "grader/base/text.hpp"  // display_width, wrap_text
#include "grader/pipeline/registry.hpp"
#include "grader/pipeline/report.hpp"

namespace grader {

struct reporter_options {
  bool color = false;  // text: ANSI colours for a terminal
};

class reporter {
 public:
  virtual ~reporter() = default;
  virtual void write(const report& r, std::ostream& out) const = 0;
};

// A format's factory, and its registration at the end of reporters/<name>.cpp (see
// reporter_of below).
// The rank places it in reporter_formats() (and --format's help); without one it comes
// after the built-ins.
using reporter_factory = std::unique_ptr<reporter> (*)(const reporter_options&);
using reporter_registration = registry<reporter_factory>::registration;

// The factory of a reporter class, for its registration: built from the options when it
// takes them (text's colours), else by default.
//   const grader::reporter_registration junit_format{"junit", reporter_of<junit_reporter>, 40};
template <class R>
std::unique_ptr<reporter> reporter_of(const reporter_options& o) {
  if constexpr (std::is_constructible_v<R, const reporter_options&>)
    return std::make_unique<R>(o);
  else
    return std::make_unique<R>();
}

// The reporter for `format`, or nullptr when there is none by that name.
std::unique_ptr<reporter> make_reporter(std::string_view format, const reporter_options& o = {});
// Every registered format, by rank: text, json, gradescope, junit, exercism, classroom,
// markdown, then any other.
std::vector<std::string> reporter_formats();

// The two built-in formats, also usable directly.
// text: a table per unit, in the report's language (zh or en).
std::string render_text(const report& r, bool color);
// json: docs/report.schema.json. Top level: the first unit's fields (lesson,
// score, max_score, pass_line, vetoes, items), the lesson's `passed`, then every unit in
// "units" and every blank in "blanks".
nlohmann::json to_json(const report& r);
// The lesson's state in a few lines for a terminal (grader status, grader watch): a line
// per unit, each code exercise's blanks, and the next step, in 80 columns.
std::string render_status(const report& r, bool color);

}  // namespace grader
