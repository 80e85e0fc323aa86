// Reads the figures marked in a lesson's notes, so its checks can recompute them
// (lessons/<lesson>/checks/*.cpp, run as <lesson>.checks). Any lesson can use it.
// In the markdown a figure is marked right after its number:
//     ... takes 32 MiB<!-- fig:attn.s_mib --> per head ...
// The marker is invisible on GitHub; its value is the last number before it on
// the same line (thousands separators allowed). With COURSE_FIGURES_WRITE=1 in the
// environment, check_figures also rewrites each figure that drifted from its computation,
// in the number's own format (its decimals, its separators), so that a new measurement
// reaches the text in one command; the next run without it checks the result.
#pragma once

#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <regex>
#include <set>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

namespace lesson_checks {

struct marked_figure {
  std::string file;
  int line;
  std::string name;
  double value;
  std::filesystem::path path;
  std::string text;  // the number as written, at number_at in its line
  size_t number_at = 0;
};

inline std::vector<marked_figure> read_marked_figures(const std::filesystem::path& dir) {
  static const std::regex marker(R"(<!--\s*fig:([A-Za-z0-9_.-]+)\s*-->)");
  static const std::regex number(R"((\d[\d,]*(\.\d+)?|\.\d+)([eE][-+]?\d+)?)");
  std::vector<marked_figure> out;
  for (const auto& entry : std::filesystem::recursive_directory_iterator(dir)) {
    if (entry.path().extension() != ".md") continue;
    std::ifstream in(entry.path());
    std::string line;
    for (int n = 1; std::getline(in, line); ++n) {
      for (std::sregex_iterator it(line.begin(), line.end(), marker), end; it != end; ++it) {
        const std::string before = line.substr(0, it->position());
        std::string last;
        size_t at = 0;
        for (std::sregex_iterator nt(before.begin(), before.end(), number); nt != end; ++nt)
          last = nt->str(), at = static_cast<size_t>(nt->position());
        std::string digits = last;
        digits.erase(std::remove(digits.begin(), digits.end(), ','), digits.end());
        out.push_back({entry.path().filename().string(), n, (*it)[1].str(),
                       digits.empty() ? std::nan("") : std::stod(digits), entry.path(), last, at});
      }
    }
  }
  return out;
}

// A computed figure: {value, relative tolerance}.
using figure = std::pair<double, double>;

// A figure the notes state exactly (integers, exact binary fractions).
inline figure exact(double value) {
  return {value, 0.0};
}

// A figure the notes round to `decimals` places: allow half a unit in the last place.
inline figure rounded(double value, int decimals) {
  const double half_unit = 0.5 * std::pow(10.0, -decimals);
  return {value, half_unit * (1.0 + 1e-9) / std::abs(value)};
}

// `value` written as `like` is: as many decimals, thousands separated by commas if it is.
inline std::string format_like(double value, const std::string& like) {
  const size_t dot = like.find('.');
  const int decimals = dot == std::string::npos ? 0 : static_cast<int>(like.size() - dot - 1);
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.*f", decimals, value);
  std::string text = buf;
  if (like.find(',') == std::string::npos) return text;
  const size_t int_end = std::min(text.find('.'), text.size());
  for (size_t i = int_end; i > 3; i -= 3) text.insert(i - 3, ",");
  return text;
}

// Rewrites each figure of `drifted` (a marked figure and the number to write) in its file.
inline void write_figures(std::vector<std::pair<marked_figure, std::string>> drifted) {
  // Right to left within a line, so that earlier positions stay valid.
  std::sort(drifted.begin(), drifted.end(), [](const auto& a, const auto& b) {
    return std::tie(a.first.path, a.first.line, b.first.number_at) <
           std::tie(b.first.path, b.first.line, a.first.number_at);
  });
  for (size_t i = 0; i < drifted.size();) {
    const std::filesystem::path path = drifted[i].first.path;
    std::vector<std::string> lines;
    {
      std::ifstream in(path);
      for (std::string l; std::getline(in, l);) lines.push_back(l);
    }
    for (; i < drifted.size() && drifted[i].first.path == path; ++i) {
      const auto& [f, text] = drifted[i];
      lines[f.line - 1].replace(f.number_at, f.text.size(), text);
    }
    std::ofstream out(path, std::ios::trunc);
    for (const auto& l : lines) out << l << '\n';
  }
}

// Every marked figure whose name starts with `prefix` must equal its computed
// value (within rel_tol, for figures the notes round), and every computed figure
// must be marked at least once in the zh notes and once in the en notes.
inline void check_figures(const std::filesystem::path& dir, const std::string& prefix,
                          const std::map<std::string, std::pair<double, double>>& computed) {
  const char* write = std::getenv("COURSE_FIGURES_WRITE");
  std::vector<std::pair<marked_figure, std::string>> drifted;
  std::set<std::string> seen_zh, seen_en;
  for (const auto& f : read_marked_figures(dir)) {
    if (f.name.rfind(prefix, 0) != 0) continue;
    INFO(f.file << ":" << f.line << ": figure " << f.name << " reads " << f.value);
    const auto want = computed.find(f.name);
    REQUIRE(want != computed.end());  // a marker with no computation behind it
    const auto [value, rel_tol] = want->second;
    const bool right = std::abs(f.value - value) <= rel_tol * std::abs(value) + 1e-12;
    CHECK(right);
    if (!right && write && *write && std::isfinite(value) && !f.text.empty())
      drifted.push_back({f, format_like(value, f.text)});
    (f.file.find(".zh.") != std::string::npos ? seen_zh : seen_en).insert(f.name);
  }
  if (!drifted.empty()) write_figures(drifted);
  for (const auto& [name, v] : computed) {
    INFO("figure " << name << " = " << v.first << " is never marked in the notes");
    CHECK(seen_zh.count(name) == 1);
    CHECK(seen_en.count(name) == 1);
  }
}

}  // namespace lesson_checks
