// Lesson 13's figure inputs, figures/figures.json: the numbers that the notes' checks share with
// the figure scripts (figures/make_figures.py draws notes/figures/*.svg from the same file), so
// a figure and the text beside it come from one value. Read once, on first use, from LESSON_DIR.
#pragma once

#include <nlohmann/json.hpp>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>
#include <string>
#include <vector>

namespace lesson13_figures {

inline const nlohmann::json& inputs() {
  static const nlohmann::json parsed = [] {
    const auto path = std::filesystem::path(LESSON_DIR) / "figures" / "figures.json";
    std::ifstream in(path);
    nlohmann::json j = nlohmann::json::parse(in, nullptr, /*allow_exceptions=*/false);
    if (j.is_discarded()) std::cerr << "cannot read " << path.string() << " as JSON\n";
    return j;
  }();
  return parsed;
}

// The number at inputs()[section][key]; NaN, which fails every figure computed from it, when
// the file or the key is missing.
inline double input(const std::string& section, const std::string& key) {
  const nlohmann::json& j = inputs();
  if (!j.is_object() || !j.contains(section) || !j[section].contains(key) ||
      !j[section][key].is_number()) {
    std::cerr << "figures.json has no number " << section << "." << key << "\n";
    return std::nan("");
  }
  return j[section][key].get<double>();
}

// The list of numbers at inputs()[section][key]; empty when missing.
inline std::vector<double> input_list(const std::string& section, const std::string& key) {
  const nlohmann::json& j = inputs();
  std::vector<double> out;
  if (j.is_object() && j.contains(section) && j[section].contains(key) &&
      j[section][key].is_array())
    for (const auto& v : j[section][key]) out.push_back(v.is_number() ? v.get<double>() : NAN);
  if (out.empty()) std::cerr << "figures.json has no list " << section << "." << key << "\n";
  return out;
}

}  // namespace lesson13_figures

namespace lesson13_figures {

// The file of one GPU run's role in figures.json's "measured" section (ladder, eager, fast,
// bf16, steps), relative to the repository's root; "" when missing (every figure read from it
// is then NaN, and fails).
inline std::string measured(const std::string& role) {
  const nlohmann::json& j = inputs();
  if (j.is_object() && j.contains("measured") && j["measured"].contains(role) &&
      j["measured"][role].is_string())
    return j["measured"][role].get<std::string>();
  std::cerr << "figures.json has no measured run for " << role << "\n";
  return "";
}

// A timing program's output (lesson13_gpu_bench, one JSON object a line) at `path`, relative
// to the repository's root: the notes' measured figures are computed from these files, so
// a new run changes the figures it moves and the checks name each one to update.
inline const std::vector<nlohmann::json>& ladder(const std::string& path) {
  static std::vector<std::pair<std::string, std::vector<nlohmann::json>>> cache;
  for (const auto& [p, lines] : cache)
    if (p == path) return lines;
  std::vector<nlohmann::json> lines;
  std::ifstream in(std::filesystem::path(LESSON_DIR) / ".." / ".." / path);
  if (!in) std::cerr << "cannot read the timings " << path << "\n";
  for (std::string line; std::getline(in, line);) {
    nlohmann::json j = nlohmann::json::parse(line, nullptr, /*allow_exceptions=*/false);
    if (!j.is_discarded()) lines.push_back(std::move(j));
  }
  cache.emplace_back(path, std::move(lines));
  return cache.back().second;
}

// The milliseconds of `kernel` at size n (and d, for attention) in that file; NaN, which
// fails every figure computed from it, when the line is missing.
inline double ladder_ms(const std::string& path, const std::string& kernel, int n, int d = 0) {
  for (const auto& j : ladder(path))
    if (j.value("kernel", "") == kernel && j.value("n", 0) == n && j.value("d", 0) == d &&
        j.contains("ms") && j["ms"].is_number())
      return j["ms"].get<double>();
  std::cerr << path << " has no time for " << kernel << " n=" << n << " d=" << d << "\n";
  return std::nan("");
}

// The milliseconds of `name` at heads x n x d in the text wmma_steps prints (lines
// "  NAME heads H n N d D: MS ms ..."); NaN when the line is missing.
inline double steps_ms(const std::string& path, const std::string& name, int heads, int n, int d) {
  std::ifstream in(std::filesystem::path(LESSON_DIR) / ".." / ".." / path);
  for (std::string line; std::getline(in, line);) {
    std::istringstream words(line);
    std::string got, w_heads, w_n, w_d;
    int h = 0, nn = 0, dd = 0;
    double ms = 0;
    char colon = 0;
    if (words >> got >> w_heads >> h >> w_n >> nn >> w_d >> dd >> colon >> ms && got == name &&
        w_heads == "heads" && h == heads && nn == n && dd == d && colon == ':')
      return ms;
  }
  std::cerr << path << " has no time for " << name << " heads=" << heads << " n=" << n << " d=" << d
            << "\n";
  return std::nan("");
}

}  // namespace lesson13_figures
