// Reads the figures marked in a lesson's notes, so its checks can recompute them
// (lessons/<lesson>/checks/*.cpp, run as <lesson>.checks). Any lesson can use it.
// In the markdown a figure is marked right after its number:
//     ... takes 32 MiB<!-- fig:attn.s_mib --> per head ...
// The marker is invisible on GitHub; its value is the last number before it on
// the same line (thousands separators allowed).
#pragma once

#include <catch2/catch.hpp>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <map>
#include <regex>
#include <set>
#include <string>
#include <utility>
#include <vector>

namespace lesson_checks {

struct marked_figure {
  std::string file;
  int line;
  std::string name;
  double value;
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
        for (std::sregex_iterator nt(before.begin(), before.end(), number); nt != end; ++nt)
          last = nt->str();
        last.erase(std::remove(last.begin(), last.end(), ','), last.end());
        out.push_back({entry.path().filename().string(), n, (*it)[1].str(),
                       last.empty() ? std::nan("") : std::stod(last)});
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

// Every marked figure whose name starts with `prefix` must equal its computed
// value (within rel_tol, for figures the notes round), and every computed figure
// must be marked at least once in the zh notes and once in the en notes.
inline void check_figures(const std::filesystem::path& dir, const std::string& prefix,
                          const std::map<std::string, std::pair<double, double>>& computed) {
  std::set<std::string> seen_zh, seen_en;
  for (const auto& f : read_marked_figures(dir)) {
    if (f.name.rfind(prefix, 0) != 0) continue;
    INFO(f.file << ":" << f.line << ": figure " << f.name << " reads " << f.value);
    const auto want = computed.find(f.name);
    REQUIRE(want != computed.end());  // a marker with no computation behind it
    const auto [value, rel_tol] = want->second;
    CHECK(std::abs(f.value - value) <= rel_tol * std::abs(value) + 1e-12);
    (f.file.find(".zh.") != std::string::npos ? seen_zh : seen_en).insert(f.name);
  }
  for (const auto& [name, v] : computed) {
    INFO("figure " << name << " = " << v.first << " is never marked in the notes");
    CHECK(seen_zh.count(name) == 1);
    CHECK(seen_en.count(name) == 1);
  }
}

}  // namespace lesson_checks
